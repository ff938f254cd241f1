"""Rebuilding a game's states from the truth about it: its start (the deal of its
seed, or the stored start state of a game no seed dealt, a sandbox) and its move
log. Server-side only: a state holds every hidden card; what leaves the server
is a view of it (``engine.observe``)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import engine

from games.models import Game, Move


def game_initial_state(game: Game) -> engine.State | None:
    """The state the game started from; None for a game that never started."""
    if game.start_state is not None:
        return engine.from_dict(game.start_state)
    if game.seed:
        return engine.new_game(variant=game.variant, players=game.seat_count, seed=int(game.seed))
    return None


def state_after(game: Game, moves: Iterable[str]) -> engine.State | None:
    """The state after playing ``moves`` (canonical texts, in order) from the start."""
    state = game_initial_state(game)
    if state is None:
        return None
    for text in moves:
        state = engine.apply(state, text)
    return state


def game_move_texts(game: Game) -> list[str]:
    return list(Move.objects.filter(game=game).order_by("ply").values_list("text", flat=True))


def game_rebuild_state(*, game: Game) -> dict[str, Any] | None:
    """Recompute the state snapshot from the start (the seed's deal, or a sandbox's
    start state) and the move log (server-side only)."""
    state = state_after(game, game_move_texts(game))
    return engine.to_dict(state) if state is not None else None
