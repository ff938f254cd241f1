"""A game row's state as the engine's ``State``, decoded once per row object.

A move decodes the stored state to play on it, then stores the new one; the
stream's "your turn" and the answer's board each read that new state again. The
``State`` the change built is kept on the row object beside the dict it stored
(``state_store``), and ``state_of_game`` hands it back for as long as the row
holds that very dict: a row read again from the database, a copy given another
state (the replay) or any other assignment to ``game.state`` is decoded afresh.
A ``State`` is a value (its private memos only cache what it already says), so
the readers may share it."""

from __future__ import annotations

from typing import Any

import engine

from games.models import Game

_KEPT = "_engine_state"


def state_store(game: Game, state: engine.State) -> None:
    """Store ``state`` in the row (not saved here) and keep it decoded beside."""
    game.state = engine.to_dict(state)
    setattr(game, _KEPT, (game.state, state))


def state_of_game(game: Game) -> engine.State:
    """The row's state as a ``State`` (the game must have started)."""
    stored: Any = game.state
    assert stored is not None  # stored when the game started
    kept = getattr(game, _KEPT, None)
    if kept is not None and kept[0] is stored:
        return kept[1]  # type: ignore[no-any-return]
    state = engine.from_dict(stored)
    setattr(game, _KEPT, (stored, state))
    return state
