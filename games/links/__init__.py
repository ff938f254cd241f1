"""Signed per-seat links: the address in every email that opens a game as one seat.

A token is signed with ``django.core.signing`` (its own salt) over the game id,
the seat's row id and a short digest of ``Seat.link_key``. It never expires;
rotating the key (``seat_link_rotate``) revokes every link sent so far for that
seat. A token names one seat of one game: it opens no other.

Every app imports them from here (``games.links``); ``views`` holds the API's
``POST /api/v1/games/{id}/link/rotate/``.
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING
from urllib.parse import urlencode

from django.conf import settings
from django.core import signing
from django.db import transaction
from django.urls import reverse
from django.utils.translation import gettext, gettext_noop

from core.db import retry_when_database_locked
from core.errors import DomainError, ErrorKind
from games.errors import GameNotFound, NotAPlayer
from games.models import Game, Seat, is_public_id, new_seat_key

if TYPE_CHECKING:
    from django.contrib.auth.models import User

_SALT = "games.links.seat"
_DIGEST_LENGTH = 12
# Longer than any token this module makes: anything longer is refused unread.
MAX_TOKEN_LENGTH = 200


class SeatLinkInvalid(DomainError):
    """The token was not made here, was altered, or belongs to another game."""

    kind = ErrorKind.NOT_FOUND
    code = "seat_link_invalid"
    title = gettext_noop("This game link is not valid")


class SeatLinkRevoked(DomainError):
    """The token was made here but its seat's key has changed or the seat is gone."""

    kind = ErrorKind.FORBIDDEN
    code = "seat_link_revoked"
    title = gettext_noop("This game link has been replaced")


class SeatNotFound(DomainError):
    kind = ErrorKind.NOT_FOUND
    code = "seat_not_found"
    title = gettext_noop("Seat not found")


def _key_digest(link_key: str) -> str:
    return hashlib.sha256(link_key.encode()).hexdigest()[:_DIGEST_LENGTH]


def _signer() -> signing.Signer:
    return signing.Signer(salt=_SALT, algorithm="sha256")


def seat_link_token(*, seat: Seat) -> str:
    """The signed token that opens ``seat``'s game as that seat."""
    return _signer().sign(f"{seat.game_id}.{seat.pk}.{_key_digest(seat.link_key)}")


def seat_link_url(*, seat: Seat) -> str:
    """The absolute address of the game page as ``seat``: ``{SITE_URL}/games/{id}/?seat=<token>``."""
    path = reverse("game-page", kwargs={"game_id": seat.game_id})
    return f"{settings.SITE_URL}{path}?{urlencode({'seat': seat_link_token(seat=seat)})}"


def seat_for_link(*, game_id: str, token: str) -> Seat:
    """The seat a link's token opens in game ``game_id``.

    Raises ``SeatLinkInvalid`` for a token not made here, altered, or made for
    another game, and ``SeatLinkRevoked`` once the seat's key has been rotated
    or the seat is gone (an invitation declined).
    """
    if not is_public_id(game_id):
        raise GameNotFound.for_id(game_id)
    if not token or len(token) > MAX_TOKEN_LENGTH:
        raise SeatLinkInvalid(
            gettext("This link is incomplete or damaged. Open the game from the latest email instead.")
        )
    try:
        value = _signer().unsign(token)
    except signing.BadSignature:
        raise SeatLinkInvalid(
            gettext("This link is damaged or was not made by this site. Open the game from the latest email instead.")
        ) from None
    token_game, _, rest = value.partition(".")
    seat_id, _, digest = rest.partition(".")
    if token_game != game_id or not seat_id.isdigit():
        raise SeatLinkInvalid(gettext("This link belongs to another game. Open the game from the email about it."))
    seat = Seat.objects.select_related("game", "user__player").filter(pk=int(seat_id), game_id=game_id).first()
    if seat is None:
        raise SeatLinkRevoked(
            gettext("This link no longer opens a seat in this game: the invitation was declined or withdrawn.")
        )
    if digest != _key_digest(seat.link_key):
        raise SeatLinkRevoked(
            gettext("This link has been replaced by a newer one. Open the game from the latest email.")
        )
    player = getattr(seat.user, "player", None)
    if player is not None and player.suspended_at is not None:
        raise SeatLinkRevoked(
            gettext("A moderator suspended this account: its links do not open the game while it is suspended.")
        )
    return seat


def seat_by_number(*, game_id: str, number: int) -> Seat:
    """Seat ``number`` of a game: its play order (``your_seat``) once started;
    before that, the order of the seats (joined first, by joining, then invited)."""
    if not is_public_id(game_id):
        raise GameNotFound.for_id(game_id)
    game = Game.objects.filter(pk=game_id).first()
    if game is None:
        raise GameNotFound.for_id(game_id)
    seats = list(Seat.objects.filter(game=game).select_related("game"))
    if game.status == Game.Status.OPEN:
        seats.sort(key=lambda s: (s.join_position is None, s.join_position or 0, s.pk))
        by_number = dict(enumerate(seats))
    else:
        by_number = {s.index: s for s in seats if s.index is not None}
    seat = by_number.get(number)
    if seat is None:
        numbers = ", ".join(str(n) for n in sorted(by_number)) or gettext("none")
        raise SeatNotFound(
            gettext("Game %(game)s has no seat %(seat)s; its seats are: %(seats)s.")
            % {"game": game_id, "seat": number, "seats": numbers}
        )
    return seat


def _rotate(seat: Seat) -> Seat:
    seat.link_key = new_seat_key()
    seat.save(update_fields=["link_key"])
    return seat


@retry_when_database_locked
def seat_link_rotate(*, game_id: str, user: User) -> Seat:
    """Give ``user``'s seat in the game a new link key: every link sent so far stops working."""
    if not is_public_id(game_id):
        raise GameNotFound.for_id(game_id)
    with transaction.atomic():
        try:
            game = Game.objects.select_for_update().get(pk=game_id)
        except Game.DoesNotExist:
            raise GameNotFound.for_id(game_id) from None
        seat = Seat.objects.filter(game=game, user=user).first()
        if seat is None:
            raise NotAPlayer(gettext("You have no seat in this game, so there is no link of yours to replace."))
        return _rotate(seat)


@retry_when_database_locked
def seat_link_rotate_for_seat(*, seat_id: int) -> Seat:
    """An operator's rotation of any seat's link key (the admin action)."""
    game_id = Seat.objects.filter(pk=seat_id).values_list("game_id", flat=True).first()
    if game_id is None:
        raise SeatNotFound(gettext("There is no seat with id %(id)s.") % {"id": seat_id})
    with transaction.atomic():
        Game.objects.select_for_update().filter(pk=game_id).first()
        seat = Seat.objects.filter(pk=seat_id).first()
        if seat is None:
            raise SeatNotFound(gettext("There is no seat with id %(id)s.") % {"id": seat_id})
        return _rotate(seat)


ALL_ERRORS: tuple[type[DomainError], ...] = (SeatLinkInvalid, SeatLinkRevoked, SeatNotFound)
