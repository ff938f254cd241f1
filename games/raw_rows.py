"""What the few statements written by hand (games.turn_reads,
games.services.change_sql and games.game_rows) share: the models' column names, and
a game's seats cached on it as ``prefetch_related`` leaves them."""

from __future__ import annotations

from typing import Any

from core.model_rows import column, column_of
from games.models import Game, Seat

__all__ = ["column", "column_of", "seats_cached"]


def seats_cached(game: Game, seats: list[Seat]) -> None:
    """Cache ``seats`` as the game's, as prefetch_related does: ``game.seats.all()``
    is then this list, and reads nothing."""
    prefetched: Any = game.seats.get_queryset()
    prefetched._result_cache = seats
    prefetched._prefetch_done = True
    cache: Any = game
    cache._prefetched_objects_cache = {"seats": prefetched}
