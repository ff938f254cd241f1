"""Stable integer ids for every move in canonical notation, per variant.

An :class:`ActionTable` holds every canonical move text that any position of the
variant could make legal, sorted by the text (as ``engine.legal_moves`` sorts the
moves of a position); a move's id is its place in that order. The table is a
function of the variant's cards and tiles alone, so anyone can rebuild it from
``docs/actions.md``; ``ActionTable.digest`` (a SHA-256 of the texts) tells two
builds apart, and the tests hold the counts and digests to the documented ones.

What the table holds, for a variant whose six token letters are its five colours
then its joker (``W U G R K J`` in the base game, ``Y U O R P J`` in Marvel):

- ``take X``: one to three different colours, or two of one colour (B-TAKE-2,
  B-TAKE-3); a ``return`` of one up to as many tokens as were taken, any of the
  six letters (B-LIMIT-1: a hand holds at most 10 before the take).
- ``reserve <card>`` and ``reserve deck1..3``: a ``return`` of one token, any of
  the six letters (the joker a reservation brings can overflow the hand).
- ``buy <card>`` with an optional ``J:`` part: jokers spent beyond the default
  payment, at most one per gem the card costs in that colour and at most five in
  all (the game has five jokers); no ``return``, but in Marvel a level-3 card that
  brings the Time Stone (M-TIME-1) may need one of one token (M-TIME-3).
- ``pass`` (B-PASS-1), with no ``return``.
- Each of those with no tile suffix, or with ``noble <Nxx>`` (base) / ``location
  <Lxx>`` (Marvel) naming any tile of the variant (B-NOBLE-2, M-LOCATION-2).

Only this module and ``engine`` are needed; nothing here reads a game state.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Sequence
from functools import cache
from itertools import combinations, combinations_with_replacement
from operator import itemgetter

from engine import InvalidNotation, move_from_text
from engine.variants import VARIANTS, Variant

MAX_JOKERS = 5  # the joker tokens of a game, either variant: the most a J: part can list


class ActionTable:
    """Every possible canonical move of one variant, sorted, with its id."""

    __slots__ = ("variant", "texts", "ids", "digest", "_by_move")

    def __init__(self, variant: str) -> None:
        if variant not in VARIANTS:
            known = ", ".join(sorted(VARIANTS))
            raise ValueError(f"unknown variant {variant!r}; known variants: {known}")
        self.variant = variant
        texts = sorted(_texts(VARIANTS[variant]))
        self.texts: tuple[str, ...] = tuple(texts)
        self.ids: dict[str, int] = {text: i for i, text in enumerate(texts)}
        self.digest = hashlib.sha256("\n".join(texts).encode("ascii")).hexdigest()
        # The ids by the engine's own Move objects, filled as moves are met: the engine
        # makes one object per text, so a look-up here matches by identity, about
        # twice as fast as by text (ids_of runs on every step of an environment).
        self._by_move: dict[str, int] = {}

    def __len__(self) -> int:
        return len(self.texts)

    def id_of(self, text: str) -> int:
        """The id of a move given in notation (any case and letter order; the
        canonical form is looked up). ``ValueError`` when it is not a move."""
        found = self.ids.get(text)
        if found is not None:
            return found
        try:
            canonical = move_from_text(text).text
        except InvalidNotation as exc:
            raise ValueError(f"not a move in notation: {exc}") from None
        found = self.ids.get(canonical)
        if found is None:
            raise ValueError(
                f"{canonical!r} is not a move any {self.variant} position allows "
                "(wrong letters, card or tile for this variant, or more tokens returned "
                "or jokers spent than a hand can hold)"
            )
        return found

    def text_of(self, action: int) -> str:
        """The canonical text of an id; ``ValueError`` out of range."""
        if isinstance(action, bool) or not isinstance(action, int):
            raise ValueError(f"an action id is an int, not {type(action).__name__}")
        if not 0 <= action < len(self.texts):
            raise ValueError(f"action id {action} is out of range 0..{len(self.texts) - 1} ({self.variant})")
        return self.texts[action]

    def ids_of(self, moves: Sequence[str]) -> tuple[int, ...]:
        """The ids of ``moves`` (canonical texts, or the engine's ``Move`` values),
        in their order; ``KeyError`` for a text that is not in the table."""
        by_move = self._by_move
        try:
            if len(moves) > 1:
                return itemgetter(*moves)(by_move)  # type: ignore[no-any-return]
            return tuple(by_move[m] for m in moves)
        except KeyError:
            ids = self.ids
            for m in moves:
                if m not in by_move:
                    by_move[m] = ids[m]
            return tuple(by_move[m] for m in moves)

    def mask(self, legal: Sequence[str]) -> list[bool]:
        """The ``list[bool]`` over every id, true exactly for the ids of ``legal``."""
        out = [False] * len(self.texts)
        ids = self.ids
        for text in legal:
            out[ids[text]] = True
        return out


@cache
def action_table(variant: str) -> ActionTable:
    """The (shared, built once) table of ``variant``."""
    return ActionTable(variant)


def _multisets(letters: str, smallest: int, largest: int) -> list[str]:
    """Every multiset of ``letters`` of ``smallest`` to ``largest`` letters, each
    written in the order of ``letters`` (the canonical letter order)."""
    return ["".join(combo) for k in range(smallest, largest + 1)
            for combo in combinations_with_replacement(letters, k)]


def _payments(letters: str, cost: tuple[int, ...]) -> list[str]:
    """The non-empty ``J:`` parts for a card of ``cost``: at most one joker per gem
    of each colour, at most ``MAX_JOKERS`` in all."""
    out: list[str] = []

    def rec(i: int, left: int, acc: str) -> None:
        if i == 5:
            if acc:
                out.append(acc)
            return
        for k in range(min(left, cost[i]) + 1):
            rec(i + 1, left - k, acc + letters[i] * k)

    rec(0, MAX_JOKERS, "")
    return out


def _texts(v: Variant) -> Iterator[str]:
    """Every text of the table, unsorted (the module docstring says what and why)."""
    colours, six = v.letters[:5], v.letters[:6]
    with_returns: list[str] = []

    takes = [("".join(group), len(group)) for k in (1, 2, 3) for group in combinations(colours, k)]
    takes += [(c * 2, 2) for c in colours]
    for letters, taken in takes:
        action = "take " + letters
        with_returns.append(action)
        with_returns.extend(f"{action} return {r}" for r in _multisets(six, 1, taken))

    one_back = _multisets(six, 1, 1)
    targets = sorted(v.cards) + [f"deck{level}" for level in (1, 2, 3)]
    for target in targets:
        action = "reserve " + target
        with_returns.append(action)
        with_returns.extend(f"{action} return {r}" for r in one_back)

    for cid in sorted(v.cards):
        card = v.cards[cid]
        actions = [f"buy {cid}"] + [f"buy {cid} J:{pay}" for pay in _payments(colours, card.cost)]
        with_returns.extend(actions)
        if v.time_letter and card.time_stone and card.level == 3:  # M-TIME-1, M-TIME-3
            with_returns.extend(f"{action} return {r}" for action in actions for r in one_back)

    with_returns.append("pass")

    suffixes = [""] + [f" {v.tile_word} {tile}" for tile in sorted(v.tiles)]
    for text in with_returns:
        for suffix in suffixes:
            yield text + suffix


__all__ = ["ActionTable", "MAX_JOKERS", "action_table"]
