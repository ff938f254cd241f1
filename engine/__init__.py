"""The rules of Splendor and Splendor: Marvel, as pure Python (standard library only).

Public API (a contract: the service and external tests use these names)::

    s = new_game(variant="base", players=2, seed=7)
    legal_moves(s); format_move(m); parse_move(s, text); apply(s, m)
    to_move(s); observe(s, seat); is_over(s); outcome(s)
    to_dict(s); from_dict(d); replay(variant, players, seed_or_deal, moves)
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping

from .errors import AmbiguousMove, EngineError, IllegalMove, InvalidNotation
from .moves import Move, format_move, move_from_text
from .notation import is_legal, parse_move
from .observation import observe
from .rules import apply, check_invariants, is_over, legal_moves, move_details, outcome, to_move
from .state import State, from_dict, new_game, score, seat_permutation, to_dict
from .variants import VARIANTS as _VARIANTS

VARIANTS: tuple[str, ...] = tuple(_VARIANTS)


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


__all__ = [
    "AmbiguousMove", "EngineError", "IllegalMove", "InvalidNotation", "Move", "State",
    "VARIANTS", "apply", "check_invariants", "format_move", "from_dict", "is_legal", "is_over",
    "legal_moves", "move_details", "move_from_text", "new_game", "observe", "outcome",
    "parse_move", "replay", "score", "seat_permutation", "to_dict", "to_move",
]
