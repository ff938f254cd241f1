"""Storing private notes (docs/api.md, "Notes"), and clearing them with an
erased account. Reads: ``games.notes.selectors``.

Storing notes changes nothing anyone else sees: no version, no event (so no
stream, webhook or email hears of it), and the game's row is not locked, since
nothing of the game depends on them. The seat's row is, so that two saves at
once leave one of them whole.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.db import transaction
from django.utils.translation import gettext, ngettext

from core.db import retry_when_database_locked
from core.errors import InvalidInput
from games import errors
from games.models import Game, Move, Seat
from games.notes.selectors import NotesText, notes_text
from games.notes.text import notes_read

if TYPE_CHECKING:
    from django.contrib.auth.models import User


def _unplayed(ply: str, played: int) -> str:
    if played == 0:
        return gettext("No move has been played in this game yet, so no move can have a note.")
    return ngettext(
        "There is no move at ply %(ply)s yet: %(count)s move has been played, at ply 0.",
        "There is no move at ply %(ply)s yet: %(count)s moves have been played, at plies 0 to %(last)s.",
        played,
    ) % {"ply": ply, "count": played, "last": played - 1}


@retry_when_database_locked
def notes_store(*, game_id: str, user: User, note: object, moves: object) -> NotesText:
    """Replace ``user``'s notes on the game with ``note`` and ``moves``
    (``{"<ply>": "text"}``, as sent) and return them as stored. During the game
    and after it, resigned or not: any seat the user took.

    Refusals: GameNotFound, NotAPlayer, InvalidInput by field (``note``,
    ``moves``, ``moves.<ply>``: a text too long or with control characters, too
    many notes, a ply that is not one or names a move not played yet). An empty
    note and no move notes clear them.
    """
    text, move_notes, problems = notes_read(note, moves)
    if problems:
        raise InvalidInput(problems)
    with transaction.atomic():
        if not Game.objects.filter(pk=game_id).exists():
            raise errors.GameNotFound.for_id(game_id)
        seat = Seat.objects.select_for_update().filter(game_id=game_id, user=user, joined_at__isnull=False).first()
        if seat is None:
            raise errors.NotAPlayer(
                gettext("Notes are kept by each player of a game for their own seat, and you have no seat in this game.")
            )
        played = Move.objects.filter(game_id=game_id).count()
        unplayed = {f"moves.{ply}": [_unplayed(ply, played)] for ply in move_notes if int(ply) >= played}
        if unplayed:
            raise InvalidInput(unplayed)
        seat.note, seat.move_notes = text, move_notes
        seat.save(update_fields=["note", "move_notes"])
    return notes_text(seat)


def notes_forget_account(*, user_id: int) -> int:
    """An account is being erased (``accounts.signals.account_erased``, inside the
    erasing transaction): its notes on every game are cleared. Returns how many
    seats had some."""
    written = Seat.objects.filter(user_id=user_id).exclude(note="", move_notes={})
    return written.update(note="", move_notes={})
