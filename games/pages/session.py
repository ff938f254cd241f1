"""Who is looking at a game page: a seat opened by its signed link, a logged-in
player with a seat, or (in a public game) a spectator.

Opening a seat's link stores ``{game_id: {"seat": <seat id>, "key": <digest of
the seat's link key>}}`` in the Django session, so the address without the
token works for the rest of the visit. The digest is checked against the seat
on every request: rotating the seat's link key ends these sessions as well as
the links. A seat whose player a moderator suspended is refused (AccountSuspended)
while the suspension lasts, whether the browser holds its link's session or is
logged in to the account (the login itself ends: accounts.backends).
"""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass

from django.conf import settings
from django.db.models import Prefetch
from django.http import HttpRequest
from django.utils import translation
from django.utils.translation import gettext, gettext_noop

from accounts.language import language_supported

from games import game_rows, selectors
from games.practice import selectors as practice_selectors
from games.errors import AccountSuspended, GameNotFound
from games.links import SeatLinkRevoked
from games.models import Game, Seat, is_public_id

SESSION_KEY = "game_page_seats"


class LoginNeeded(Exception):
    """Nothing says which seat this browser plays, and nobody is logged in (a
    page's refusal, not an API error: it has no code). Answered with the login
    page, which comes back to the game."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


@dataclass(frozen=True)
class Viewer:
    """The game, and the seat the page is drawn for (None: a spectator).

    ``via`` is ``"link"`` (a seat session from a signed link), ``"account"``
    (the logged-in user's own seat) or ``"public"`` (a spectator). ``hot_seat``
    is the seat a sandbox's owner plays now, when it is a hot seat's turn
    (games.practice.selectors.viewing_seat): the page is drawn from it and its
    moves are offered, while ``seat`` stays the owner's."""

    game: Game
    seat: Seat | None
    via: str
    hot_seat: int | None = None

    @property
    def seat_index(self) -> int | None:
        if self.hot_seat is not None:
            return self.hot_seat
        return self.seat.index if self.seat is not None else None


def _digest(link_key: str) -> str:
    return hashlib.sha256(f"game-page:{link_key}".encode()).hexdigest()


def _entries(request: HttpRequest) -> dict[str, dict[str, object]]:
    stored = request.session.get(SESSION_KEY)
    return dict(stored) if isinstance(stored, dict) else {}


def seat_remember(request: HttpRequest, seat: Seat) -> None:
    """Let this browser play ``seat`` in its game until the seat's link key changes."""
    entries = _entries(request)
    entries[seat.game_id] = {"seat": seat.pk, "key": _digest(seat.link_key)}
    request.session[SESSION_KEY] = entries
    # A new right in this session: a new session id, so a planted one gains nothing.
    request.session.cycle_key()


def seat_forget(request: HttpRequest, game_id: str) -> None:
    entries = _entries(request)
    if entries.pop(game_id, None) is not None:
        request.session[SESSION_KEY] = entries


def _session_seat(request: HttpRequest, game: Game) -> Seat | None:
    entry = _entries(request).get(game.pk)
    if not isinstance(entry, dict):
        return None
    seat_id, key = entry.get("seat"), entry.get("key")
    # The game's seats came with it (page_viewer), with their users and players.
    seat = next((s for s in game.seats.all() if s.pk == seat_id), None) if isinstance(seat_id, int) else None
    if seat is None or not isinstance(key, str) or not hmac.compare_digest(key, _digest(seat.link_key)):
        seat_forget(request, game.pk)
        raise SeatLinkRevoked(
            gettext(
                "The link this page was opened with has been replaced (or the seat is gone). "
                "Open the game from the latest email."
            )
        )
    _refuse_suspended(seat)
    return seat


def _refuse_suspended(seat: Seat) -> None:
    player = getattr(seat.user, "player", None)
    if player is not None and player.is_suspended:
        raise AccountSuspended(
            gettext("A moderator suspended this account: its game pages do not open while it is suspended.")
        )


def _account_seat(request: HttpRequest, game: Game) -> Seat | None:
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return None
    seat = next((s for s in game.seats.all() if s.user_id == user.pk), None)
    if seat is not None:
        _refuse_suspended(seat)
    return seat


def _may_watch(request: HttpRequest, game: Game) -> bool:
    """A public game, or a private one this account may see without a seat
    (a moderator, or an admin of the game's league: games.selectors)."""
    return game.public or selectors.game_is_visible(game_id=game.pk, user=getattr(request, "user", None))


def _hot_seat(game: Game, seat: Seat) -> int | None:
    """The hot seat a sandbox's owner plays now, if any: only through their account
    (a sandbox has no links, and sends no email that would carry one)."""
    viewing = practice_selectors.viewing_seat(game, seat.user, seat.index)
    return viewing if viewing != seat.index else None


def page_viewer(request: HttpRequest, game_id: str, *, allow_public: bool = True) -> Viewer:
    """The viewer of game ``game_id`` for this request.

    Raises SeatLinkRevoked (the session's seat key changed), AccountSuspended (the
    seat's player is suspended), LoginNeeded (nobody is logged in and this browser
    holds no seat of the game: for a private game and an unknown id alike, so that
    the answer tells nothing of which games exist; or a watched game when
    ``allow_public`` is off) and GameNotFound (a logged-in account that may not
    see the game, or an unknown id)."""
    user = getattr(request, "user", None)
    logged_in = user is not None and user.is_authenticated
    game = _game_with_seats(game_id) if is_public_id(game_id) else None
    if game is None:
        if not logged_in:
            raise LoginNeeded(gettext(_PRIVATE))
        raise GameNotFound.for_id(game_id)
    seat = _session_seat(request, game)
    if seat is not None:
        _speak_the_seats_language(request, seat)
        return Viewer(game=game, seat=seat, via="link")
    seat = _account_seat(request, game)
    if seat is not None:
        return Viewer(game=game, seat=seat, via="account", hot_seat=_hot_seat(game, seat))
    watchable = _may_watch(request, game)
    if watchable and allow_public:
        return Viewer(game=game, seat=None, via="public")
    if not logged_in or watchable:
        raise LoginNeeded(gettext(_PRIVATE))
    raise GameNotFound.for_id(game_id)


def _game_with_seats(game_id: str) -> Game | None:
    """The game with its creator and its seats with their users and players: two
    queries, which are all the page reads of them (the board, the clock, the names)."""
    if game_rows.supported():  # the same two queries, written once
        return game_rows.game_with_seats(game_id, lock=False)
    seats = Prefetch("seats", queryset=Seat.objects.select_related("user__player"))
    return Game.objects.select_related("created_by").prefetch_related(seats).filter(pk=game_id).first()


def _speak_the_seats_language(request: HttpRequest, seat: Seat) -> None:
    """A page opened from a seat's link (from the player's own email) is in that
    player's language, unless this browser chose one with the language switch."""
    if request.COOKIES.get(settings.LANGUAGE_COOKIE_NAME):
        return
    language = language_supported(getattr(getattr(seat.user, "player", None), "language", None))
    if language:
        translation.activate(language)
        request.LANGUAGE_CODE = language


_PRIVATE = gettext_noop(
    "Open the game from the link in an email about it, or log in with the account that plays in it."
)
