"""What the rules' hot paths work out once and keep (``engine.rules`` reads them).

Two kinds. Tables memoised by the few small values they depend on, in bounded
module-level dicts: each variant's cards as bit masks with their plain moves,
the take options of a supply pattern, the ways to give tokens back or to spend
jokers, what a move's text does to a hand. And memos in private slots of one
state or seat: the market and a seat's reserve as bit masks, what a seat's
bonuses make of the tiles on the table; ``engine.rules.apply_legal`` hands them
on to the next state while what they depend on stays, or brings them up to
date. None is ever part of a state's value (``==``, ``hash``, ``to_dict``), and
``tests/engine/test_reference.py`` holds every result the rules build from them
to the rules written plainly.
"""

from __future__ import annotations

from itertools import combinations
from typing import Any

from .moves import Move, make_move
from .state import Player, State
from .variants import VARIANTS, Variant

_TAKE_OPTIONS: dict[tuple[str, tuple[int, ...]], list[tuple[tuple[int, ...], str, Move]]] = {}
_RETURNS: dict[tuple[str, tuple[int, ...], int], list[str]] = {}
_PAYS: dict[tuple[str, tuple[int, ...], int], list[str]] = {}

SIG = (0, 1, 1, 1) + (2,) * 40  # a pile: empty, 1-3 (no take-2), 4+ (B-TAKE-2)


def bounded(cache: dict[Any, Any], size: int = 50_000) -> None:
    """Empty a memo table that has grown past ``size`` entries (about to get one more)."""
    if len(cache) > size:
        cache.clear()


# --- enumerations, by the few values they depend on ---------------------------

def take_options(v: Variant, sig: tuple[int, ...]) -> list[tuple[tuple[int, ...], str, Move]]:
    """Every take action for a supply whose five piles read ``sig`` (``SIG``):
    (counts over the five colours, letters, the move without returns), in the
    order of their move texts."""
    key = (v.letters, sig)
    opts = _TAKE_OPTIONS.get(key)
    if opts is None:
        opts = []
        left = [i for i in range(5) if sig[i]]
        groups: list[tuple[int, ...]]
        if len(left) >= 3:  # B-TAKE-3
            groups = list(combinations(left, 3))
        elif left:  # B-TAKE-3 decision: one of each colour left
            groups = [tuple(left)]
        else:
            groups = []
        for g in groups:
            vec = tuple(1 if i in g else 0 for i in range(5))
            letters = "".join(v.letters[i] for i in g)
            opts.append((vec, letters, make_move("take", take=letters)))
        for i in range(5):
            if sig[i] == 2:  # B-TAKE-2: at least 4 in the pile
                letters = v.letters[i] * 2
                opts.append((tuple(2 if j == i else 0 for j in range(5)), letters, make_move("take", take=letters)))
        opts.sort(key=lambda opt: opt[2])
        _TAKE_OPTIONS[key] = opts
    return opts


def return_options(v: Variant, tokens: tuple[int, ...], k: int) -> list[str]:
    """Every multiset of ``k`` returnable tokens (never the Time Stone, M-TIME-3)."""
    key = (v.letters, tokens[:6], k)
    out = _RETURNS.get(key)
    if out is None:
        out = []
        letters = v.letters

        def rec(i: int, left: int, acc: str) -> None:
            if left == 0:
                out.append(acc)
                return
            if i == 6:
                return
            for c in range(min(left, tokens[i]), -1, -1):
                rec(i + 1, left - c, acc + letters[i] * c)

        rec(0, k, "")
        out.sort()
        bounded(_RETURNS)
        _RETURNS[key] = out
    return out


def pay_options(v: Variant, paid: tuple[int, ...], spare: int) -> list[str]:
    """Every ``J:`` part: jokers spent beyond the default, at most one per gem paid."""
    key = (v.letters, paid, spare)
    out = _PAYS.get(key)
    if out is None:
        out = []
        letters = v.letters

        def rec(i: int, left: int, acc: str) -> None:
            if i == 5:
                out.append(acc)
                return
            for c in range(0, min(left, paid[i]) + 1):
                rec(i + 1, left - c, acc + letters[i] * c)

        rec(0, spare, "")
        bounded(_PAYS)
        _PAYS[key] = out
    return out


# --- each variant's cards as bit masks, and what a move's text does -----------

_WIDE = 64  # bonuses + gems (< 32) and jokers (< 32) of one colour: the afford tables' reach


