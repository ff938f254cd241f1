"""The one way to change a game: ``game_change`` locks its row, hands over the
writes of the change, and on leaving the block stores them and the row.

Locking contract: every change to a ``Game`` row, its seats, its moves and its
outbox events happens inside ``game_change`` (or, for the building blocks in
``games.services.turns``, inside a block that holds its ``GameWrites``): the
row is locked with SELECT ... FOR UPDATE until the transaction ends, so two
changes to one game never interleave, and the seats loaded with it stay true
until commit (they change only under the same lock).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from django.db import connection, transaction
from django.db.models import Prefetch

from core.log_context import log_context
from games import errors, metrics
from games.models import Game, GameEvent, Move, Seat, is_public_id
from games.raw_rows import seats_cached
from games import game_rows
from games.services import change_sql
from games.services.outbox import game_events_dispatch, game_events_write_beside


# What a move can change in the game row; a move saves only these.
PLAY_FIELDS = (
    "state", "to_move", "deadline_at", "turn_started_at", "clock_remaining",
    "version", "status", "result", "finished_at",
)


class GameBusy(Exception):
    """Another transaction holds the game's row (raised only when asked to skip
    locked rows, as concurrent deadline sweeps do: one acts, the others move on)."""


def game_lock(game_id: str, *, with_seats: bool = False, skip_locked: bool = False) -> Game:
    """The game row, locked until the transaction ends (GameNotFound when there
    is none; GameBusy when ``skip_locked`` and another transaction holds it).

    ``with_seats`` also loads its creator and its seats with their users and
    players (one more query, none more on SQLite), so that nothing later in the
    transaction or in the answer reads them again. Seats change only under this
    same lock, so the list stays true until commit.

    On PostgreSQL the seats are read by a statement of their own, after the lock
    is held: a statement reads the rows as they were when it started, so seats
    joined to the locking statement could be those from before the change that
    held the lock while it waited (READ COMMITTED).
    """
    if not is_public_id(game_id):
        raise errors.GameNotFound.for_id(game_id)
    if with_seats and not skip_locked and not connection.features.has_select_for_update:
        game = _game_with_seats_in_one_query(game_id)
        if game is not None:
            return game
    if with_seats and not skip_locked and game_rows.supported():
        game = game_rows.game_with_seats(game_id, lock=True)
        if game is None:
            raise errors.GameNotFound.for_id(game_id)
        return game
    # A no-op on SQLite, where the IMMEDIATE transaction already holds the write lock.
    # of=("self",): lock the game row, not the creator's user row joined to it.
    games = Game.objects.select_for_update(of=("self",), skip_locked=skip_locked)
    if with_seats:
        games = games.select_related("created_by").prefetch_related(
            Prefetch("seats", queryset=Seat.objects.select_related("user__player"))
        )
    try:
        return games.get(pk=game_id)
    except Game.DoesNotExist:
        if skip_locked and Game.objects.filter(pk=game_id).exists():
            raise GameBusy(game_id) from None
        raise errors.GameNotFound.for_id(game_id) from None


def _game_with_seats_in_one_query(game_id: str) -> Game | None:
    """The game with its creator and its seats (with their users and players),
    read as its seats joined to it: one query, for a database whose transaction
    already holds the write lock (SQLite's IMMEDIATE transactions), so nothing can
    change between the lock and the read. None for a game without seats."""
    seats = list(Seat.objects.select_related("game__created_by", "user__player").filter(game_id=game_id))
    if not seats:
        return None
    game = seats[0].game
    for seat in seats:
        seat.game = game
    seats_cached(game, seats)
    return game


class GameWrites:
    """The rows one service call adds beside the game row: moves and outbox events.

    They are gathered while the call works out what happened and inserted by
    ``store`` with the game row's update (one statement on PostgreSQL, one per
    table elsewhere), or by ``flush`` before the caller saves the row.
    """

    def __init__(self, game: Game) -> None:
        self.game = game
        self.moves: list[Move] = []
        self.events: list[GameEvent] = []
        # Seats whose rows ``seat_save`` keeps for ``store`` (by seat id: the seat
        # and its changed columns), when the change asked for it (``defer_seat_saves``).
        self.seats: dict[int, tuple[Seat, set[str]]] = {}
        self.defer_seat_saves = False

    def seat_save(self, seat: Seat, fields: Sequence[str]) -> None:
        """Save ``fields`` of one of the game's seats: now, or with the rest of the
        change in ``store`` when it defers seat saves. A change defers them only
        when each seat it touches is one Python object (the seats loaded with the
        lock) and nothing in it reads a seat's row back before ``store``
        (``move_submit``): the stored row then ends as the object is."""
        if not self.defer_seat_saves:
            seat.save(update_fields=list(fields))
            return
        assert seat.pk is not None
        kept = self.seats.setdefault(seat.pk, (seat, set()))
        assert kept[0] is seat, "one object per seat in a change that defers seat saves"
        kept[1].update(fields)

    def change(self, kind: str, payload: dict[str, object]) -> None:
        """Record one state change: bump the version and queue its outbox event.
        Payloads name people by user id and seats by index, never by name or
        address, so that erasing an account erases it here too."""
        self.game.version += 1
        self.events.append(GameEvent(game=self.game, kind=kind, payload={**payload, "version": self.game.version}))

    def note(self, kind: str, payload: dict[str, object]) -> None:
        """Queue an outbox event for something beside the game that changes nothing
        in it (a chat message): the version stays as it is, so a move chosen on
        it is still accepted, and the event carries that version."""
        self.events.append(GameEvent(game=self.game, kind=kind, payload={**payload, "version": self.game.version}))

    def flush(self) -> None:
        """Insert the rows, and have the outbox consumers queued once the
        transaction commits (a rolled-back change queues nothing). The caller
        saves the game row (``store`` does both)."""
        for seat, fields in self.seats.values():
            seat.save(update_fields=sorted(fields))
        self.seats = {}
        # In order, so that event ids follow the versions (the outbox is read by id).
        if self.moves:
            Move.objects.bulk_create(self.moves)
        if self.events:
            GameEvent.objects.bulk_create(self.events)
        self._beside_and_after_commit()

    def store(self, *, save: bool, save_fields: Sequence[str] | None = None) -> None:
        """``flush`` and (``save``) save the game row (``save_fields``: only those
        columns), with the seats kept by ``seat_save``. On PostgreSQL the seats, the
        moves, the events and the row are written by one statement
        (games.services.change_sql); elsewhere by the ORM, in that order.
        Then the rows others keep beside the events, which see the row's new values."""
        seats = [(seat, sorted(fields)) for seat, fields in self.seats.values()]
        self.seats = {}
        if change_sql.supported() and not self.game.get_deferred_fields():
            change_sql.change_store(
                game=self.game, seats=seats, moves=self.moves, events=self.events, save=save, save_fields=save_fields
            )
        else:
            for seat, fields in seats:
                seat.save(update_fields=fields)
            if self.moves:
                Move.objects.bulk_create(self.moves)
            if self.events:
                GameEvent.objects.bulk_create(self.events)
            if save:
                self.game.save(update_fields=save_fields)
        self._beside_and_after_commit()

    def _beside_and_after_commit(self) -> None:
        if self.events:
            # Rows others keep beside the events (the stream's), in this transaction.
            game_events_write_beside(game=self.game, events=self.events)
            event_ids = [event.pk for event in self.events if event.pk is not None]
            # robust: the change is stored by then, so nothing that goes wrong in
            # telling the consumers may turn its answer into an error.
            transaction.on_commit(lambda: game_events_dispatch(event_ids=event_ids), robust=True)
            # Counted once stored (a rolled-back change counts nothing).
            events, variant = self.events, self.game.variant
            transaction.on_commit(lambda: metrics.events_count(variant, events), robust=True)
        self.moves, self.events = [], []


