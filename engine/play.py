"""Playing moves from outside the engine: ``apply`` validates every move, a
:class:`Move` or its text, and ``replay`` rebuilds a game from its move log.

This module sits above both ``rules`` (legality and the next state) and
``notation`` (reading text), which is why ``apply`` lives here and not in ``rules``.
"""

from __future__ import annotations

from bisect import bisect_left
from typing import Any, Iterable, Mapping

from .diagnosis import diagnose
from .errors import IllegalMove, InvalidNotation
from .moves import Move
from .notation import parse_move
from .rules import apply_legal, legal_moves
from .state import State, new_game


def apply(state: State, move: Move | str) -> State:
    """The state after ``move``; ``state`` is unchanged. Illegal moves raise
    :class:`IllegalMove` (or :class:`AmbiguousMove`) naming the rule."""
    if not isinstance(move, Move):
        if not isinstance(move, str):
            raise TypeError(f"apply() needs a Move, not {type(move).__name__}")
        move = parse_move(state, move)
    legal = legal_moves(state)
    # The legal moves are sorted, so a binary search is the membership test.
    at = bisect_left(legal, move)
    if at == len(legal) or legal[at] != move:
        diagnose(state, move)
    return apply_legal(state, move)


def replay(variant: str, players: int, seed_or_deal: int | Mapping[str, Any],
           moves: Iterable[str]) -> State:
    """The state reached by playing ``moves`` (canonical texts) from the start.

    ``seed_or_deal`` is a seed (int) or an explicit deal (mapping). A move that
    is not legal raises, naming its ply in the message.
    """
    if isinstance(seed_or_deal, Mapping):
        state = new_game(variant=variant, players=players, deal=seed_or_deal)
    else:
        state = new_game(variant=variant, players=players, seed=seed_or_deal)
    for ply, text in enumerate(moves):
        try:
            state = apply(state, parse_move(state, text))
        except IllegalMove as exc:
            exc.message = f"ply {ply}: {exc.message}"
            exc.args = (f"{exc.rule}: {exc.message}",)
            raise
        except InvalidNotation as exc:
            raise InvalidNotation(f"ply {ply}: {exc}") from None
    return state
