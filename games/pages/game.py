"""The game page: the board as one seat (or a spectator) sees it, and the
controls to play from it. URLs in games.pages.urls; who is looking in
games.pages.session.

- ``GET /games/<id>/?seat=<token>`` (the link in every email) checks the token,
  lets this browser play that seat (a session entry) and redirects to
  ``/games/<id>/``, so the token stays out of the history and of later requests.
- ``GET /games/<id>/`` draws the board for the session's seat, else the
  logged-in user's seat, else (a public game) a spectator; otherwise it asks
  to log in. ``POST`` answers an invitation or plays a move (``move_submit``
  with the version the page was drawn at).
- ``/games/<id>/resign/`` (POST, then POST again to confirm), ``/games/<id>/link/``
  (POST: a new link, shown once), ``/games/<id>/version`` (polled, with ETag)
  and ``/games/<id>/replay/?ply=n``.

GET only reads: mail scanners follow links. Every form is CSRF-protected. Every
answer carries a Content-Security-Policy without inline script, frame denial
and no referrer (the link is a bearer secret).
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from functools import wraps
from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.views import redirect_to_login
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect, JsonResponse
from django.shortcuts import render
from django.core.handlers.asgi import ASGIRequest
from django.urls import reverse
from django.utils.functional import Promise
from django.utils.translation import gettext, gettext_lazy, ngettext
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods, require_POST, require_safe

import engine
from accounts.selectors import player_email_warning
from api.middleware import body_limit
from core.errors import DomainError, ErrorKind
from core.text import listed
from games import errors, links, replays, selectors, services, turn_reads
from games.errors import GameNotFound
from games.extensions import ReplayPosition
from games.models import Game, Move, Seat
from games.page_panels import game_page_panels, game_replay_marks, game_replay_panels
from games.pages.session import LoginNeeded, Viewer, page_viewer, seat_forget, seat_remember
from games.pages.offline import board_keepable, drawn_at_words
from games.pages.table import move_kinds
from games.notes.pages import NotesTyped, notes_form_store, notes_panel, notes_refusal, notes_typed, replay_notes
from games.notes.text import NOTES_BODY_BYTES
from games.plans.pages import plan_panel, plan_text_store
from games.presentation import board_context, bot_the, bot_title, bot_title_plural, seat_words
from games.words import move_in_words

if TYPE_CHECKING:
    from django.contrib.auth.models import User

# Nothing inline but styles (the board is inline-styled to work in email too), nothing from elsewhere.
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
    "connect-src 'self'; form-action 'self'; base-uri 'none'; object-src 'none'; frame-ancestors 'none'"
)

_HEADINGS: dict[ErrorKind, str | Promise] = {
    ErrorKind.NOT_FOUND: gettext_lazy("This link does not open a game"),
    ErrorKind.FORBIDDEN: gettext_lazy("This link no longer works"),
}

_PAUSE_REASONS: dict[str, str | Promise] = {
    "vacation": gettext_lazy("a player is on vacation"),
    "moderator": gettext_lazy("a moderator paused the game"),
    "server": gettext_lazy("the site paused every clock (maintenance or an outage)"),
}


def page_headers(response: HttpResponse) -> HttpResponse:
    """The security headers of every game page answer."""
    response["Content-Security-Policy"] = CONTENT_SECURITY_POLICY
    response["X-Frame-Options"] = "DENY"
    if "Referrer-Policy" not in response:
        response["Referrer-Policy"] = "no-referrer"
    response["X-Robots-Tag"] = "noindex, nofollow"
    response["X-Content-Type-Options"] = "nosniff"
    return response


def with_forms(response: HttpResponse) -> HttpResponse:
    """A page with forms sends its origin on a POST (Django's CSRF check asks for it:
    under ``no-referrer`` a browser sends ``Origin: null``), and no referrer to
    other sites. Its address never holds the link's token (see ``game_page``)."""
    response["Referrer-Policy"] = "same-origin"
    return response


