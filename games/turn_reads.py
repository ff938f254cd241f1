"""The reads of every turn, as cheap as they can be: GET legal-moves is half of
each turn, so its game and the caller's seat are read with one SQL statement
written once per process (not a queryset compiled on each request), and its
answer is kept in this process per (game, version, seat).

Who may see the game is decided before anything is read from the kept answers:
a caller who holds a seat in the game, or any caller of a public game, is
decided by that one statement; everyone else gets the full check of
``games.selectors`` (moderators, the extensions' ``visibility_q``), as before.
A kept answer is one seat's own legal moves (they may name a card only that seat
sees, a blind reservation): it is read back only for the seat it was made for,
once the caller is known to act for that seat.

A (game, version) pair names one state: every change to a game bumps its
version under the game's row lock (games.services.change), and these reads see
only committed rows, so an answer kept for a version is true for as long as
that version is.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from functools import lru_cache
from typing import TYPE_CHECKING, Any, TypedDict

import engine
from django.db import connection

from games.models import Game, Seat
from games.raw_rows import column_of

if TYPE_CHECKING:
    from django.contrib.auth.models import AnonymousUser, User


class LegalMoves(TypedDict):
    version: int
    to_move: int | None
    your_seat: int | None
    moves: list[str]


# How many answers this process keeps (each a few kilobytes at most): the games
# being played at once on a busy site, and then some. The oldest read goes first.
LEGAL_MOVES_KEPT = 2048


class _KeptMoves:
    """A bounded map of (game id, version, seat) to that seat's legal move texts,
    least recently read first out; safe to share between a process's threads."""

    def __init__(self, size: int) -> None:
        self._size = size
        self._answers: OrderedDict[tuple[str, int, int], tuple[str, ...]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: tuple[str, int, int]) -> tuple[str, ...] | None:
        with self._lock:
            moves = self._answers.get(key)
            if moves is not None:
                self._answers.move_to_end(key)
            return moves

    def put(self, key: tuple[str, int, int], moves: tuple[str, ...]) -> None:
        with self._lock:
            self._answers[key] = moves
            self._answers.move_to_end(key)
            while len(self._answers) > self._size:
                self._answers.popitem(last=False)

    def __len__(self) -> int:
        return len(self._answers)

    def clear(self) -> None:
        with self._lock:
            self._answers.clear()


_kept = _KeptMoves(LEGAL_MOVES_KEPT)


def legal_moves_kept_clear() -> None:
    """Forget every kept answer (tests that compare a first read with a later one)."""
    _kept.clear()


def legal_moves_keep(key: tuple[str, int, int], moves: tuple[str, ...]) -> None:
    """Keep ``moves`` as the answer of (game id, version, seat), worked out by
    another reader of that committed version (the stream's "your turn"): call it
    only once the version has committed. ``moves`` as ``seat_moves`` gives them."""
    _kept.put(key, moves)


def legal_moves_kept_count() -> int:
    """How many answers this process keeps now (at most LEGAL_MOVES_KEPT)."""
    return len(_kept)


def seat_moves(*, game_id: str, version: int, seat: int, state: Any) -> list[str]:
    """The legal move texts of ``seat``, whose turn it is at ``version`` of the
    game, sorted (engine.legal_moves). Should be called only once the caller is
    known to act for ``seat``. ``state``: the stored state, as a dict or as its
    JSON text (read only when the answer is not kept)."""
    key = (game_id, version, seat)
    moves = _kept.get(key)
    if moves is None:
        stored = json.loads(state) if isinstance(state, (str, bytes)) else state
        moves = tuple(engine.format_move(move) for move in engine.legal_moves(engine.from_dict(stored)))
        _kept.put(key, moves)
    return list(moves)


@lru_cache(maxsize=4)
def _statement(vendor: str) -> str:
    """The game's row and the caller's seat in it, if any (one per user and game:
    seat_unique_user_per_game), for the database ``vendor``."""
    q = connection.ops.quote_name
    game, seat = q(Game._meta.db_table), q(Seat._meta.db_table)

    def g(name: str) -> str:
        return f"{game}.{q(column_of(Game, name))}"

    def s(name: str) -> str:
        return f"{seat}.{q(column_of(Seat, name))}"

    return (
        f"SELECT {g('kind')}, {g('status')}, {g('version')}, {g('to_move')}, {g('public')}, "
        f"{s('id')}, {s('index')}, {s('joined_at')}, {g('state')} "
        f"FROM {game} LEFT OUTER JOIN {seat} ON ({s('game')} = {g('id')} AND {s('user')} = %s) "
        f"WHERE {g('id')} = %s"
    )


def legal_moves_seen_by_statement(*, game_id: str, user: User | AnonymousUser) -> LegalMoves | None:
    """``game_legal_moves``' answer, when one statement can tell that ``user`` may
    see the game: they hold a seat in it (joined or invited), or it is public.
    None when the full check is needed: no such game, a private game the caller
    holds no seat in, or a sandbox (whose owner plays its hot seats: that needs
    its seats). ``game_id`` must be a public id (checked by the caller)."""
    if user.is_authenticated and not user.is_active:
        return None  # the full check's business (it lets such an account see public games only)
    user_id = user.pk if user.is_authenticated else None
    with connection.cursor() as cursor:
        cursor.execute(_statement(connection.vendor), [user_id, game_id])
        row = cursor.fetchone()
    if row is None:
        return None
    kind, status, version, to_move, public, seat_id, index, joined_at, state = row
    if kind == Game.Kind.SANDBOX or (seat_id is None and not public):
        return None
    your_seat = index if joined_at is not None else None
    moves: list[str] = []
    if status == Game.Status.ACTIVE and your_seat is not None and your_seat == to_move:
        moves = seat_moves(game_id=game_id, version=version, seat=your_seat, state=state)
    return {"version": version, "to_move": to_move, "your_seat": your_seat, "moves": moves}
