"""What each problem `code` means and what to do about it: the page at a problem's
`type` URL, ``{SITE_URL}/problems/<code>/`` (RFC 9457: the type is a URI a person
can open), served by ``api.problem_pages``.

The codes are made where they are raised (the domain errors of each app, the
HTTP plumbing in this package, the authentication, DRF); this is only their
explanation, in one place because it is read as one list (``/problems/``). The
tests gather the codes from where they are made and check that each has its
entry here, with the status it is sent with.

``status`` is what the API answers with; None for the codes that never reach an
API client (``seen_in`` says where a person meets them instead).
"""

from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings


@dataclass(frozen=True)
class ProblemType:
    code: str
    status: int | None
    title: str
    meaning: str
    remedy: str
    seen_in: str = "the API"


def problem_type_url(code: str) -> str:
    """The `type` of a problem with this code: the page that explains it."""
    return f"{settings.SITE_URL}/problems/{code}/"


_PAGE = "the game page (a seat's link) and `manage.py game_link`"
_ADMIN = "the admin, as a message after an action"
_EMAIL = "the reply to an emailed command"

PROBLEM_TYPES: dict[str, ProblemType] = {
    problem.code: problem
    for problem in (
        # --- HTTP itself: made before or around an endpoint -------------------------------
        ProblemType(
            "bad_request", 400, "Bad request",
            "The request cannot be read as HTTP: a malformed request line or header, or a request "
            "refused before it reached any endpoint.",
            "Check what your client sends: the request line, the headers and their encoding.",
        ),
        ProblemType(
            "parse_error", 400, "Malformed JSON",
            "The body is not valid JSON.",
            "Send a body that a JSON parser accepts (double-quoted strings, no trailing commas), "
            "with `Content-Type: application/json`.",
        ),
        ProblemType(
            "forbidden", 403, "Forbidden",
            "The request was refused before it reached the API: a PROXY protocol line from an address "
            "that may not send one, or a TLS handshake sent to a plain HTTP port.",
            "Connect to the site's published address, as a browser would.",
        ),
        ProblemType(
            "permission_denied", 403, "Permission denied",
            "You are known, but not allowed to do this, for a reason no other code names.",
            "Check that you use the right account or token; trying again will not help.",
        ),
        ProblemType(
            "not_found", 404, "Not found",
            "There is nothing at this address.",
            "Check the address against the interactive documentation at `/api/docs/`; API "
            "addresses end with a slash.",
        ),
        ProblemType(
            "method_not_allowed", 405, "Method not allowed",
            "The address exists but does not take that method (a POST to a list that is only read, say).",
            "Use one of the methods in the `Allow` header of the answer.",
        ),
        ProblemType(
            "not_acceptable", 406, "Not acceptable",
            "The `Accept` header allows no JSON, and the API speaks only JSON.",
            "Send `Accept: application/json` (or no `Accept` header). People read `/api/docs/`.",
        ),
        ProblemType(
            "length_required", 411, "Length required",
            "The body was sent in chunks, and this server cannot read a chunked body here.",
            "Send the body with a `Content-Length` header.",
        ),
        ProblemType(
            "payload_too_large", 413, "Payload too large",
            "The body is larger than the server takes; `limit` gives the largest body, in bytes.",
            "Send a smaller body: no request of the API needs a large one.",
        ),
        ProblemType(
            "uri_too_long", 414, "URI too long",
            "The request line (the address with its query string) is longer than the server reads.",
            "Send a shorter address.",
        ),
        ProblemType(
            "unsupported_media_type", 415, "Unsupported media type",
            "The body is not sent as JSON.",
            "Send the body as JSON with `Content-Type: application/json`.",
        ),
        ProblemType(
            "expectation_failed", 417, "Expectation failed",
            "The request has an `Expect` header the server cannot meet.",
            "Leave the `Expect` header out, or send only `Expect: 100-continue`.",
        ),
        ProblemType(
            "throttled", 429, "Too many requests",
            "You sent more requests than the rate limit allows in this window.",
            "Wait the seconds in `Retry-After` (also `retry_after`), then go on; the `RateLimit-*` "
            "headers of every answer say how much is left.",
        ),
        ProblemType(
            "request_header_fields_too_large", 431, "Request header fields too large",
            "The request has too many header fields, or one that is too large.",
            "Send fewer or shorter headers (large cookies are the usual cause).",
        ),
        ProblemType(
            "server_error", 500, "Server error",
            "Something went wrong on the server's side. It has been logged there.",
            "Try again later. If it keeps happening, tell the site's operator the time and the address.",
        ),
        ProblemType(
            "not_implemented", 501, "Not implemented",
            "The body is sent with a transfer coding the server does not support.",
            "Send the body plainly, with a `Content-Length` header.",
        ),
        ProblemType(
            "validation_error", 400, "Invalid input",
            "A field is missing, unknown or wrong (a body field the endpoint does not take included); "
            "`errors` names each field and what is wrong with it.",
            "Correct each field named in `errors` and send the request again.",
        ),
        # --- accounts and tokens ----------------------------------------------------------
        ProblemType(
            "not_authenticated", 401, "Not authenticated",
            "The endpoint needs to know who you are, and the request carries no token.",
            "Send `Authorization: Bearer <token>`; mint a token at `POST /api/v1/tokens/`.",
        ),
        ProblemType(
            "invalid_token", 401, "Invalid token",
            "The token is unknown or malformed, or its account was erased.",
            "Mint a new token, or recover one by email at `POST /api/v1/tokens/recover/`.",
        ),
        ProblemType(
            "token_revoked", 401, "Token revoked",
            "The token was revoked, by you or by staff.",
            "Mint a new token at `POST /api/v1/tokens/`.",
        ),
        ProblemType(
            "account_disabled", 401, "Account disabled",
            "An operator disabled the account; its tokens no longer work.",
            "Ask the site's operator.",
        ),
        ProblemType(
            "account_suspended", 401, "Account suspended",
            "A moderator suspended the account: it cannot log in, its tokens and game links do not "
            "work and it cannot move by email.",
            "Wait until the suspension is lifted (the email about it says why); the same tokens work "
            "again then.",
        ),
        ProblemType(
            "insufficient_scope", 403, "Insufficient scope",
            "The token lacks the scope this needs; `required_scope` names it.",
            "Mint a token with that scope (`play` includes `read`).",
        ),
        ProblemType(
            "invalid_credentials", 401, "Invalid credentials",
            "The username or password is wrong, or the account is not verified yet.",
            "Check both; a new account is verified with the code emailed at sign-up.",
        ),
        ProblemType(
            "login_locked", 429, "Too many wrong passwords",
            "Too many wrong passwords were given for this username from your address; passwords for it are "
            "not checked from there for a while.",
            "Wait the seconds in `Retry-After`, or set a new password by email (the login page's reset link).",
        ),
        ProblemType(
            "verification_failed", 400, "Verification failed",
            "The code is not right (at sign-up, `attempts_left` says how many tries remain); token "
            "recovery answers this for every refusal.",
            "Check the code in the latest email, or ask for a new one.",
        ),
        ProblemType(
            "verification_expired", 400, "Verification code expired",
            "The code from the email has expired: each code works for a limited time only.",
            "Ask for a new code at `POST /api/v1/players/resend/` (for an address added to your account, add it "
            "again at `POST /api/v1/me/emails/`).",
        ),
        ProblemType(
            "email_address_taken", 409, "Email address taken",
            "Another account uses this email address: as its primary address, as a verified added one, or "
            "for a sign-up whose code still works. One address belongs to one account.",
            "Use another address, or remove this one from the other account first.",
        ),
        ProblemType(
            "email_address_unverified", 409, "Email address not verified",
            "Only a verified address can be made your primary address, and this one is not verified yet.",
            "Send the code emailed to it to `POST /api/v1/me/emails/{id}/verify/` first; `POST /api/v1/me/emails/` "
            "with the address sends a new code.",
        ),
        ProblemType(
            "too_many_attempts", 429, "Too many attempts",
            "The code had too many wrong tries and no longer works.",
            "Once `Retry-After` has passed, ask for a new code at `POST /api/v1/players/resend/` (for an address "
            "added to your account, add it again at `POST /api/v1/me/emails/`).",
        ),
        ProblemType(
            "too_many_codes", 429, "Too many codes",
            "This sign-up has been sent as many codes as it may get in a day, or the address (or the "
            "address you ask from) as many emails with codes as it may in an hour.",
            "Use the latest code you got, or wait `Retry-After`.",
        ),
        ProblemType(
            "confirmation_required", 400, "Confirmation required",
            "Erasing an account needs its username typed back.",
            'Send `{"confirm": "<your username>"}`; `errors.confirm` says exactly what to send.',
        ),
        ProblemType(
            "player_not_found", 404, "Player not found",
            "No player with that username may be looked up.",
            "Check the username.",
        ),
        # --- games ---------------------------------------------------------------------------
        ProblemType(
            "game_not_found", 404, "Game not found",
            "There is no game with that id that you may see.",
            "Check the id; `GET /api/v1/games/` lists your games.",
        ),
        ProblemType(
            "not_a_player", 403, "You are not a player in this game",
            "This needs a seat in the game, and you have none.",
            "Only the game's players may do this; spectators may only read a public game.",
        ),
        ProblemType(
            "not_your_turn", 409, "It is not your turn",
            "Another seat is to move; `to_move` says which.",
            "Wait for your turn: poll the game with `If-None-Match`, or let a webhook or email tell you.",
        ),
        ProblemType(
            "stale_version", 409, "The game has changed since you last read it",
            "The `expected_version` you sent is not the game's version; `current_version` says where "
            "it is.",
            "Read the game again, choose your move on what you see, and send it with the new version.",
        ),
        ProblemType(
            "precondition_failed", 412, "If-Match does not match the game's current version",
            "The `If-Match` header names another version of the game; `current_version` says where it is.",
            "Read the game again, choose again, and send the new version.",
        ),
        ProblemType(
            "precondition_required", 428, "Say which version of the game you are playing on",
            "A move must name the version it was chosen on, and this one names none (`If-Match: *` "
            "names none).",
            "Send `expected_version` in the body or `If-Match: \"<version>\"`; `current_version` is "
            "the game's.",
        ),
        ProblemType(
            "invalid_notation", 400, "The move could not be read",
            "The text is not a move in the project's notation.",
            "Write it as in the examples in `detail` (`take WUG`, `buy 1-07`, `reserve deck2`), or pick "
            "one from `GET .../legal-moves/`.",
        ),
        ProblemType(
            "illegal_move", 422, "That move is not allowed",
            "The rules forbid the move; `rule` names the rule (such as `B-TAKE-2`) and `detail` says why.",
            "Choose another move; `GET .../legal-moves/` lists every move you may make.",
        ),
        ProblemType(
            "ambiguous_move", 422, "That move could mean more than one thing",
            "A required choice is missing (the tokens to give back, the noble or location); `choices` "
            "lists the complete moves you may have meant.",
            "Send one of `choices`.",
        ),
        ProblemType(
            "game_not_active", 409, "The game is not in progress",
            "The game has not started or is over; `game_status` says which.",
            "Wait for the game to start, or read its result.",
        ),
        ProblemType(
            "game_not_open", 409, "The game is no longer waiting for players",
            "The game has started or ended, so it cannot be joined or called off.",
            "Nothing to do: the game goes on without this.",
        ),
        ProblemType(
            "seat_unavailable", 409, "There is no seat for you in this game",
            "Every seat of the game is taken or kept for someone invited.",
            "Join another game, or create one.",
        ),
        ProblemType(
            "not_invited", 409, "You have no invitation to this game",
            "There is no open invitation for you to decline.",
            "Nothing to do.",
        ),
        ProblemType(
            "not_the_creator", 403, "Only the game's creator can do this",
            "Only the player who created the game may call it off.",
            "Ask the creator, or leave the game by resigning once it has started.",
        ),
        ProblemType(
            "already_resigned", 409, "You have already resigned from this game",
            "You left this game earlier.",
            "Nothing to do.",
        ),
        ProblemType(
            "invalid_game_setup", 400, "The game cannot be set up that way",
            "The game's settings do not add up (you invited yourself, the open seats do not match, a "
            "time out of range or a bank cap below the bank); `detail` says which.",
            "Change what `detail` names and create the game again.",
        ),
        ProblemType(
            "idempotency_key_reused", 422, "This Idempotency-Key was already used for a different request",
            "The `Idempotency-Key` came with another request before (another method, path or body).",
            "Use a new key for each new request; repeat a key only to retry the very same request.",
        ),
        ProblemType(
            "too_many_invitations", 429, "You have sent as many invitations as you may in a day",
            "The games you created in the last 24 hours invited as many players as one may; "
            "`next_invitation_at` says when you may invite again.",
            "Wait `Retry-After`, or create a game with open seats (those are not limited).",
        ),
        ProblemType(
            "invalid_vacation", 400, "That vacation cannot be taken",
            "A vacation is one whole day or more.",
            "Ask for one day or more.",
        ),
        ProblemType(
            "not_enough_vacation", 422, "You do not have that many vacation days left this year",
            "You asked for more vacation days than you have left; `days_left` says how many.",
            "Ask for `days_left` days or fewer.",
        ),
        ProblemType(
            "pause_not_allowed", None, "This game's rules do not allow that pause",
            "A moderator tried to pause a game whose rules (a league's) allow no pauses.",
            "Extend the deadline instead, or leave the clock running.",
            seen_in=_ADMIN,
        ),
        ProblemType(
            "sandbox_not_allowed", 403, "You cannot make a sandbox of this game",
            "The game is private and still being played, and you have no seat in it: only its players make "
            "sandboxes of it, each from their own seat.",
            "Wait until the game is over, or ask one of its players.",
        ),
        ProblemType(
            "sandbox_bots_not_allowed", 400, "A sandbox of a game that counts has no bots while it is played",
            "The game is rated or a league's and is still being played: a bot in its sandbox would be an engine "
            "to consult in the middle of it.",
            "Make the sandbox without `bots` and play every seat yourself, or ask again once the game is over.",
        ),
        ProblemType(
            "sandbox_not_available", 409, "There is no position to make a sandbox from",
            "The game has not started, or the position asked for is the end of the game.",
            "Wait for the game to start, or ask for an earlier position with `ply`.",
        ),
        ProblemType(
            "seat_link_invalid", 404, "This game link is not valid",
            "The game link is damaged or belongs to another game.",
            "Open the game from the link in your latest game email, or from your games at `/accounts/games/`.",
            seen_in=_PAGE,
        ),
        ProblemType(
            "seat_link_revoked", 403, "This game link has been replaced",
            "The link was replaced by a newer one (its seat's links were rotated, or the seat was handed "
            "to someone else).",
            "Use the link in your latest game email, or log in and open the game from your games.",
            seen_in=_PAGE,
        ),
        ProblemType(
            "seat_not_found", 404, "Seat not found",
            "The game has no such seat.",
            "Check the seat number: seats count from 0, in playing order.",
            seen_in=_PAGE,
        ),
        # --- webhooks --------------------------------------------------------------------------
        ProblemType(
            "webhook_not_found", 404, "Webhook not found",
            "You have no webhook with that id.",
            "`GET /api/v1/webhooks/` lists yours.",
        ),
        ProblemType(
            "too_many_webhooks", 409, "Too many webhooks",
            "You have as many webhooks as a player may; `max_webhooks` says how many.",
            "Delete one you no longer use, or point one at more events.",
        ),
        ProblemType(
            "webhook_url_refused", 400, "This webhook URL is not allowed",
            "The URL cannot be read, is not http(s), or its host is not on a public address; "
            "`errors.url` says which.",
            "Give an http(s) URL on a host that the internet can reach.",
        ),
        # --- leagues -----------------------------------------------------------------------------
        ProblemType(
            "league_not_found", 404, "League not found",
            "There is no league with that id that you may see.",
            "Check the id; `GET /api/v1/leagues/` lists the leagues.",
        ),
        ProblemType(
            "season_not_found", 404, "Season not found",
            "The league has no season with that number.",
            "Check the number; `GET /api/v1/leagues/{id}/` lists the league's seasons.",
        ),
        ProblemType(
            "already_a_member", 409, "You are already a member of this league, or have asked to be",
            "You are a member, or have asked to join or to leave; `membership_status` says which.",
            "Nothing to do, or wait for the league's admins to decide.",
        ),
        ProblemType(
            "league_suspended", 403, "A league admin suspended you from this league",
            "An admin of the league suspended you from it: you cannot join it again or be paired in it. The games "
            "you already play in it go on; your account and other leagues are not affected.",
            "Write to the league's admins; they can lift the suspension.",
        ),
        ProblemType(
            "not_a_league_member", 409, "You are not a member of this league",
            "You tried to leave a league you are not in.",
            "Nothing to do.",
        ),
        ProblemType(
            "reliability_too_low", 422, "Too many of your turns ran out of time for this league",
            "The league takes only players who move in time; `reliability` (yours) and "
            "`min_reliability` (the league's) are percentages.",
            "Play your turns in time in other games, then ask again.",
        ),
        ProblemType(
            "season_not_startable", None, "This season cannot be started",
            "The season has already started, or its league has too few members for one game.",
            "Wait for members to join, or leave a started season as it is.",
            seen_in=_ADMIN,
        ),
        ProblemType(
            "no_request_to_decide", None, "This membership has no request waiting for a decision",
            "The membership has no request to join or to leave waiting.",
            "Nothing to do: it was decided already.",
            seen_in=_ADMIN,
        ),
        ProblemType(
            "pairing_not_found", None, "No such pairing",
            "There is no pairing with that id.",
            "Reload the list of league games and choose again.",
            seen_in=_ADMIN,
        ),
        ProblemType(
            "pairing_not_editable", None, "This pairing's game is over, so its pairing can no longer be changed",
            "The pairing's game is finished or aborted; `game_status` says which.",
            "Nothing to do: a finished game's result stands.",
            seen_in=_ADMIN,
        ),
        ProblemType(
            "not_a_season_player", None, "This player does not play in this season",
            "The player chosen for the pairing is not (or no longer) in the season, or already sits at "
            "that table.",
            "Choose one of the season's players who is not in this game.",
            seen_in=_ADMIN,
        ),
        # --- play by email -------------------------------------------------------------------------
        ProblemType(
            "email_command_refused", None, "The emailed command cannot be carried out",
            "The email door itself refused the reply: a command it cannot read, or a reply that names "
            "no seat.",
            "Reply to your latest game email with one command (`help` lists them).",
            seen_in=_EMAIL,
        ),
    )
}
