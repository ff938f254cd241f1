"""Reads of private notes (docs/api.md, "Notes"): a seat's notes, for its
holder alone. Where they are written: ``games.notes.services``."""

from __future__ import annotations

from typing import TYPE_CHECKING, TypedDict

from django.utils.translation import gettext

from games import errors
from games.models import Game, Move, Seat
from games.notes.text import PLY_KEY

if TYPE_CHECKING:
    from django.contrib.auth.models import AnonymousUser, User


class NotesText(TypedDict):
    """The notes themselves: the one on the game and those on moves, by ply
    (the move history's numbering) in order."""

    note: str
    moves: dict[str, str]


class WithNotes(TypedDict):
    """A part of a player's own export (games.selectors.PlayerGame): their notes on the game."""

    notes: NotesText


class SeatNotes(NotesText):
    """A seat's notes as their writer reads them, with the game's id, the seat
    and how many moves have been played (the plies a note may name run from 0
    to one less)."""

    game_id: str
    your_seat: int | None
    moves_played: int


def notes_text(seat: Seat | None) -> NotesText:
    """The notes of ``seat`` as stored (none for no seat or one not taken)."""
    if seat is None or not seat.has_joined:
        return {"note": "", "moves": {}}
    stored = seat.move_notes if isinstance(seat.move_notes, dict) else {}
    moves = {
        key: value for key, value in stored.items() if PLY_KEY.fullmatch(key) and isinstance(value, str) and value
    }
    return {"note": seat.note or "", "moves": dict(sorted(moves.items(), key=lambda item: int(item[0])))}


def notes_seat(*, game: Game, user: User | AnonymousUser | None) -> Seat:
    """The caller's own joined seat in the game (its seats prefetched or not),
    else NotAPlayer: notes are shown to their writer and nobody else, moderators
    and staff included."""
    if user is not None and user.is_authenticated:
        for seat in game.seats.all():
            if seat.user_id == user.pk and seat.has_joined:
                return seat
    raise errors.NotAPlayer(
        gettext("Notes are kept by each player of a game for their own seat, and you have no seat in this game.")
    )


def seat_notes(*, game: Game, user: User | AnonymousUser | None) -> SeatNotes:
    """``user``'s notes on the game (NotAPlayer for anyone without a seat)."""
    seat = notes_seat(game=game, user=user)
    return {
        "game_id": game.pk,
        "your_seat": seat.index,
        "moves_played": Move.objects.filter(game=game).count(),
        **notes_text(seat),
    }
