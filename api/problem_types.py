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

The words are msgids (``gettext_noop``): ``api.problem_pages`` shows them in the
language the request asks for; ``code`` and ``status`` never change.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings
from django.utils.translation import gettext_noop

# Where a person meets most problems; the others name their place in ``seen_in``.
SEEN_IN_API = gettext_noop("the API")


@dataclass(frozen=True)
class ProblemType:
    code: str
    status: int | None
    title: str
    meaning: str
    remedy: str
    seen_in: str = SEEN_IN_API


def problem_type_url(code: str) -> str:
    """The `type` of a problem with this code: the page that explains it."""
    return f"{settings.SITE_URL}/problems/{code}/"


_PAGE = gettext_noop("the game page (a seat's link) and `manage.py game_link`")
_ADMIN = gettext_noop("the admin, as a message after an action")
_EMAIL = gettext_noop("the reply to an emailed command")

PROBLEM_TYPES: dict[str, ProblemType] = {
    problem.code: problem
    for problem in (
        # --- HTTP itself: made before or around an endpoint -------------------------------
        ProblemType(
            "bad_request", 400, gettext_noop("Bad request"),
            gettext_noop("The request cannot be read as HTTP: a malformed request line or header, or a request "
                         "refused before it reached any endpoint."),
            gettext_noop("Check what your client sends: the request line, the headers and their encoding."),
        ),
        ProblemType(
            "parse_error", 400, gettext_noop("Malformed JSON"),
            gettext_noop("The body is not valid JSON."),
            gettext_noop("Send a body that a JSON parser accepts (double-quoted strings, no trailing commas), "
                         "with `Content-Type: application/json`."),
        ),
        ProblemType(
            "forbidden", 403, gettext_noop("Forbidden"),
            gettext_noop("The request was refused before it reached the API: a PROXY protocol line from an address "
                         "that may not send one, or a TLS handshake sent to a plain HTTP port."),
            gettext_noop("Connect to the site's published address, as a browser would."),
        ),
        ProblemType(
            "permission_denied", 403, gettext_noop("Permission denied"),
            gettext_noop("You are known, but not allowed to do this, for a reason no other code names."),
            gettext_noop("Check that you use the right account or token; trying again will not help."),
        ),
        ProblemType(
            "not_found", 404, gettext_noop("Not found"),
            gettext_noop("There is nothing at this address."),
            gettext_noop("Check the address against the interactive documentation at `/api/docs/`; API "
                         "addresses end with a slash."),
        ),
        ProblemType(
            "method_not_allowed", 405, gettext_noop("Method not allowed"),
            gettext_noop("The address exists but does not take that method (a POST to a list that is only read, say)."),
            gettext_noop("Use one of the methods in the `Allow` header of the answer."),
        ),
        ProblemType(
            "not_acceptable", 406, gettext_noop("Not acceptable"),
            gettext_noop("The `Accept` header allows no JSON, and the API speaks only JSON."),
            gettext_noop("Send `Accept: application/json` (or no `Accept` header). People read `/api/docs/`."),
        ),
        ProblemType(
            "length_required", 411, gettext_noop("Length required"),
            gettext_noop("The body was sent in chunks, and this server cannot read a chunked body here."),
            gettext_noop("Send the body with a `Content-Length` header."),
        ),
        ProblemType(
            "payload_too_large", 413, gettext_noop("Payload too large"),
            gettext_noop("The body is larger than the server takes; `limit` gives the largest body, in bytes."),
            gettext_noop("Send a smaller body: no request of the API needs a large one."),
        ),
        ProblemType(
            "uri_too_long", 414, gettext_noop("URI too long"),
            gettext_noop("The request line (the address with its query string) is longer than the server reads."),
            gettext_noop("Send a shorter address."),
        ),
        ProblemType(
            "unsupported_media_type", 415, gettext_noop("Unsupported media type"),
            gettext_noop("The body is not sent as JSON."),
            gettext_noop("Send the body as JSON with `Content-Type: application/json`."),
        ),
        ProblemType(
            "expectation_failed", 417, gettext_noop("Expectation failed"),
            gettext_noop("The request has an `Expect` header the server cannot meet."),
            gettext_noop("Leave the `Expect` header out, or send only `Expect: 100-continue`."),
        ),
        ProblemType(
            "throttled", 429, gettext_noop("Too many requests"),
            gettext_noop("You sent more requests than the rate limit allows in this window."),
            gettext_noop("Wait the seconds in `Retry-After` (also `retry_after`), then go on; the `RateLimit-*` "
                         "headers of every answer say how much is left."),
        ),
        ProblemType(
            "request_header_fields_too_large", 431, gettext_noop("Request header fields too large"),
            gettext_noop("The request has too many header fields, or one that is too large."),
            gettext_noop("Send fewer or shorter headers (large cookies are the usual cause)."),
        ),
        ProblemType(
            "server_error", 500, gettext_noop("Server error"),
            gettext_noop("Something went wrong on the server's side. It has been logged there."),
            gettext_noop("Try again later. If it keeps happening, tell the site's operator the time and the address."),
        ),
        ProblemType(
            "not_implemented", 501, gettext_noop("Not implemented"),
            gettext_noop("The body is sent with a transfer coding the server does not support."),
            gettext_noop("Send the body plainly, with a `Content-Length` header."),
        ),
        ProblemType(
            "validation_error", 400, gettext_noop("Invalid input"),
            gettext_noop("A field is missing, unknown or wrong (a body field the endpoint does not take included); "
                         "`errors` names each field and what is wrong with it."),
            gettext_noop("Correct each field named in `errors` and send the request again."),
        ),
        # --- accounts and tokens ----------------------------------------------------------
        ProblemType(
            "not_authenticated", 401, gettext_noop("Not authenticated"),
            gettext_noop("The endpoint needs to know who you are, and the request carries no token."),
            gettext_noop("Send `Authorization: Bearer <token>`; mint a token at `POST /api/v1/tokens/`."),
        ),
        ProblemType(
            "invalid_token", 401, gettext_noop("Invalid token"),
            gettext_noop("The token is unknown or malformed, or its account was erased."),
            gettext_noop("Mint a new token, or recover one by email at `POST /api/v1/tokens/recover/`."),
        ),
        ProblemType(
            "token_revoked", 401, gettext_noop("Token revoked"),
            gettext_noop("The token was revoked, by you or by staff."),
            gettext_noop("Mint a new token at `POST /api/v1/tokens/`."),
        ),
        ProblemType(
            "account_disabled", 401, gettext_noop("Account disabled"),
            gettext_noop("An operator disabled the account; its tokens no longer work."),
            gettext_noop("Ask the site's operator."),
        ),
        ProblemType(
            "account_suspended", 401, gettext_noop("Account suspended"),
            gettext_noop("A moderator suspended the account: it cannot log in, its tokens and game links do not "
                         "work and it cannot move by email."),
            gettext_noop("Wait until the suspension is lifted (the email about it says why); the same tokens work "
                         "again then."),
        ),
        ProblemType(
            "insufficient_scope", 403, gettext_noop("Insufficient scope"),
            gettext_noop("The token lacks the scope this needs; `required_scope` names it."),
            gettext_noop("Mint a token with that scope (`play` includes `read`)."),
        ),
        ProblemType(
            "invalid_credentials", 401, gettext_noop("Invalid credentials"),
            gettext_noop("The username or password is wrong, or the account is not verified yet."),
            gettext_noop("Check both; a new account is verified with the code emailed at sign-up."),
        ),
        ProblemType(
            "login_locked", 429, gettext_noop("Too many wrong passwords"),
            gettext_noop("Too many wrong passwords were given for this username from your address; passwords for it are "
                         "not checked from there for a while."),
            gettext_noop("Wait the seconds in `Retry-After`, or set a new password by email (the login page's reset link)."),
        ),
        ProblemType(
            "verification_failed", 400, gettext_noop("Verification failed"),
            gettext_noop("The code is not right (at sign-up, `attempts_left` says how many tries remain); token "
                         "recovery answers this for every refusal."),
            gettext_noop("Check the code in the latest email, or ask for a new one."),
        ),
        ProblemType(
            "verification_expired", 400, gettext_noop("Verification code expired"),
            gettext_noop("The code from the email has expired: each code works for a limited time only."),
            gettext_noop("Ask for a new code at `POST /api/v1/players/resend/` (for an address added to your account, add it "
                         "again at `POST /api/v1/me/emails/`)."),
        ),
        ProblemType(
            "email_address_taken", 409, gettext_noop("Email address taken"),
            gettext_noop("Another account uses this email address: as its primary address, as a verified added one, or "
                         "for a sign-up whose code still works. One address belongs to one account."),
            gettext_noop("Use another address, or remove this one from the other account first."),
        ),
        ProblemType(
            "email_address_unverified", 409, gettext_noop("Email address not verified"),
            gettext_noop("Only a verified address can be made your primary address, and this one is not verified yet."),
            gettext_noop("Send the code emailed to it to `POST /api/v1/me/emails/{id}/verify/` first; `POST /api/v1/me/emails/` "
                         "with the address sends a new code."),
        ),
        ProblemType(
            "too_many_attempts", 429, gettext_noop("Too many attempts"),
            gettext_noop("The code had too many wrong tries and no longer works."),
            gettext_noop("Once `Retry-After` has passed, ask for a new code at `POST /api/v1/players/resend/` (for an address "
                         "added to your account, add it again at `POST /api/v1/me/emails/`)."),
        ),
        ProblemType(
            "too_many_codes", 429, gettext_noop("Too many codes"),
            gettext_noop("This sign-up has been sent as many codes as it may get in a day, or the address (or the "
                         "address you ask from) as many emails with codes as it may in an hour."),
            gettext_noop("Use the latest code you got, or wait `Retry-After`."),
        ),
        ProblemType(
            "confirmation_required", 400, gettext_noop("Confirmation required"),
            gettext_noop("Erasing an account needs its username typed back."),
            gettext_noop('Send `{"confirm": "<your username>"}`; `errors.confirm` says exactly what to send.'),
        ),
        ProblemType(
            "player_not_found", 404, gettext_noop("Player not found"),
            gettext_noop("No player with that username may be looked up."),
            gettext_noop("Check the username."),
        ),
        # --- games ---------------------------------------------------------------------------
        ProblemType(
            "game_not_found", 404, gettext_noop("Game not found"),
            gettext_noop("There is no game with that id that you may see."),
            gettext_noop("Check the id; `GET /api/v1/games/` lists your games."),
        ),
        ProblemType(
            "not_a_player", 403, gettext_noop("You are not a player in this game"),
            gettext_noop("This needs a seat in the game, and you have none."),
            gettext_noop("Only the game's players may do this; spectators may only read a public game."),
        ),
        ProblemType(
            "not_your_turn", 409, gettext_noop("It is not your turn"),
            gettext_noop("Another seat is to move; `to_move` says which."),
            gettext_noop("Wait for your turn: poll the game with `If-None-Match`, or let a webhook or email tell you."),
        ),
        ProblemType(
            "plan_on_your_turn", 409, gettext_noop("It is your turn: play your move"),
            gettext_noop("A plan (conditional moves) is stored only while you wait for the others, and it is your "
                         "turn now."),
            gettext_noop("Play your move; store a plan for later turns once it is played."),
        ),
        ProblemType(
            "stale_version", 409, gettext_noop("The game has changed since you last read it"),
            gettext_noop("The `expected_version` you sent is not the game's version; `current_version` says where "
                         "it is."),
            gettext_noop("Read the game again, choose your move on what you see, and send it with the new version."),
        ),
        ProblemType(
            "precondition_failed", 412, gettext_noop("If-Match does not match the game's current version"),
            gettext_noop("The `If-Match` header names another version of the game; `current_version` says where it is."),
            gettext_noop("Read the game again, choose again, and send the new version."),
        ),
        ProblemType(
            "precondition_required", 428, gettext_noop("Say which version of the game you are playing on"),
            gettext_noop("A move must name the version it was chosen on, and this one names none (`If-Match: *` "
                         "names none)."),
            gettext_noop("Send `expected_version` in the body or `If-Match: \"<version>\"`; `current_version` is "
                         "the game's."),
        ),
        ProblemType(
            "invalid_notation", 400, gettext_noop("The move could not be read"),
            gettext_noop("The text is not a move in the project's notation."),
            gettext_noop("Write it as in the examples in `detail` (`take WUG`, `buy 1-07`, `reserve deck2`), or pick "
                         "one from `GET .../legal-moves/`."),
        ),
        ProblemType(
            "illegal_move", 422, gettext_noop("That move is not allowed"),
            gettext_noop("The rules forbid the move; `rule` names the rule (such as `B-TAKE-2`) and `detail` says why."),
            gettext_noop("Choose another move; `GET .../legal-moves/` lists every move you may make."),
        ),
        ProblemType(
            "ambiguous_move", 422, gettext_noop("That move could mean more than one thing"),
            gettext_noop("A required choice is missing (the tokens to give back, the noble or location); `choices` "
                         "lists the complete moves you may have meant."),
            gettext_noop("Send one of `choices`."),
        ),
        ProblemType(
            "game_not_active", 409, gettext_noop("The game is not in progress"),
            gettext_noop("The game has not started or is over; `game_status` says which."),
            gettext_noop("Wait for the game to start, or read its result."),
        ),
        ProblemType(
            "game_not_open", 409, gettext_noop("The game is no longer waiting for players"),
            gettext_noop("The game has started or ended, so it cannot be joined or called off."),
            gettext_noop("Nothing to do: the game goes on without this."),
        ),
        ProblemType(
            "seat_unavailable", 409, gettext_noop("There is no seat for you in this game"),
            gettext_noop("Every seat of the game is taken or kept for someone invited."),
            gettext_noop("Join another game, or create one."),
        ),
        ProblemType(
            "not_invited", 409, gettext_noop("You have no invitation to this game"),
            gettext_noop("There is no open invitation for you to decline."),
            gettext_noop("Nothing to do."),
        ),
        ProblemType(
            "not_the_creator", 403, gettext_noop("Only the game's creator can do this"),
            gettext_noop("Only the player who created the game may call it off."),
            gettext_noop("Ask the creator, or leave the game by resigning once it has started."),
        ),
        ProblemType(
            "already_resigned", 409, gettext_noop("You have already resigned from this game"),
            gettext_noop("You left this game earlier."),
            gettext_noop("Nothing to do."),
        ),
        ProblemType(
            "invalid_game_setup", 400, gettext_noop("The game cannot be set up that way"),
            gettext_noop("The game's settings do not add up (you invited yourself, the open seats do not match, a "
                         "time out of range or a bank cap below the bank); `detail` says which."),
            gettext_noop("Change what `detail` names and create the game again."),
        ),
        ProblemType(
            "idempotency_key_reused", 422, gettext_noop("This Idempotency-Key was already used for a different request"),
            gettext_noop("The `Idempotency-Key` came with another request before (another method, path or body)."),
            gettext_noop("Use a new key for each new request; repeat a key only to retry the very same request."),
        ),
        ProblemType(
            "too_many_invitations", 429, gettext_noop("You have sent as many invitations as you may in a day"),
            gettext_noop("The games you created in the last 24 hours invited as many players as one may; "
                         "`next_invitation_at` says when you may invite again."),
            gettext_noop("Wait `Retry-After`, or create a game with open seats (those are not limited)."),
        ),
        ProblemType(
            "too_many_practice_games", 409, gettext_noop("You have as many practice games in play as you may"),
            gettext_noop("Your practice games and sandboxes still being played are as many as one account may have "
                         "at once (`practice_games_limit`); `practice_games_active` says how many you have."),
            gettext_noop("Finish or resign one of them (`POST /api/v1/games/{id}/resign/`; "
                         "`GET /api/v1/games/?kind=practice&status=active`, and `kind=sandbox`, list them), then "
                         "start the new one."),
        ),
        # --- table talk (chat.errors) ---------------------------------------------------------
        ProblemType(
            "chat_not_allowed", 403, gettext_noop("You cannot write in this chat"),
            gettext_noop("This thread is not yours to write in: players write in the players' thread, people who "
                         "watch a public game in the spectators' thread; practice games have no table talk, and a "
                         "suspended account writes nowhere."),
            gettext_noop("Write in the thread that is yours (`?thread=players` or `?thread=spectators`)."),
        ),
        ProblemType(
            "chat_thread_not_found", 404, gettext_noop("This game has no such chat thread"),
            gettext_noop("Only a public game has a spectators' thread."),
            gettext_noop("Read or write the players' thread (the default) if you play in the game."),
        ),
        ProblemType(
            "chat_message_not_found", 404, gettext_noop("Chat message not found"),
            gettext_noop("No line of this game's table talk has that id."),
            gettext_noop("Take the id from the game's chat (`GET /api/v1/games/{id}/chat/`)."),
        ),
        ProblemType(
            "too_many_chat_messages", 429,
            gettext_noop("You have written as many chat messages as you may in a minute"),
            gettext_noop("One person may write `CHAT_MESSAGES_PER_MINUTE` lines a minute (10 by default), all games "
                         "together; `limit` says how many."),
            gettext_noop("Wait `Retry-After` seconds, then send the line again."),
        ),
        ProblemType(
            "chat_export_not_ready", 409, gettext_noop("The game is not over"),
            gettext_noop("A game's table talk is exported once the game is over: while it is played it is the "
                         "players' own."),
            gettext_noop("Ask again once the game has finished."),
        ),
        # --- reviews of finished games (reviews.errors) ----------------------------------------
        ProblemType(
            "review_not_found", 404, gettext_noop("This game has no review yet"),
            gettext_noop("Nobody has asked for this game's review by the search bot yet."),
            gettext_noop("Start it with `POST /api/v1/games/{id}/review/`, then read it at the same address."),
        ),
        ProblemType(
            "game_not_over", 409, gettext_noop("The game is not over"),
            gettext_noop("A game is reviewed once it is over: while it is played its moves are nobody's to judge."),
            gettext_noop("Ask again once the game has finished."),
        ),
        ProblemType(
            "too_many_reviews", 429, gettext_noop("You have started as many reviews as you may in a day"),
            gettext_noop("One account may start `REVIEWS_PER_DAY` reviews in 24 hours (20 by default); "
                         "`next_review_at` says when it may start the next. Reading a review, or asking for one that "
                         "exists or is under way, costs nothing."),
            gettext_noop("Wait `Retry-After` seconds, then ask again."),
        ),
        ProblemType(
            "invalid_vacation", 400, gettext_noop("That vacation cannot be taken"),
            gettext_noop("A vacation is one whole day or more."),
            gettext_noop("Ask for one day or more."),
        ),
        ProblemType(
            "not_enough_vacation", 422, gettext_noop("You do not have that many vacation days left this year"),
            gettext_noop("You asked for more vacation days than you have left; `days_left` says how many."),
            gettext_noop("Ask for `days_left` days or fewer."),
        ),
        ProblemType(
            "pause_not_allowed", None, gettext_noop("This game's rules do not allow that pause"),
            gettext_noop("A moderator tried to pause a game whose rules (a league's) allow no pauses."),
            gettext_noop("Extend the deadline instead, or leave the clock running."),
            seen_in=_ADMIN,
        ),
        ProblemType(
            "sandbox_not_allowed", 403, gettext_noop("You cannot make a sandbox of this game"),
            gettext_noop("The game is private and still being played, and you have no seat in it: only its players make "
                         "sandboxes of it, each from their own seat."),
            gettext_noop("Wait until the game is over, or ask one of its players."),
        ),
        ProblemType(
            "sandbox_bots_not_allowed", 400, gettext_noop("A sandbox of a game that counts has no bots while it is played"),
            gettext_noop("The game is rated or a league's and is still being played: a bot in its sandbox would be an engine "
                         "to consult in the middle of it."),
            gettext_noop("Make the sandbox without `bots` and play every seat yourself, or ask again once the game is over."),
        ),
        ProblemType(
            "sandbox_not_available", 409, gettext_noop("There is no position to make a sandbox from"),
            gettext_noop("The game has not started, or the position asked for is the end of the game."),
            gettext_noop("Wait for the game to start, or ask for an earlier position with `ply`."),
        ),
        ProblemType(
            "seat_link_invalid", 404, gettext_noop("This game link is not valid"),
            gettext_noop("The game link is damaged or belongs to another game."),
            gettext_noop("Open the game from the link in your latest game email, or from your games at `/accounts/games/`."),
            seen_in=_PAGE,
        ),
        ProblemType(
            "seat_link_revoked", 403, gettext_noop("This game link has been replaced"),
            gettext_noop("The link was replaced by a newer one (its seat's links were rotated, or the seat was handed "
                         "to someone else)."),
            gettext_noop("Use the link in your latest game email, or log in and open the game from your games."),
            seen_in=_PAGE,
        ),
        ProblemType(
            "seat_not_found", 404, gettext_noop("Seat not found"),
            gettext_noop("The game has no such seat."),
            gettext_noop("Check the seat number: seats count from 0, in playing order."),
            seen_in=_PAGE,
        ),
        # --- webhooks --------------------------------------------------------------------------
        ProblemType(
            "webhook_not_found", 404, gettext_noop("Webhook not found"),
            gettext_noop("You have no webhook with that id."),
            gettext_noop("`GET /api/v1/webhooks/` lists yours."),
        ),
        ProblemType(
            "too_many_webhooks", 409, gettext_noop("Too many webhooks"),
            gettext_noop("You have as many webhooks as a player may; `max_webhooks` says how many."),
            gettext_noop("Delete one you no longer use, or point one at more events."),
        ),
        ProblemType(
            "webhook_url_refused", 400, gettext_noop("This webhook URL is not allowed"),
            gettext_noop("The URL cannot be read, is not http(s), or its host is not on a public address; "
                         "`errors.url` says which."),
            gettext_noop("Give an http(s) URL on a host that the internet can reach."),
        ),
        # --- push (notifications.push) ---------------------------------------------------------
        ProblemType(
            "push_not_configured", 404, gettext_noop("Push notifications are off"),
            gettext_noop("This server has no VAPID keys, so it sends no push notifications."),
            gettext_noop("Use email notifications, or ask the operator to set VAPID_PRIVATE_KEY and "
                         "VAPID_PUBLIC_KEY."),
        ),
        ProblemType(
            "push_subscription_not_found", 404, gettext_noop("Push subscription not found"),
            gettext_noop("You have no push subscription with this id."),
            gettext_noop("`GET /api/v1/me/push-subscriptions/` lists yours."),
        ),
        ProblemType(
            "too_many_push_subscriptions", 409, gettext_noop("Too many push subscriptions"),
            gettext_noop("You have as many push subscriptions (browsers) as an account may; "
                         "`max_push_subscriptions` says how many."),
            gettext_noop("Delete the subscription of a browser you no longer use, then subscribe again."),
        ),
        # --- leagues -----------------------------------------------------------------------------
        ProblemType(
            "league_not_found", 404, gettext_noop("League not found"),
            gettext_noop("There is no league with that id that you may see."),
            gettext_noop("Check the id; `GET /api/v1/leagues/` lists the leagues."),
        ),
        ProblemType(
            "season_not_found", 404, gettext_noop("Season not found"),
            gettext_noop("The league has no season with that number."),
            gettext_noop("Check the number; `GET /api/v1/leagues/{id}/` lists the league's seasons."),
        ),
        ProblemType(
            "already_a_member", 409, gettext_noop("You are already a member of this league, or have asked to be"),
            gettext_noop("You are a member, or have asked to join or to leave; `membership_status` says which."),
            gettext_noop("Nothing to do, or wait for the league's admins to decide."),
        ),
        ProblemType(
            "league_suspended", 403, gettext_noop("A league admin suspended you from this league"),
            gettext_noop("An admin of the league suspended you from it: you cannot join it again or be paired in it. The games "
                         "you already play in it go on; your account and other leagues are not affected."),
            gettext_noop("Write to the league's admins; they can lift the suspension."),
        ),
        ProblemType(
            "not_a_league_member", 409, gettext_noop("You are not a member of this league"),
            gettext_noop("You tried to leave a league you are not in."),
            gettext_noop("Nothing to do."),
        ),
        ProblemType(
            "reliability_too_low", 422, gettext_noop("Too many of your turns ran out of time for this league"),
            gettext_noop("The league takes only players who move in time; `reliability` (yours) and "
                         "`min_reliability` (the league's) are percentages."),
            gettext_noop("Play your turns in time in other games, then ask again."),
        ),
        ProblemType(
            "season_not_startable", None, gettext_noop("This season cannot be started"),
            gettext_noop("The season has already started, or its league has too few members for one game."),
            gettext_noop("Wait for members to join, or leave a started season as it is."),
            seen_in=_ADMIN,
        ),
        ProblemType(
            "no_request_to_decide", None, gettext_noop("This membership has no request waiting for a decision"),
            gettext_noop("The membership has no request to join or to leave waiting."),
            gettext_noop("Nothing to do: it was decided already."),
            seen_in=_ADMIN,
        ),
        ProblemType(
            "pairing_not_found", None, gettext_noop("No such pairing"),
            gettext_noop("There is no pairing with that id."),
            gettext_noop("Reload the list of league games and choose again."),
            seen_in=_ADMIN,
        ),
        ProblemType(
            "pairing_not_editable", None, gettext_noop("This pairing's game is over, so its pairing can no longer be changed"),
            gettext_noop("The pairing's game is finished or aborted; `game_status` says which."),
            gettext_noop("Nothing to do: a finished game's result stands."),
            seen_in=_ADMIN,
        ),
        ProblemType(
            "not_a_season_player", None, gettext_noop("This player does not play in this season"),
            gettext_noop("The player chosen for the pairing is not (or no longer) in the season, or already sits at "
                         "that table."),
            gettext_noop("Choose one of the season's players who is not in this game."),
            seen_in=_ADMIN,
        ),
        # --- play by email -------------------------------------------------------------------------
        ProblemType(
            "email_command_refused", None, gettext_noop("The emailed command cannot be carried out"),
            gettext_noop("The email door itself refused the reply: a command it cannot read, or a reply that names "
                         "no seat."),
            gettext_noop("Reply to your latest game email with one command (`help` lists them)."),
            seen_in=_EMAIL,
        ),
    )
}
