"""The rules of Splendor and Splendor: Marvel, as pure Python (standard library only).

Public API (a contract: the service and external tests use these names)::

    s = new_game(variant="base", players=2, seed=7)
    legal_moves(s); format_move(m); parse_move(s, text, languages=("it",)); apply(s, m)
    read_move(s, text)                   # canonical, not checked against the rules (plans)
    to_move(s); observe(s, seat); is_over(s); outcome(s)
    to_dict(s); from_dict(d); replay(variant, players, seed_or_deal, moves)
    determinize(observe(s, seat), rng)   # the hidden cards dealt again (sandbox, search)
    engine.features.features(variant, players).encode(s, seat)  # observe(s, seat) as float32 numbers

Typed results (``engine.results``), to annotate against: ``Outcome`` (from
``outcome``) with its ``EndReason``; ``MoveDetails`` (from ``move_details``);
``BoardView`` (from ``observe``) and its parts ``SeatView``, ``CardView``,
``MarketCardView``, ``ReservedCardView``, ``HiddenReservedView``, ``TileView``,
``GauntletView``. At run time all are plain JSON-ready dicts (``EndReason`` is a ``str``).

Modules, each importing only those below it: ``errors``, ``data``, ``results``,
``grammar`` (the words of moves and email commands in English, Italian and Latvian);
``moves``, ``variants``; ``state``; ``memos`` (what the rules' hot paths work out
once and keep); ``rules`` (legality, the next state, the end);
``diagnosis`` (which rule a refused move breaks); ``notation`` (reading text),
``words`` (writing a move in a reader's words, which ``notation`` reads back)
and ``observation`` (views), ``features`` (a seat's view as numbers, for learning
environments); ``play`` (the validating ``apply``, ``replay``);
``sampling`` (states that agree with a view: the hidden cards dealt again);
``bots``; ``selfplay`` and ``arena``. ``tests/engine/test_layers.py`` holds them to it.
"""

from __future__ import annotations

from .errors import AmbiguousMove, EngineError, IllegalMove, InvalidNotation, Message, Word, Words
from .moves import Move, format_move, move_from_text
from .notation import parse_move, read_move
from .observation import observe
from .play import apply, replay
from .results import (
    BoardView,
    CardView,
    EndReason,
    GauntletView,
    HiddenReservedView,
    MarketCardView,
    MoveDetails,
    Outcome,
    ReservedCardView,
    SeatView,
    TileView,
)
from .review import DEFAULT_REVIEW_PLAYOUTS, PositionReview, review_position
from .sampling import HiddenSampler, determinize
from .rules import check_invariants, is_legal, is_over, legal_moves, move_details, outcome, to_move
from .state import State, from_dict, new_game, score, seat_permutation, to_dict
from .variants import VARIANTS as _VARIANTS

VARIANTS: tuple[str, ...] = tuple(_VARIANTS)


__all__ = [
    "AmbiguousMove", "EngineError", "HiddenSampler", "IllegalMove", "InvalidNotation", "Message", "Move", "State",
    "Word", "Words",
    "DEFAULT_REVIEW_PLAYOUTS", "PositionReview", "review_position",
    "VARIANTS", "apply", "check_invariants", "determinize", "format_move", "from_dict", "is_legal", "is_over",
    "legal_moves", "move_details", "move_from_text", "new_game", "observe", "outcome",
    "parse_move", "read_move", "replay", "score", "seat_permutation", "to_dict", "to_move",
    # typed results
    "BoardView", "CardView", "EndReason", "GauntletView", "HiddenReservedView",
    "MarketCardView", "MoveDetails", "Outcome", "ReservedCardView", "SeatView", "TileView",
]
