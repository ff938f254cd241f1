"""The game row with its creator, then its seats with their users and players,
as ``game_lock(with_seats=True)`` (locked) and ``selectors.game_get`` read them
on PostgreSQL, by two statements written once per connection: the ORM builds
the same two queries anew on every move and every read of a game, and that is
most of a move's time in Python.

The rows become model instances as the ORM would make them (core.model_rows);
the relations are cached as ``select_related`` and
``prefetch_related`` leave them, so nothing reads them again.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.db import DEFAULT_DB_ALIAS, connection, connections
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.models import Model

from accounts.models import Player
from core.model_rows import ModelColumns, PerConnection, column_of
from games.models import Game, Seat
from games.raw_rows import seats_cached


@dataclass(frozen=True)
class _Plan:
    game: ModelColumns
    creator: ModelColumns
    seat: ModelColumns
    user: ModelColumns
    player: ModelColumns
    read: str
    seats: str


def _written(db: BaseDatabaseWrapper) -> _Plan:
    q = db.ops.quote_name
    user_model = get_user_model()
    game_table, seat_table = Game._meta.db_table, Seat._meta.db_table
    user_table, player_table = user_model._meta.db_table, Player._meta.db_table
    game = ModelColumns.of(Game, game_table, db)
    creator = ModelColumns.of(user_model, "creator", db)
    seat = ModelColumns.of(Seat, seat_table, db)
    user = ModelColumns.of(user_model, user_table, db)
    player = ModelColumns.of(Player, player_table, db)

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
    return _Plan(game=game, creator=creator, seat=seat, user=user, player=player, read=read, seats=seats)


_plan = PerConnection(_written)


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