def secured(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """Never cached, and with :func:`page_headers`."""

    @wraps(view)
    def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        return page_headers(view(request, *args, **kwargs))

    return never_cache(wrapper)


def _error_page(
    request: HttpRequest, *, heading: str | Promise, message: str, status: int, login: bool = False
) -> HttpResponse:
    context = {"heading": heading, "message": message, "login_url": _login_url(request) if login else ""}
    return render(request, "games/page_error.html", context, status=status)


def _login_url(request: HttpRequest) -> str:
    return f"{settings.LOGIN_URL}?{urlencode({'next': request.path})}"


def _page_url(game_id: str) -> str:
    return reverse("game-page", kwargs={"game_id": game_id})


def _redirect(game_id: str) -> HttpResponse:
    return HttpResponseRedirect(_page_url(game_id), status=303)


def _refusal(request: HttpRequest, error: Exception) -> HttpResponse:
    """The page for a viewer that cannot be served (unknown game, revoked link, private game).

    Nobody logged in: the login page, which comes back here, whether the game is
    private or unknown (the answer tells nothing of which games exist)."""
    if isinstance(error, LoginNeeded) and not request.user.is_authenticated:
        back = request.path if request.method in ("GET", "HEAD") else _page_url(_game_id_of(request))
        return redirect_to_login(back, settings.LOGIN_URL)
    if isinstance(error, LoginNeeded):
        return _error_page(
            request, heading=gettext("This page needs your game link"), message=error.message, status=403, login=True
        )
    if isinstance(error, GameNotFound):
        return _error_page(request, heading=_HEADINGS[ErrorKind.NOT_FOUND], message=gettext("There is no such game."), status=404)
    assert isinstance(error, DomainError)
    status = 403 if error.kind == ErrorKind.FORBIDDEN else 404
    return _error_page(
        request, heading=_HEADINGS.get(error.kind, _HEADINGS[ErrorKind.NOT_FOUND]), message=error.message, status=status
    )


def _game_id_of(request: HttpRequest) -> str:
    match = request.resolver_match
    return str(match.kwargs.get("game_id", "")) if match is not None else ""


def _viewer(request: HttpRequest, game_id: str, *, allow_public: bool = True) -> Viewer | HttpResponse:
    try:
        return page_viewer(request, game_id, allow_public=allow_public)
    except (LoginNeeded, DomainError) as error:
        return _refusal(request, error)


# --- what the page shows ------------------------------------------------------------------


def _duration(seconds: int) -> str:
    hours, rest = divmod(max(seconds, 0), 3600)
    minutes = rest // 60
    if hours >= 48:
        return ngettext("%(days)s day %(hours)s h", "%(days)s days %(hours)s h", hours // 24) % {
            "days": hours // 24,
            "hours": hours % 24,
        }
    return gettext("%(hours)s h %(minutes)s min") % {"hours": hours, "minutes": f"{minutes:02d}"}


def _clock(game: Game, seat: Seat | None) -> dict[str, Any]:
    summary = selectors.game_summary(game=game, user=seat.user if seat is not None else None)
    return {
        "move_time": _duration(game.move_seconds),
        "bank": _duration(seat.bank_seconds)
        if seat is not None and seat.index is not None and game.bank_start_seconds
        else "",
        "banks": [
            {"seat": s["seat"], "name": s["display_name"] or s["username"], "bank": _duration(s["bank_seconds"])}
            for s in summary["seats"]
            if s["seat"] is not None and game.bank_start_seconds
        ],
        "paused": summary["paused"],
        "pauses": [
            {
                "reason": str(_PAUSE_REASONS.get(p["reason"], p["reason"])),
                "user": p["user"] or "",
                "ends_at": p["ends_at"],
            }
            for p in summary["pauses"]
        ],
    }


def _draw(
    request: HttpRequest,
    viewer: Viewer,
    *,
    message: str = "",
    error: str = "",
    status: int = 200,
    new_link: str = "",
    typed: str = "",
    chosen: str = "",
    error_title: str = "",
    plan_typed: str | None = None,
    notes_typed: NotesTyped | None = None,
) -> HttpResponse:
    game = viewer.game
    seat = viewer.seat
    error_title = error_title or gettext("Not played:")
    board = board_context(game=game, seat_index=viewer.seat_index)
    moves: list[str] = []
    if seat is not None and seat.has_joined and board["your_turn"] and viewer.seat_index is not None:
        # The seat the page plays (a sandbox owner's hot seat included), read with the game.
        moves = turn_reads.seat_moves(game_id=game.pk, version=game.version, seat=viewer.seat_index, state=game.state)
    invitation = None
    if seat is not None and _invitation_open(seat):
        creator = Seat.objects.filter(game=game, user_id=game.created_by_id).select_related("user__player").first()
        name = getattr(getattr(creator.user, "player", None), "display_name", "") if creator else ""
        invitation = {
            "creator": name or gettext("A player"),
            "seat_count": game.seat_count,
            "move_timeout_hours": game.move_timeout_hours,
        }
    playing = seat is not None and seat.has_joined and game.status == Game.Status.ACTIVE and not seat.resigned
    seats = list(game.seats.all()) if game.is_practice else []
    to_move_seat = next((s for s in seats if board["to_move"] is not None and s.index == board["to_move"]), None)
    context = {
        "board": board,
        "viewer": viewer,
        "spectator": seat is None,
        "invitation": invitation,
        "message": message,
        "error": error,
        "error_title": error_title,
        "practice": _practice_heading(viewer, seats) if game.is_practice else None,
        "waiting_for_bot": bot_title(to_move_seat.bot_name) if to_move_seat and to_move_seat.bot_name else "",
        "try_position": try_position_form(
            request,
            viewer,
            ply=None,
            to_move=board["to_move"],
            position_is_end=game.is_over,
            names={p["seat"]: p["name"] for p in board["players"]},
        ),
        "move_kinds": move_kinds(game, moves, board["colors"]),
        "joker_name": next((chip["name"] for chip in board["colors"] if chip["letter"] == "J"), ""),
        "typing_examples": _typing_examples(game.variant, moves),
        "move_count": len(moves),
        "move_words": json.dumps(move_words(len(moves)), ensure_ascii=False) if moves else "",
        "act": bool(moves),
        "confirm_moves": _confirm_moves(seat),
        "typed": typed,
        "chosen": chosen if chosen in moves else "",
        "playing": playing,
        "can_resign": playing,
        # Practice games and sandboxes send no email, so they have no link to revoke, and no clock.
        "can_rotate": seat is not None and not game.is_practice,
        "new_link": new_link,
        "clock": _clock(game, seat) if game.status == Game.Status.ACTIVE and not game.is_practice else None,
        "replay_url": reverse("game-replay", kwargs={"game_id": game.pk})
        if game.state is not None and (seat is not None or game.is_over)
        else "",
        "page_url": _page_url(game.pk),
        "version_url": reverse("game-version", kwargs={"game_id": game.pk}),
        # Under ASGI the page listens to its own stream (streams.page_stream), else it polls.
        "events_url": reverse("game-events", kwargs={"game_id": game.pk})
        if (settings.GAME_PAGE_STREAM or isinstance(request, ASGIRequest)) and not game.is_over
        else "",
        "poll_seconds": settings.GAME_PAGE_POLL_SECONDS,
        "login_url": _login_url(request) if seat is None else "",
        "public": game.public,
        "email_warning": _email_warning(seat),
        # What apps above games show beside the board (table talk): their extensions' page_panel.
        "panels": game_page_panels(request, viewer),
        "plan_panel": plan_panel(viewer, typed=plan_typed),
        "notes_panel": notes_panel(viewer, names={p["seat"]: p["name"] for p in board["players"]}, typed=notes_typed),
        # The hidden "offline" banner's moment (games.pages.offline).
        "drawn_at": drawn_at_words(viewer),
    }
    return board_keepable(with_forms(render(request, "games/game_page.html", context, status=status)), viewer)


def _typing_examples(variant: str, moves: list[str]) -> dict[str, str]:
    """A take, a buy and a reservation as the move box reads them in the page's
    language: legal moves of this turn where there are some of each kind, else a
    card the market shows (never one of a deck)."""
    market = [card for text in moves if text.startswith("reserve ") and " deck" not in text
              for card in text.split()[1:2]]
    defaults = {"take": "take WUG" if variant != "marvel" else "take YUO",
                "buy": f"buy {market[0]}" if market else "pass",
                "reserve": "reserve deck2"}
    found = {kind: next((text for text in moves if text.startswith(kind + " ") and " return " not in text
                         and " J:" not in text), default) for kind, default in defaults.items()}
    return {kind: move_in_words(text, variant) for kind, text in found.items()}


def move_words(move_count: int) -> dict[str, Any]:
    """What games/static/games/game_page.js writes beside the moves it offers, in the
    page's language (the page carries it as JSON in an attribute): whole sentences with
    named placeholders it fills, and for each count of moves up to ``move_count`` its
    sentence, the count's plural form chosen here (Latvian has three)."""
    return {
        "none": gettext("No legal move with %(what)s."),
        "counts": [
            ngettext("%(what)s: %(n)s move.", "%(what)s: %(n)s moves.", n) % {"what": "%(what)s", "n": n}
            for n in range(move_count + 1)
        ],
        "choose_location": gettext("Choose the location on the board or below."),
        "choose_noble": gettext("Choose the noble on the board or below."),
        "give_back": gettext("Each gives tokens back so that you keep ten: choose which."),
        "card": gettext("card %(id)s"),
        "deck": gettext("the level %(level)s deck"),
        "take": gettext("take %(letters)s"),
        "take_more": gettext("take %(letters)s (and more piles)"),
        "not_yours": gettext("%(id)s is not yours to choose now"),
        "every": gettext("every legal move"),
    }


def _practice_heading(viewer: Viewer, seats: list[Seat]) -> dict[str, Any]:
    """What a practice game or a sandbox is, said at the top of its page."""
    game = viewer.game
    bots = [bot_the(s.bot_name) for s in sorted(seats, key=lambda s: s.index or 0) if s.bot_name]
    against = listed(bots)
    hot_seats = [s for s in seats if not s.bot_name and s.user_id != game.created_by_id]
    playing = viewer.seat_index
    if game.kind == Game.Kind.PRACTICE:
        title = gettext("Practice game against %(bots)s") % {"bots": against} if against else gettext("Practice game")
    else:
        title = gettext("Sandbox of game %(game)s: the cards you could not see there were dealt again") % {
            "game": game.sandbox_of_id
        }
    return {
        "title": title,
        "sandbox": game.kind == Game.Kind.SANDBOX,
        "source_url": _page_url(game.sandbox_of_id) if game.sandbox_of_id else "",
        "source_id": game.sandbox_of_id or "",
        "against": against,
        "hot_seats": bool(hot_seats),
        # People count seats from 1; the API's seat numbers start at 0.
        "seat_number": playing + 1 if playing is not None else None,
        "hot_seat": viewer.hot_seat is not None,
    }


def try_position_form(
    request: HttpRequest,
    viewer: Viewer,
    *,
    ply: int | None,
    to_move: int | None,
    position_is_end: bool,
    names: dict[int, str],
) -> dict[str, Any] | None:
    """The "Try this position" form (POST /games/<id>/sandbox/), for whoever may make
    a sandbox of this position (games.services.sandbox_create): a player of an
    active game, from their seat; anyone who may see a game that is over or public,
    from the spectator's view, taking the seat to move (or the one they had). None
    when nobody here may, or the position is the end of the game."""
    game = viewer.game
    seat = viewer.seat
    if game.is_practice or game.state is None or position_is_end or game.status not in (
        Game.Status.ACTIVE, Game.Status.FINISHED, Game.Status.ABORTED
    ):
        return None
    user = request.user
    plays_here = seat is not None and seat.has_joined and (not user.is_authenticated or seat.user_id == user.pk)
    from_seat = plays_here and game.status == Game.Status.ACTIVE
    if not (from_seat or game.is_over or game.public):
        return None
    if not user.is_authenticated:
        return {"login_url": f"{settings.LOGIN_URL}?{urlencode({'next': request.get_full_path()})}"}
    if not plays_here and seat is not None:
        return None  # a browser holding another account's seat: that account's to try
    bots_allowed = services.sandbox_bots_allowed(game=game)
    several = game.seat_count > 2
    # From the spectator's view the owner takes a seat: their own, else the one to move.
    taken = None if from_seat else (seat.index if seat is not None and seat.index is not None else to_move)
    return {
        "login_url": "",
        "action": reverse("game-sandbox-page", kwargs={"game_id": game.pk}),
        "ply": ply,
        "seat": taken,
        "seat_name": names.get(taken, seat_words(taken)) if taken is not None else "",
        "seat_to_move": taken is not None and taken == to_move,
        "from_seat": from_seat,
        "bots_allowed": bots_allowed,
        "bots": [
            (
                name,
                gettext("Against %(bots)s (every other seat)") % {"bots": bot_title_plural(name)}
                if several
                else gettext("Against the %(bot)s") % {"bot": bot_title(name)},
            )
            for name in services.bot_names()
        ],
    }


def _confirm_moves(seat: Seat | None) -> bool:
    """The seat's player asks to confirm a move before it is sent (on unless they
    turned it off in their settings)."""
    player = getattr(seat.user, "player", None) if seat is not None else None
    return bool(getattr(player, "confirm_moves", True))


def _email_warning(seat: Seat | None) -> str | None:
    """The seat's own player is told when mail to their address bounced (no game
    email reaches them until they change it); nobody else sees it."""
    player = getattr(seat.user, "player", None) if seat is not None else None
    return player_email_warning(player=player) if player is not None else None


def _invitation_open(seat: Seat) -> bool:
    return seat.game.status == Game.Status.OPEN and seat.invited and not seat.has_joined


# --- actions ---------------------------------------------------------------------------------


def _answer_invitation(request: HttpRequest, viewer: Viewer, seat: Seat) -> HttpResponse:
    action = request.POST.get("action", "")
    if not _invitation_open(seat):
        return _draw(request, viewer, error=gettext("There is no open invitation on this seat to answer."), status=409)
    try:
        if action == "accept":
            services.seat_join(game=seat.game, user=seat.user)
        else:
            services.seat_decline(game_id=seat.game_id, user=seat.user)
            seat_forget(request, seat.game_id)
            # The seat is gone and with it this link: say so here rather than redirect to a refusal.
            return _error_page(
                request,
                heading=gettext("Invitation declined"),
                message=gettext("You declined the invitation. Nothing more will happen in this game for you."),
                status=200,
            )
    except DomainError as error:
        viewer.game.refresh_from_db()
        return _draw(request, viewer, error=error.message, status=409)
    return _redirect(seat.game_id)


def _move_refusal(error: DomainError) -> str:
    """A refused move in the page's words: the service's message sends API
    clients to GET legal-moves, the page to its own list of moves."""
    if isinstance(error, errors.InvalidNotation) and error.unread:
        return gettext(
            'Could not read the move (%(reason)s). Moves look like "take WUG", "take RR", "reserve 2-13", '
            '"reserve deck3", "buy 1-07" or "pass"; under "Your move" you can choose one of your legal moves.'
        ) % {"reason": error.unread}
    return error.message


def _rule_of(error: DomainError) -> str:
    rule = error.fields.get("rule")
    return gettext(" (rule %(rule)s)") % {"rule": rule} if rule else ""


def _play(request: HttpRequest, viewer: Viewer, seat: Seat) -> HttpResponse:
    typed = request.POST.get("text", "").strip()
    chosen = request.POST.get("move", "").strip()
    text = typed or chosen
    if not text:
        return _draw(request, viewer, error=gettext("Choose a move from the list or type one."), status=400)
    if len(text) > 200:
        return _draw(request, viewer, error=gettext("That move is too long to be a move."), status=400)
    try:
        version = int(request.POST.get("version", ""))
    except ValueError:
        return _draw(request, viewer, error=gettext(
            "The form did not say which version of the game it was drawn at; here is the board again."
        ), status=400)
    try:
        played = services.move_submit(game_id=viewer.game.pk, user=seat.user, text=text, expected_version=version)
    except errors.StaleVersion:
        # Drawn again by a redirect: reloading that page does not post the move again.
        messages.error(
            request, gettext("The game moved on since this page was drawn, so nothing was played. Here is the board now.")
        )
        return _redirect(viewer.game.pk)
    except DomainError as error:
        viewer.game.refresh_from_db()
        return _draw(
            request, viewer, error=f"{_move_refusal(error)}{_rule_of(error)}", status=_status(error), typed=typed,
            chosen=chosen,
        )
    played_words = move_in_words(played.move.text, viewer.game.variant)
    messages.success(request, gettext("You played: %(move)s") % {"move": played_words})
    return _redirect(viewer.game.pk)


def _plan(request: HttpRequest, viewer: Viewer, seat: Seat) -> HttpResponse:
    """Store the plan in the page's box, or clear it (games.plans.pages)."""
    text = "" if request.POST.get("action") == "plan_clear" else request.POST.get("plan", "")
    try:
        version = int(request.POST.get("version", ""))
        said = plan_text_store(game=viewer.game, user=seat.user, text=text, version=version)
    except ValueError:
        return _draw(request, viewer, error=gettext("The form did not say which version of the game it was drawn at; "
                                                     "here is the board again."), status=400)
    except DomainError as error:
        viewer.game.refresh_from_db()
        return _draw(request, viewer, error=error.message, error_title=gettext("Plan not stored:"),
                     status=_status(error), plan_typed=text)
    messages.success(request, said)
    return _redirect(viewer.game.pk)


def _notes(request: HttpRequest, viewer: Viewer) -> HttpResponse:
    """Save the notes of the page's notes panel (games.notes.pages)."""
    typed = notes_typed(request.POST)
    try:
        said = notes_form_store(viewer=viewer, typed=typed)
    except DomainError as error:
        return _draw(request, viewer, error=notes_refusal(error), error_title=gettext("Notes not saved:"),
                     status=_status(error), notes_typed=typed)
    messages.success(request, said)
    return _redirect(viewer.game.pk)


def _status(error: DomainError) -> int:
    return {
        ErrorKind.INVALID: 400,
        ErrorKind.NOT_ALLOWED: 422,
        ErrorKind.CONFLICT: 409,
        ErrorKind.FORBIDDEN: 403,
        ErrorKind.NOT_FOUND: 404,
    }.get(error.kind, 400)


# --- views -----------------------------------------------------------------------------------


@body_limit(NOTES_BODY_BYTES)  # its form writes the notes too (action=notes)
@secured
@require_http_methods(["GET", "HEAD", "POST"])
def game_page(request: HttpRequest, game_id: str) -> HttpResponse:
    """``/games/<id>/``: the board, the moves of the seat to move, the invitation to answer."""
    token = request.GET.get("seat", "")
    if token:
        try:
            linked = links.seat_for_link(game_id=game_id, token=token)
        except DomainError as error:
            return _refusal(request, error)
        seat_remember(request, linked)
        if request.method != "POST":
            if request.GET.get("to") == "replay":
                # The game-over email's link to the replay (…&to=replay#review: the
                # browser keeps the fragment through the redirect).
                return HttpResponseRedirect(reverse("game-replay", kwargs={"game_id": game_id}), status=303)
            return _redirect(game_id)
    found = _viewer(request, game_id)
    if isinstance(found, HttpResponse):
        return found
    viewer = found
    if request.method == "POST":
        seat: Seat | None = viewer.seat
        if seat is None:
            return _draw(request, viewer, error=gettext("Spectators watch; only the players' own pages can play."), status=403)
        action = request.POST.get("action", "")
        if action in ("accept", "decline"):
            return _answer_invitation(request, viewer, seat)
        if action == "move":
            return _play(request, viewer, seat)
        if action in ("plan", "plan_clear"):
            return _plan(request, viewer, seat)
        if action == "notes":
            return _notes(request, viewer)
        if _invitation_open(seat):
            return _draw(request, viewer, error=gettext("Choose Accept or Decline."), status=400)
        return _draw(request, viewer, error=gettext("That form sent no action this page knows."), status=400)
    return _draw(request, viewer)


@secured
@require_POST
def game_resign_page(request: HttpRequest, game_id: str) -> HttpResponse:
    """``POST /games/<id>/resign/``: asks to confirm; with ``confirm=yes``, resigns."""
    found = _viewer(request, game_id, allow_public=False)
    if isinstance(found, HttpResponse):
        return found
    seat = found.seat
    assert seat is not None  # allow_public=False
    if request.POST.get("confirm") != "yes":
        context = {"game_id": game_id, "page_url": _page_url(game_id), "board": board_context(game=found.game, seat_index=seat.index)}
        return with_forms(render(request, "games/resign_confirm.html", context))
    try:
        services.game_resign(game=found.game, user=seat.user)
    except DomainError as error:
        found.game.refresh_from_db()
        return _draw(request, found, error=error.message, status=_status(error))
    messages.success(request, gettext("You resigned from this game."))
    return _redirect(game_id)


@secured
@require_POST
def game_link_rotate_page(request: HttpRequest, game_id: str) -> HttpResponse:
    """``POST /games/<id>/link/``: a new link for this seat; every earlier one (and every
    browser opened with one) stops working. This browser keeps the seat."""
    found = _viewer(request, game_id, allow_public=False)
    if isinstance(found, HttpResponse):
        return found
    assert found.seat is not None
    seat = links.seat_link_rotate_for_seat(seat_id=found.seat.pk)
    seat.game = found.game
    seat_remember(request, seat)
    viewer = Viewer(game=found.game, seat=seat, via=found.via)
    return _draw(
        request,
        viewer,
        message=gettext(
            "Your earlier links no longer work. Here is the new one; it is shown only now, and later emails carry it."
        ),
        new_link=links.seat_link_url(seat=seat),
    )


@never_cache
@require_safe
def game_version(request: HttpRequest, game_id: str) -> HttpResponse:
    """``GET /games/<id>/version``: ``{"version": n}`` with ``ETag: "n"``; 304 when it matches If-None-Match."""
    try:
        found = page_viewer(request, game_id)
    except LoginNeeded:
        return page_headers(JsonResponse({"detail": gettext("Log in, or open the game from its link.")}, status=403))
    except DomainError as error:
        status = 403 if error.kind == ErrorKind.FORBIDDEN else 404
        return page_headers(JsonResponse({"detail": gettext("This game is not yours to watch.")}, status=status))
    etag = f'"{found.game.version}"'
    if etag in [tag.strip() for tag in request.headers.get("If-None-Match", "").split(",")]:
        response = HttpResponse(status=304)
    else:
        response = JsonResponse({"version": found.game.version, "status": found.game.status})
    response["ETag"] = etag
    page_headers(response)
    response["Cache-Control"] = "private, no-cache"
    return response


@never_cache
@require_safe
def game_version_stream(request: HttpRequest, game_id: str) -> HttpResponse:
    """``GET /games/<id>/events/`` where it is not served: the game page's stream
    runs only under ASGI (streams.page_stream), and the page links to it only
    there; under WSGI the page polls ``/games/<id>/version``."""
    response = JsonResponse(
        {"detail": gettext("This server sends no event stream to pages: the page asks for the game's version.")},
        status=404,
    )
    return page_headers(response)


@secured
@require_safe
def game_replay(request: HttpRequest, game_id: str) -> HttpResponse:
    """``/games/<id>/replay/?ply=n``: the board after ``n`` moves, rebuilt from the seed
    and the move log. A finished public game, or any game for one of its seats."""
    found = _viewer(request, game_id)
    if isinstance(found, HttpResponse):
        return found
    return _replay(request, found, request.GET.get("ply"))


def _replay(
    request: HttpRequest, found: Viewer, raw: str | None, *, error: str = "", status: int = 200
) -> HttpResponse:
    game = found.game
    if found.seat is None and not game.is_over:
        return _error_page(
            request,
            heading=gettext("The replay opens when the game ends"),
            message=gettext("Spectators can step through a public game once it is over; until then, watch it live."),
            status=403,
        )
    if game.state is None or replays.game_initial_state(game) is None:
        return _error_page(request, heading=gettext("Nothing to replay"), message=gettext("This game never started."), status=404)
    texts = list(Move.objects.filter(game=game).order_by("ply").values_list("text", "seat"))
    raw = str(len(texts)) if raw is None else raw
    if not (raw.isascii() and raw.isdigit() and len(raw) <= 6) or int(raw) > len(texts):
        return _error_page(
            request,
            heading=gettext("No such move"),
            message=gettext("ply must be a whole number from 0 to %(total)s, the number of moves played.")
            % {"total": len(texts)},
            status=400,
        )
    ply = int(raw)
    state = replays.state_after(game, [text for text, _ in texts[:ply]])
    assert state is not None  # the game started: checked above
    # The board of that moment: board_context reads the game row, so it gets a copy
    # holding the replayed state (never saved) and no clock.
    then = copy.copy(game)
    then.state = engine.to_dict(state)
    then.deadline_at = None
    if ply < len(texts):
        then.status = Game.Status.ACTIVE
        then.to_move = engine.to_move(state)
        then.result = None
    board = board_context(game=then, seat_index=found.seat_index, last_moves=0)
    names = {p["seat"]: p["name"] for p in board["players"]}
    notes = replay_notes(found)  # the seat holder's own, beside their moves
    marks = game_replay_marks(request, found)  # what apps above games write beside moves: a review's mistakes
    # One numbering: move n is the API's ply n - 1, and ?ply=n shows the board after n moves.
    moves = [
        {"number": n + 1, "ply": n, "name": names.get(seat, seat_words(seat)), "text": text,
         "words": move_in_words(text, game.variant), "current": n + 1 == ply, "note": notes.get(n, ""),
         "marks": marks.get(n, [])}
        for n, (text, seat) in enumerate(texts)
    ]

    def try_position(at: int, to_move: int) -> dict[str, Any] | None:
        return try_position_form(request, found, ply=at, to_move=to_move, position_is_end=False, names=names)

    position: ReplayPosition = {"ply": ply, "total": len(texts), "names": names, "try_position": try_position}
    context = {
        "board": board,
        "game_id": game.pk,
        "ply": ply,
        "total": len(texts),
        "moves": moves,
        "current": moves[ply - 1] if ply else None,
        "previous": ply - 1 if ply > 0 else None,
        "next": ply + 1 if ply < len(texts) else None,
        "seed": game.seed if game.is_over else "",
        "commitment": game.seed_commitment,
        "sandbox_of": game.sandbox_of_id if game.kind == Game.Kind.SANDBOX else "",
        "page_url": _page_url(game.pk),
        "error": error,
        "try_position": try_position_form(
            request,
            found,
            ply=ply,
            to_move=engine.to_move(state),
            position_is_end=engine.is_over(state),
            names=names,
        ),
        # What apps above games add below the moves (GameExtension.replay_panel): a review.
        "panels": game_replay_panels(request, found, position),
    }
    return with_forms(render(request, "games/replay.html", context, status=status))


@secured
@require_POST
def game_sandbox_page(request: HttpRequest, game_id: str) -> HttpResponse:
    """``POST /games/<id>/sandbox/`` ("Try this position"): a sandbox of the game's
    position (``ply``: after that many moves, from the replay; else now) through
    ``games.services.sandbox_create``, then its page. ``bot`` names the bot for
    every other seat; none: the owner plays them all (hot seats). A refusal is
    drawn on the page the form came from, with the service's words."""
    if not request.user.is_authenticated:
        return redirect_to_login(_page_url(game_id), settings.LOGIN_URL)
    found = _viewer(request, game_id)
    if isinstance(found, HttpResponse):
        return found
    raw_ply, raw_seat, bot = (request.POST.get(name, "").strip() for name in ("ply", "seat", "bot"))
    # ASCII digits only, and few: '²' is a digit to str.isdigit but not to int().
    ply = int(raw_ply) if raw_ply.isascii() and raw_ply.isdigit() and len(raw_ply) <= 6 else None
    seat = int(raw_seat) if raw_seat.isascii() and raw_seat.isdigit() and len(raw_seat) <= 2 else None

    def refused(message: str, status: int) -> HttpResponse:
        if raw_ply:
            return _replay(request, found, raw_ply if ply is not None else None, error=message, status=status)
        return _draw(request, found, error=message, status=status, error_title=gettext("No sandbox made:"))

    if (raw_ply and ply is None) or (raw_seat and seat is None) or len(bot) > 32:
        return refused(gettext("The form was not one this page draws; here it is again."), 400)
    bots = [bot] * (found.game.seat_count - 1) if bot else []
    user: User = request.user  # logged in: checked above
    try:
        sandbox = services.sandbox_create(game_id=game_id, user=user, bots=bots, seat=seat, ply=ply)
    except DomainError as error:
        return refused(error.message, _status(error))
    return _redirect(sandbox.pk)
