"""A change's rows written in one statement on PostgreSQL: its moves, its outbox
events, its seats' and the game row's new values, as data-modifying WITH clauses of one
statement (``GameWrites.store``). The values are prepared by the models' own
fields, as the ORM would prepare them, so what is stored is what
``bulk_create`` and ``save(update_fields=...)`` would store; the statement is
only cheaper to build. Other databases write the same rows with the ORM.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.db import connection
from django.db.models import Field, Model

from games.models import Game, GameEvent, Move, Seat
from games.raw_rows import column, column_of


def supported() -> bool:
    """Whether this database takes data-modifying WITH clauses (PostgreSQL)."""
    return connection.vendor == "postgresql"


def _inserted_fields(model: type[Model]) -> list[Field[Any, Any]]:
    # What bulk_create inserts: every concrete column but the generated id.
    return [field for field in model._meta.concrete_fields if not field.primary_key]


def _insert(model: type[Model], rows: Sequence[Model], params: list[Any]) -> str:
    """``INSERT ... VALUES ... RETURNING id`` for ``rows``, their values added to ``params``."""
    q = connection.ops.quote_name
    fields = _inserted_fields(model)
    values = []
    for row in rows:
        # pre_save: what the ORM would store (created_at's auto_now_add is set here, on the row too).
        params += [field.get_db_prep_save(field.pre_save(row, True), connection) for field in fields]
        values.append("(" + ", ".join(["%s"] * len(fields)) + ")")
    columns = ", ".join(q(column(field)) for field in fields)
    return f"INSERT INTO {q(model._meta.db_table)} ({columns}) VALUES {', '.join(values)} RETURNING {q(column_of(model, 'pk'))}"


def _update(row: Model, save_fields: Sequence[str] | None, params: list[Any]) -> str:
    """``UPDATE`` of one row: ``save_fields``, or every column (``save()``)."""
    q = connection.ops.quote_name
    model = type(row)
    fields = (
        [model._meta.get_field(name) for name in save_fields]
        if save_fields is not None
        else [field for field in model._meta.concrete_fields if not field.primary_key]
    )
    sets = []
    for field in fields:
        assert isinstance(field, Field)
        params.append(field.get_db_prep_save(field.pre_save(row, False), connection))
        sets.append(f"{q(column(field))} = %s")
    params.append(row.pk)
    return f"UPDATE {q(model._meta.db_table)} SET {', '.join(sets)} WHERE {q(column_of(model, 'pk'))} = %s RETURNING 1"


def change_store(
    *,
    game: Game,
    seats: Sequence[tuple[Seat, Sequence[str]]],
    moves: Sequence[Move],
    events: Sequence[GameEvent],
    save: bool,
    save_fields: Sequence[str] | None,
) -> None:
    """Update ``seats`` (each with its changed columns), insert ``moves`` and
    ``events`` and (``save``) update the game row, in one statement; the rows get
    their ids, in the order given (ids are drawn in that order, so that event ids
    follow the versions). Each row is written once: a seat appears once."""
    params: list[Any] = []
    clauses = [f"s{n} AS ({_update(seat, fields, params)})" for n, (seat, fields) in enumerate(seats)]
    if moves:
        clauses.append(f"m AS ({_insert(Move, moves, params)})")
    if events:
        clauses.append(f"e AS ({_insert(GameEvent, events, params)})")
    if save:
        clauses.append(f"u AS ({_update(game, save_fields, params)})")
    if not clauses:
        return
    move_ids = "(SELECT array_agg(id ORDER BY id) FROM m)" if moves else "NULL"
    event_ids = "(SELECT array_agg(id ORDER BY id) FROM e)" if events else "NULL"
    updated = "(SELECT count(*) FROM u)" if save else "1"
    with connection.cursor() as cursor:
        cursor.execute(f"WITH {', '.join(clauses)} SELECT {move_ids}, {event_ids}, {updated}", params)
        stored_moves, stored_events, count = cursor.fetchone()
    if not count:
        # As save(update_fields=...) does when no row took the change (the locked row cannot go away).
        raise Game.DoesNotExist(f"game {game.pk} was not updated")
    for row, pk in zip(moves, stored_moves or [], strict=True):
        row.pk = pk
        row._state.adding, row._state.db = False, connection.alias
    for event, pk in zip(events, stored_events or [], strict=True):
        event.pk = pk
        event._state.adding, event._state.db = False, connection.alias
