"""What one seat may know: the only way hidden information leaves the engine.

``observe(state, seat)`` shows deck sizes (never their order) and, for other
seats' blind reservations, only the level (B-RESERVE-3).

The views are plain JSON-ready dicts whose keys ``engine.results`` names
(:class:`BoardView` and its parts).
"""

from __future__ import annotations

from typing import Generic, TypedDict, TypeVar

from .results import (
    BoardView,
    CardView,
    GauntletView,
    HiddenReservedView,
    ReservedCardView,
    SeatView,
    TileView,
)
from .rules import meets_gauntlet, outcome, to_move
from .state import State, score
from .variants import JOKER, TIME, Variant

_T = TypeVar("_T")


class _TilesByWord(TypedDict, Generic[_T], total=False):
    # The one key the variant's tile word names: "nobles" (base) or "locations" (Marvel).
    nobles: list[_T]
    locations: list[_T]


class _MarvelSeat(TypedDict, total=False):
    # SeatView's Marvel-only keys: all of them in Marvel, none in base.
    avengers_icons: int
    avengers_assemble: bool
    time_stone: bool
    gauntlet: GauntletView


class _MarvelBoard(TypedDict, total=False):
    # BoardView's Marvel-only key.
    avengers_assemble: int | None


def _tokens(v: Variant, tokens: tuple[int, ...]) -> dict[str, int]:
    out = {v.letters[i]: tokens[i] for i in range(6)}
    if v.time_letter:
        out[v.time_letter] = tokens[TIME]
    return out


def _by_tile_word(v: Variant, items: list[_T]) -> _TilesByWord[_T]:
    """``items`` under the variant's plural tile word, as a one-key dict."""
    if v.tile_word == "location":
        return {"locations": items}
    assert v.tile_word == "noble", v.tile_word
    return {"nobles": items}


def _marvel_seat(state: State, s: int) -> _MarvelSeat:
    """What a seat view shows only in Marvel: Avengers icons and tile, Time Stone, Gauntlet."""
    v = state.variant
    if not v.avengers:
        return {}
    p = state.players[s]
    pts = score(state, s)
    return {
        "avengers_icons": p.icons,
        "avengers_assemble": state.avengers == s,
        "time_stone": p.tokens[TIME] > 0,
        "gauntlet": {
            "points": pts,
            "points_needed": max(0, v.target_points - pts),
            "missing_colors": [v.letters[i] for i in range(5) if p.bonuses[i] == 0],
            "time_stone": p.tokens[TIME] > 0,
            "meets": meets_gauntlet(state, s),
        },
    }


def _marvel_board(state: State) -> _MarvelBoard:
    """What the board view shows only in Marvel: who holds Avengers Assemble."""
    return {"avengers_assemble": state.avengers} if state.variant.avengers else {}


def card_view(v: Variant, cid: str) -> CardView:
    """A face-up card, as shown to everyone."""
    c = v.cards[cid]
    view: CardView = {
        "id": c.id,
        "level": c.level,
        "color": v.letters[c.color],
        "points": c.points,
        "cost": {v.letters[i]: c.cost[i] for i in range(5) if c.cost[i]},
    }
    if c.name:
        view["name"] = c.name
    if v.avengers:
        view["avengers"] = c.avengers
        view["time_stone"] = c.time_stone
    return view


def tile_view(v: Variant, tid: str) -> TileView:
    """A noble or location tile."""
    t = v.tiles[tid]
    view: TileView = {
        "id": t.id,
        "points": t.points,
        "requires": {v.letters[i]: t.requires[i] for i in range(5) if t.requires[i]},
    }
    if t.name:
        view["name"] = t.name
    return view


def observe(state: State, seat: int | None) -> BoardView:
    """A JSON-serialisable view of ``state`` for ``seat`` (``None``: a spectator).

    Two states that differ only in what ``seat`` cannot see (deck order, other
    seats' blind reservations) give identical views.
    """
    v = state.variant
    if seat is not None and not (isinstance(seat, int) and 0 <= seat < state.n):
        raise ValueError(f"seat must be None or 0..{state.n - 1}, not {seat!r}")
    seats: list[SeatView] = []
    for s, p in enumerate(state.players):
        reserved: list[ReservedCardView | HiddenReservedView] = []
        for slot, (cid, blind) in enumerate(p.reserved, start=1):
            if blind and s != seat:
                reserved.append({"slot": f"h{slot}", "level": int(cid[0]), "hidden": True})
            else:
                reserved.append({"slot": f"h{slot}", **card_view(v, cid), "blind": blind})
        entry: SeatView = {
            "seat": s,
            "points": score(state, s),
            "tokens": _tokens(v, p.tokens),
            "token_count": sum(p.tokens),
            "bonuses": {v.letters[i]: p.bonuses[i] for i in range(5)},
            "cards": list(p.cards),
            "card_count": len(p.cards),
            "reserved": reserved,
            **_by_tile_word(v, list(p.tiles)),
            **_marvel_seat(state, s),
        }
        seats.append(entry)
    view: BoardView = {
        "variant": v.name,
        "players": state.n,
        "seat": seat,
        "ply": state.ply,
        "round": state.ply // state.n + 1,
        "to_move": to_move(state),
        "over": state.over,
        "outcome": outcome(state),
        "final_round": state.end_triggered and not state.over,
        "forced_passes": state.passes,
        "supply": _tokens(v, state.supply),
        "market": {
            str(level): [
                None if cid is None else {"slot": f"{level}{'abcd'[k]}", **card_view(v, cid)}
                for k, cid in enumerate(row)
            ]
            for level, row in enumerate(state.market, start=1)
        },
        "decks": {str(level): len(deck) for level, deck in enumerate(state.decks, start=1)},
        **_by_tile_word(v, [tile_view(v, t) for t in state.tiles]),
        "seats": seats,
        "joker": v.letters[JOKER],
        **_marvel_board(state),
    }
    return view
