"""The game row with its creator, then its seats with their users and players,
as ``game_lock(with_seats=True)`` (locked) and ``selectors.game_get`` read them
on PostgreSQL, by two statements written once per connection: the ORM builds
the same two queries anew on every move and every read of a game, and that is
most of a move's time in Python.

The rows become model instances as the ORM would make them: each column goes
through the converters the ORM applies (the backend's and the field's), then
``Model.from_db``; the relations are cached as ``select_related`` and
``prefetch_related`` leave them, so nothing reads them again.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from django.contrib.auth import get_user_model
from django.db import DEFAULT_DB_ALIAS, connection, connections
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.models import Field, Model

from accounts.models import Player
from games.models import Game, Seat
from games.raw_rows import column, column_of, seats_cached

Converter = Callable[[Any, Any, BaseDatabaseWrapper], Any]


@dataclass(frozen=True)
class _Columns:
    """One model's columns in a statement: what to select and how to read them back."""

    model: type[Model]
    alias: str
    attnames: list[str]
    converters: list[tuple[int, Any, list[Converter]]]  # (position, column expression, converters) where there are any

    @classmethod
    def of(cls, model: type[Model], alias: str, db: BaseDatabaseWrapper) -> _Columns:
        fields: Sequence[Field[Any, Any]] = model._meta.concrete_fields
        converters = []
        for position, field in enumerate(fields):
            expression = field.get_col(alias)
            found = db.ops.get_db_converters(expression) + field.get_db_converters(db)
            if found:
                converters.append((position, expression, found))
        return cls(model=model, alias=alias, attnames=[f.attname for f in fields], converters=converters)

    def select(self, quote: Callable[[str], str]) -> str:
        return ", ".join(
            f"{quote(self.alias)}.{quote(column(field))}" for field in self.model._meta.concrete_fields
        )

    def read(self, row: Sequence[Any], start: int, db: BaseDatabaseWrapper) -> Model | None:
        """The instance in ``row`` from ``start`` (None when an outer join found none)."""
        values = list(row[start : start + len(self.attnames)])
        if values[0] is None:  # the primary key, first of the concrete fields
            return None
        for position, expression, converters in self.converters:
            for convert in converters:
                values[position] = convert(values[position], expression, db)
        return self.model.from_db(db.alias, self.attnames, values)


@dataclass(frozen=True)
class _Plan:
    game: _Columns
    creator: _Columns
    seat: _Columns
    user: _Columns
    player: _Columns
    read: str
    seats: str


_plans: weakref.WeakKeyDictionary[BaseDatabaseWrapper, _Plan] = weakref.WeakKeyDictionary()


def _plan(db: BaseDatabaseWrapper) -> _Plan:
    plan = _plans.get(db)
    if plan is not None:
        return plan
    q = db.ops.quote_name
    user_model = get_user_model()
    game_table, seat_table = Game._meta.db_table, Seat._meta.db_table
    user_table, player_table = user_model._meta.db_table, Player._meta.db_table
    game = _Columns.of(Game, game_table, db)
    creator = _Columns.of(user_model, "creator", db)
    seat = _Columns.of(Seat, seat_table, db)
    user = _Columns.of(user_model, user_table, db)
    player = _Columns.of(Player, player_table, db)

    def col(model: type[Model], name: str) -> str:
        return q(column_of(model, name))

    user_pk = col(user_model, "pk")
    read = (
        f"SELECT {game.select(q)}, {creator.select(q)} FROM {q(game_table)} "
        f"INNER JOIN {q(user_table)} {q('creator')} ON ({q(game_table)}.{col(Game, 'created_by')} = {q('creator')}.{user_pk}) "
        f"WHERE {q(game_table)}.{col(Game, 'pk')} = %s"
    )
    ordering = ", ".join(f"{q(seat_table)}.{col(Seat, name)} ASC" for name in ("index", "join_position", "id"))
    seats = (
        f"SELECT {seat.select(q)}, {user.select(q)}, {player.select(q)} FROM {q(seat_table)} "
        f"INNER JOIN {q(user_table)} ON ({q(seat_table)}.{col(Seat, 'user')} = {q(user_table)}.{user_pk}) "
        f"LEFT OUTER JOIN {q(player_table)} ON ({q(user_table)}.{user_pk} = {q(player_table)}.{col(Player, 'user')}) "
        f"WHERE {q(seat_table)}.{col(Seat, 'game')} = %s ORDER BY {ordering}"
    )
    plan = _Plan(game=game, creator=creator, seat=seat, user=user, player=player, read=read, seats=seats)
    _plans[db] = plan
    return plan


def supported() -> bool:
    """Where games are read by these statements: PostgreSQL (the lock is SELECT ... FOR UPDATE OF)."""
    return connection.vendor == "postgresql"


def game_with_seats(game_id: str, *, lock: bool) -> Game | None:
    """The game row with its creator (``lock``: locked until the transaction ends,
    the game's row only); then its seats (in Seat's order) with their users and
    players, read by a statement of their own, so that when the lock had to wait
    they are read as the change that held it left them. None when there is no
    such game. With ``lock``, should be called inside a transaction."""
    db = connections[DEFAULT_DB_ALIAS]  # this thread's connection (``connection`` is a proxy to it)
    plan = _plan(db)
    game_table = db.ops.quote_name(Game._meta.db_table)
    with db.cursor() as cursor:
        cursor.execute(plan.read + (f" FOR UPDATE OF {game_table}" if lock else ""), [game_id])
        row = cursor.fetchone()
        if row is None:
            return None
        game = plan.game.read(row, 0, db)
        creator = plan.creator.read(row, len(plan.game.attnames), db)
        cursor.execute(plan.seats, [game_id])
        rows = cursor.fetchall()
    assert isinstance(game, Game)
    game.created_by = creator  # type: ignore[assignment]
    player_of_user = Player._meta.get_field("user")
    seats: list[Seat] = []
    user_start = len(plan.seat.attnames)
    player_start = user_start + len(plan.user.attnames)
    for seat_row in rows:
        seat = plan.seat.read(seat_row, 0, db)
        user = plan.user.read(seat_row, user_start, db)
        player = plan.player.read(seat_row, player_start, db)
        assert isinstance(seat, Seat) and user is not None
        # As select_related("user__player") caches them: a player, or None that is not read again.
        player_of_user.remote_field.set_cached_value(user, player)
        if player is not None:
            player_of_user.set_cached_value(player, user)
        seat.user = user  # type: ignore[assignment]
        seat.game = game
        seats.append(seat)
    seats_cached(game, seats)
    return game
