"""A readable position builder: what FEN is to chess tests, for Splendor.

``position(...)`` starts from a seeded deal and changes only what a test names,
then returns ``engine.from_dict(...)`` of the result. Tokens are written as
notation letters (``seat_tokens={0: "WWUGGR"}``); the supply is always what the
seats do not hold, so token conservation holds in every built position. Cards a
test places (market, reserved, bought) are taken out of the decks, so no card is
in two places.

Example::

    s = position(
        "base", players=2,
        seat_tokens={0: "RRRRKKKJJJ"},   # seat 0's tokens; the supply is the rest
        market={2: ["2-05"]},            # 2-05 in slot 2a, slots 2b-2d dealt as usual
        reserved={1: [("3-01", True)]},  # seat 1 reserved 3-01 blind
        bonuses={0: "WWWUUU"},           # seat 0 bought 0-point cards with these colours
        ply=0,                           # seat 0 to move
    )

Parameters that name seats take ``{seat: value}``. A level's market is a list of up
to four slots (card ids, or ``None`` for an empty slot); slots not listed are
dealt from the deck. ``decks={1: [...]}`` sets a deck exactly (top first); that
level's cards then placed nowhere are out of the game (``check_invariants`` with no
``cards_total`` still checks that no card is in two places).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import engine
from engine.variants import get_variant

SeatMap = Mapping[int, Any]

COLOUR_LETTERS = {"base": "WUGRKJ", "marvel": "YUORPJT"}


def letters_to_tokens(variant: str, letters: str | Sequence[int]) -> list[int]:
    """``"WWUJ"`` -> a 7-slot token vector (five colours, joker, Time Stone)."""
    if not isinstance(letters, str):
        vec = list(letters) + [0] * (7 - len(letters))
        return vec[:7]
    order = COLOUR_LETTERS[variant]
    vec = [0] * 7
    for ch in letters.replace(" ", "").upper():
        if ch not in order:
            raise ValueError(f"{ch!r} is not a token letter of the {variant} game ({order})")
        vec[order.index(ch)] += 1
    return vec


def tokens_text(variant: str, tokens: Sequence[int]) -> str:
    """A 7-slot token vector as letters, in canonical order: the inverse of
    :func:`letters_to_tokens`."""
    order = COLOUR_LETTERS[variant]
    return "".join(order[i] * tokens[i] for i in range(len(order)))


def cards_where(variant: str, **want: Any) -> list[str]:
    """Card ids (sorted) whose attributes equal ``want``: ``level=3, color=0``.

    ``color`` may be a notation letter (``color="R"``).
    """
    v = get_variant(variant)
    if isinstance(want.get("color"), str):
        want["color"] = COLOUR_LETTERS[variant].index(want["color"])
    return sorted(
        cid for cid, c in v.cards.items()
        if all(getattr(c, key) == value for key, value in want.items())
    )


def bonus_cards(variant: str, letters: str, exclude: Iterable[str] = ()) -> list[str]:
    """Cards that give exactly the bonuses in ``letters`` and as few points and
    Avengers icons as possible (level-1 cards first), avoiding ``exclude``."""
    v = get_variant(variant)
    taken = set(exclude)
    chosen: list[str] = []
    for ch in letters.replace(" ", "").upper():
        colour = COLOUR_LETTERS[variant].index(ch)
        candidates = sorted(
            (c for c in v.cards.values() if c.color == colour and c.id not in taken),
            key=lambda c: (c.points, c.avengers, c.time_stone, c.level, c.id),
        )
        if not candidates:
            raise ValueError(f"no card left to give a {ch} bonus")
        chosen.append(candidates[0].id)
        taken.add(candidates[0].id)
    return chosen


def position(
    variant: str = "base",
    players: int = 2,
    *,
    seed: int = 0,
    ply: int = 0,
    seat_tokens: SeatMap | None = None,
    market: Mapping[int, Sequence[str | None]] | None = None,
    decks: Mapping[int, Sequence[str]] | None = None,
    cards: SeatMap | None = None,
    bonuses: SeatMap | None = None,
    reserved: SeatMap | None = None,
    tiles: Sequence[str] | None = None,
    seat_tiles: SeatMap | None = None,
    avengers: int | None = None,
    passes: int = 0,
    end_triggered: bool = False,
    over: bool = False,
    reason: str | None = None,
) -> engine.State:
    """A position: a seeded deal with the named overrides (see the module docstring).

    ``reserved`` entries are card ids (reserved face up from the market) or
    ``(id, True)`` for a blind reservation. ``tiles`` are the nobles or locations
    still on the table; ``seat_tiles`` those the seats already received.
    """
    start = engine.to_dict(engine.new_game(variant=variant, players=players, seed=seed))
    seat_tokens = seat_tokens or {}
    cards = {s: list(ids) for s, ids in (cards or {}).items()}
    reserved = reserved or {}
    market = market or {}
    decks = decks or {}
    seat_tiles = seat_tiles or {}

    placed: list[str] = []
    for level_cards in market.values():
        placed.extend(c for c in level_cards if c is not None)
    for level_cards in decks.values():
        placed.extend(level_cards)
    for ids in cards.values():
        placed.extend(ids)
    reserved_pairs: dict[int, list[list[Any]]] = {}
    for s, entries in reserved.items():
        pairs = []
        for entry in entries:
            cid, blind = (entry, False) if isinstance(entry, str) else (entry[0], bool(entry[1]))
            pairs.append([cid, blind])
            placed.append(cid)
        reserved_pairs[s] = pairs
    for s, letters in (bonuses or {}).items():
        extra = bonus_cards(variant, letters, exclude=placed)
        cards.setdefault(s, []).extend(extra)
        placed.extend(extra)
    if len(placed) != len(set(placed)):
        doubled = sorted({c for c in placed if placed.count(c) > 1})
        raise ValueError(f"cards placed twice: {doubled}")

    # Remaining cards of each level, in the seeded deal's order (market first).
    new_market: list[list[str | None]] = []
    new_decks: list[list[str]] = []
    for level in (1, 2, 3):
        dealt = [c for c in start["market"][level - 1] if c] + list(start["decks"][level - 1])
        pool = [c for c in dealt if c not in placed]
        row = list(market.get(level, []))
        if len(row) > 4:
            raise ValueError(f"a market row has four slots, not {len(row)}")
        for cid in row:
            if cid is not None and int(cid[0]) != level:
                raise ValueError(f"{cid} is not a level-{level} card")
        # Slots the test did not name are dealt from the cards left over; an
        # explicit deck stays exactly as given and the rest leave the game.
        while len(row) < 4:
            row.append(pool.pop(0) if pool else None)
        deck = list(decks[level]) if level in decks else pool
        new_market.append(row)
        new_decks.append(deck)

    full = list(start["supply"])
    seats = []
    for s in range(players):
        tokens = letters_to_tokens(variant, seat_tokens.get(s, ""))
        seats.append({
            "tokens": tokens,
            "cards": list(cards.get(s, [])),
            "reserved": reserved_pairs.get(s, []),
            "tiles": list(seat_tiles.get(s, [])),
        })
    supply = [full[i] - sum(seat["tokens"][i] for seat in seats) for i in range(7)]
    if min(supply) < 0:
        raise ValueError(f"the seats hold more tokens than the game has: supply would be {supply}")

    taken_tiles = [t for ts in seat_tiles.values() for t in ts]
    table = list(tiles) if tiles is not None else [t for t in start["tiles"] if t not in taken_tiles]

    state = engine.from_dict({
        "variant": variant,
        "players": players,
        "ply": ply,
        "supply": supply,
        "decks": new_decks,
        "market": new_market,
        "tiles": table,
        "seats": seats,
        "passes": passes,
        "end_triggered": end_triggered,
        "over": over,
        "reason": reason,
        "avengers": avengers,
    })
    return state


def play(state: engine.State, *moves: str) -> engine.State:
    """The state after the given moves (lenient or canonical text), in order."""
    for text in moves:
        state = engine.apply(state, engine.parse_move(state, text))
    return state
