"""What the game page's table needs beyond ``games.presentation``'s board: the
legal moves of the seat to move as entries the page offers on the board (what
each one is played on, and what a buy pays).

The payment of a buy is read from the engine (the seat's tokens before and
after the move): it is the mover's own business and names no hidden card.
Nothing here is drawn in an email.
"""

from __future__ import annotations

from typing import TypedDict

from django.utils.functional import Promise
from django.utils.translation import gettext_lazy

import engine
from engine.variants import get_variant

from games.models import Game
from games.presentation import Chip, CountedChip
from games.words import move_in_words

_KINDS: tuple[tuple[str, str | Promise], ...] = (
    ("buy", gettext_lazy("Buy a card")),
    ("reserve", gettext_lazy("Reserve a card")),
    ("take", gettext_lazy("Take tokens")),
    ("pass", gettext_lazy("Pass")),
)


class MoveEntry(TypedDict):
    text: str  # the notation, posted as the move (and the button's title)
    words: str  # the move in the words of the page's language (games.words)
    kind: str
    pays: list[CountedChip]  # a buy: the tokens it spends (jokers included)
    jokers: int  # a buy: how many jokers it spends
    returns: str  # letters returned (B-LIMIT-1)
    tile: str  # the noble or location chosen (B-NOBLE-2, M-LOCATION-2)


class MoveKind(TypedDict):
    kind: str
    title: str
    moves: list[MoveEntry]


def move_kinds(game: Game, texts: list[str], colors: list[Chip]) -> list[MoveKind]:
    """The legal moves ``texts`` of the seat to move in ``game``, by kind, each
    with its payment when it buys, painted with ``colors`` (the board's legend)."""
    paint = {chip["letter"]: chip for chip in colors}
    variant = game.variant if game.variant in ("base", "marvel") else "base"
    letters = get_variant(variant).letters
    state = engine.from_dict(game.state) if texts and game.state is not None else None
    by_kind: dict[str, list[MoveEntry]] = {kind: [] for kind, _ in _KINDS}
    for text in texts:
        move = engine.move_from_text(text)
        pays: list[CountedChip] = []
        jokers = 0
        if move.kind == "buy" and state is not None:
            seat = state.seat
            after = engine.apply(state, text)
            spent = [before - then for before, then in zip(state.players[seat].tokens, after.players[seat].tokens)]
            for index, letter in enumerate(letters):
                if spent[index] > 0:
                    pays.append(CountedChip(**paint[letter], count=spent[index]))
            jokers = spent[letters.index("J")]
        by_kind.setdefault(move.kind, []).append(
            {"text": text, "words": move_in_words(text, variant), "kind": move.kind, "pays": pays, "jokers": jokers, "returns": move.ret, "tile": move.tile or ""}
        )
    return [{"kind": kind, "title": str(title), "moves": by_kind[kind]} for kind, title in _KINDS if by_kind.get(kind)]