def refresh_from(target: Game, source: Game) -> None:
    """Copy the locked, saved row's fields onto the caller's instance."""
    for field in Game._meta.concrete_fields:
        setattr(target, field.attname, getattr(source, field.attname))
    # Seats prefetched before the change are stale now.
    getattr(target, "_prefetched_objects_cache", {}).clear()


@contextmanager
def game_change(
    game_id: str,
    *,
    with_seats: bool = False,
    skip_locked: bool = False,
    save_fields: Sequence[str] | None = None,
) -> Iterator[GameWrites]:
    """Change one game: lock its row (``game_lock``; ``with_seats`` loads its seats
    too), hand the block the change's ``GameWrites``, and on leaving it insert the
    moves and events and save the row, all in one transaction.

    Should be used for every change to a game: the row stays locked (SELECT ...
    FOR UPDATE) until the transaction ends, so two changes to one game never
    interleave, and whatever the block read of the game and its seats is still
    true when it is written. The row is saved only when the block recorded a
    change (``writes.change``): every change bumps the version and writes its
    event, so a block that finds nothing to do (a deadline not yet passed)
    leaves early and writes nothing. ``save_fields``: the only columns the
    change can touch (a move's ``PLAY_FIELDS``). ``skip_locked``: raise GameBusy
    instead of waiting for another change to this game. An exception rolls it all back.
    """
    with transaction.atomic():
        game = game_lock(game_id, with_seats=with_seats, skip_locked=skip_locked)
        # Whatever is logged during the change names the game (core.log_context).
        with log_context(game_id=game.pk):
            writes = GameWrites(game)
            version = game.version
            yield writes
            writes.store(save=game.version != version, save_fields=save_fields)
