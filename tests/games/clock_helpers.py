"""Helpers for the clock tests: games with a time control, on a fixed clock."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import engine

from games import services
from games.models import Game, GameEvent
from tests.factories import StartedGameFactory
from tests.factories import seat_to_move as seat_to_move  # re-exported: the clock tests import it from here

# A Monday at noon (UTC), far from a year's end, so that vacation years are plain.
NOON = datetime(2026, 3, 2, 12, 0, tzinfo=UTC)
HOUR = 3600


def started_game(creator: Any, *others: Any, **clock: Any) -> Game:
    """A game of ``creator`` and ``others`` (invited; they join, so it starts) with the
    time control ``clock`` (StartedGameFactory)."""
    return StartedGameFactory.create(creator=creator, invited=list(others), seats=1 + len(others), **clock)


def play_a_take(game: Game) -> None:
    """The player to move plays a plain token take (a choice, never a forced pass)."""
    seat = seat_to_move(game)
    state = engine.from_dict(game.state)
    texts = [engine.format_move(m) for m in engine.legal_moves(state)]
    take = next(t for t in texts if t.startswith("take ") and " return " not in t)
    services.move_submit(game_id=game.pk, user=seat.user, text=take, expected_version=game.version)


def events(game: Game, kind: str | None = None) -> list[GameEvent]:
    rows = GameEvent.objects.filter(game=game).order_by("id")
    return list(rows.filter(kind=kind) if kind else rows)


def time_out(game: Game) -> bool:
    """Run the timeout of the turn to move just after its deadline."""
    game.refresh_from_db()
    assert game.deadline_at is not None
    return services.game_time_out(game_id=game.pk, now=game.deadline_at)