class CardTables:
    """One variant's cards as bit masks, and the moves and move plans built once.

    Bit ``k`` is the ``k``-th card id in sorted order, so taking the lowest bit
    first visits cards in the order of their move texts. ``afford[i][w]`` holds
    the cards whose cost in colour ``i`` is at most ``w``, for ``w`` below
    ``_WIDE``.
    """

    __slots__ = ("bit", "card", "buy", "stones", "afford", "reserve", "reserve_deck", "buys")

    def __init__(self, v: Variant) -> None:
        ids = sorted(v.cards)
        cards = [v.cards[cid] for cid in ids]
        self.bit = {c.id: 1 << k for k, c in enumerate(cards)}
        # bit -> (card id, its colour, its "buy" move, whether it can bring the Time Stone: M-TIME-1)
        self.card = {1 << k: (c.id, c.color, make_move("buy", card=c.id), c.time_stone and c.level == 3)
                     for k, c in enumerate(cards)}
        self.buy = {bit: move for bit, (_, _, move, _) in self.card.items()}  # bit -> its "buy" move
        self.stones = sum(bit for bit, (_, _, _, stone) in self.card.items() if stone)  # the cards that can bring it
        self.afford = tuple(
            tuple(sum(1 << k for k, c in enumerate(cards) if c.cost[i] <= w) for w in range(_WIDE))
            for i in range(5)
        )
        self.reserve = {c.id: make_move("reserve", card=c.id) for c in cards}
        self.reserve_deck = {level: make_move("reserve", deck=level) for level in (1, 2, 3)}
        # The ways to buy a card within reach, by what the purchase pays (engine.rules; bounded).
        self.buys: dict[tuple[Any, ...], list[Move]] = {}


TABLES = {name: CardTables(v) for name, v in VARIANTS.items()}


def _counts(letters: str, alphabet: str, size: int) -> tuple[int, ...]:
    """How many of each of the first ``size`` slots' letters ``letters`` holds
    (0 for a slot the variant has no letter for: the base game's Time Stone)."""
    return tuple(letters.count(alphabet[i]) if i < len(alphabet) else 0 for i in range(size))


Plan = tuple[str, "str | None", "int | None", "str | None", tuple[int, ...], tuple[int, ...]]  # see move_plan
PLANS: dict[str, Plan] = {}


def move_plan(v: Variant, move: Move) -> Plan:
    """A move's fields as ``apply_legal`` reads them: kind, card, deck, tile, the
    tokens taken less those given back (over seven slots) and the jokers spent
    per ``J:`` colour. Memoised by text: a letter stands for the same slot in
    every variant that has it (``U``, ``R``, ``J``; the others belong to one variant)."""
    plan = PLANS.get(move)
    if plan is None:
        letters = v.all_letters
        take, ret = _counts(move.take, letters, 7), _counts(move.ret, letters, 7)
        plan = (move.kind, move.card, move.deck, move.tile,
                tuple(t - r for t, r in zip(take, ret)), _counts(move.pay, letters, 5))
        bounded(PLANS, 200_000)
        PLANS[move] = plan
    return plan


# --- memos on a state and its seats ---------------------------------------------

NO_TILES: tuple[list[str], None] = ([], None)
TileInfo = tuple[list[str], "tuple[list[str] | None, ...] | None"]


def tile_info(state: State, bonuses: tuple[int, ...]) -> TileInfo:
    """The tiles on the table that ``bonuses`` meet now (B-NOBLE-1, M-LOCATION-1)
    and, per colour, those met after buying a card of that colour when they are
    two or more (B-NOBLE-2, M-LOCATION-2: the choice is then part of the move);
    ``None`` when no colour leads to such a choice."""
    tiles = state.variant.tiles
    b0, b1, b2, b3, b4 = bonuses
    met: list[str] = []
    reach: list[tuple[str, int]] = []  # (tile, the colour it lacks one card of, or -1: met)
    for t in state.tiles:  # in table order, as qualifying_tiles lists them
        r0, r1, r2, r3, r4 = tiles[t].requires
        short = ((r0 - b0 if r0 > b0 else 0) + (r1 - b1 if r1 > b1 else 0) + (r2 - b2 if r2 > b2 else 0)
                 + (r3 - b3 if r3 > b3 else 0) + (r4 - b4 if r4 > b4 else 0))
        if short == 0:
            met.append(t)
            reach.append((t, -1))
        elif short == 1:
            reach.append((t, 0 if r0 > b0 else 1 if r1 > b1 else 2 if r2 > b2 else 3 if r3 > b3 else 4))
    if len(reach) > len(met):  # a purchase may meet more tiles
        after = []
        for colour in range(5):
            q = [t for t, lacks in reach if lacks < 0 or lacks == colour]
            after.append(q if len(q) >= 2 else None)
        return met, tuple(after) if any(after) else None
    return met, (met,) * 5 if len(met) >= 2 else None


def seat_tile_info(state: State, p: Player) -> TileInfo:
    """``tile_info`` for a seat's bonuses, memoised on the seat's ``Player``
    while the tiles on the table stay the same (``apply_legal`` hands it on to
    the seat's next ``Player`` when a move changes neither): bonuses only grow,
    so a memo keyed on their value would rarely be met again."""
    tiles = state.tiles
    if not tiles:
        return NO_TILES
    memo = p._tile_memo
    if memo is not None and memo[0] is tiles:
        return memo[1]  # type: ignore[no-any-return]
    info = tile_info(state, p.bonuses)
    p._tile_memo = (tiles, info)
    return info


def market_bits(state: State, tables: CardTables) -> int:
    """The cards face up in the market as a bit mask (memoised on the state;
    ``apply_legal`` hands it on when the market does not change)."""
    bits = state._market_bits
    if bits is None:
        bits = 0
        bit = tables.bit
        for row in state.market:
            for cid in row:
                if cid is not None:
                    bits |= bit[cid]
        state._market_bits = bits
    return bits  # type: ignore[no-any-return]
