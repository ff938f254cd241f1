"""What the few statements written by hand (games.turn_reads,
games.services.change_sql and games.game_rows) share: the models' column names, and
a game's seats cached on it as ``prefetch_related`` leaves them."""

from __future__ import annotations

from typing import Any

from django.db.models import Field, Model

from games.models import Game, Seat


def column(field: Any) -> str:
    """A concrete field's column."""
    assert isinstance(field, Field) and field.column is not None
    return field.column


def column_of(model: type[Model], name: str) -> str:
    """The column of ``model``'s field ``name`` (``pk``: its primary key)."""
    return column(model._meta.pk if name == "pk" else model._meta.get_field(name))


def seats_cached(game: Game, seats: list[Seat]) -> None:
    """Cache ``seats`` as the game's, as prefetch_related does: ``game.seats.all()``
    is then this list, and reads nothing."""
    prefetched: Any = game.seats.get_queryset()
    prefetched._result_cache = seats
    prefetched._prefetch_done = True
    cache: Any = game
    cache._prefetched_objects_cache = {"seats": prefetched}
