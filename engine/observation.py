"""What one seat may know: the only way hidden information leaves the engine.

``observe(state, seat)`` shows deck sizes (never their order) and, for other
seats' blind reservations, only the level (B-RESERVE-3).
"""

from __future__ import annotations

from typing import Any

from .rules import meets_gauntlet, outcome, to_move
from .state import State, score
from .variants import JOKER, TIME, Variant


def _tokens(v: Variant, tokens: tuple[int, ...]) -> dict[str, int]:
    out = {v.letters[i]: tokens[i] for i in range(6)}
    if v.time_letter:
        out[v.time_letter] = tokens[TIME]
    return out


def card_view(v: Variant, cid: str) -> dict[str, Any]:
    """A face-up card, as shown to everyone."""
    c = v.cards[cid]
    view: dict[str, Any] = {
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


def tile_view(v: Variant, tid: str) -> dict[str, Any]:
    """A noble or location tile."""
    t = v.tiles[tid]
    view: dict[str, Any] = {
        "id": t.id,
        "points": t.points,
        "requires": {v.letters[i]: t.requires[i] for i in range(5) if t.requires[i]},
    }
    if t.name:
        view["name"] = t.name
    return view


def observe(state: State, seat: int | None) -> dict[str, Any]:
    """A JSON-serialisable view of ``state`` for ``seat`` (``None``: a spectator).

    Two states that differ only in what ``seat`` cannot see (deck order, other
    seats' blind reservations) give identical views.
    """
    v = state.variant
    if seat is not None and not (isinstance(seat, int) and 0 <= seat < state.n):
        raise ValueError(f"seat must be None or 0..{state.n - 1}, not {seat!r}")
    tiles_key = v.tile_word + "s"
    seats = []
    for s, p in enumerate(state.players):
        reserved = []
        for slot, (cid, blind) in enumerate(p.reserved, start=1):
            if blind and s != seat:
                reserved.append({"slot": f"h{slot}", "level": int(cid[0]), "hidden": True})
            else:
                reserved.append({"slot": f"h{slot}", **card_view(v, cid), "blind": blind})
        entry: dict[str, Any] = {
            "seat": s,
            "points": score(state, s),
            "tokens": _tokens(v, p.tokens),
            "token_count": sum(p.tokens),
            "bonuses": {v.letters[i]: p.bonuses[i] for i in range(5)},
            "cards": list(p.cards),
            "card_count": len(p.cards),
            "reserved": reserved,
            tiles_key: list(p.tiles),
        }
        if v.avengers:
            entry["avengers_icons"] = p.icons
            entry["avengers_assemble"] = state.avengers == s
            entry["time_stone"] = p.tokens[TIME] > 0
            pts = score(state, s)
            entry["gauntlet"] = {
                "points": pts,
                "points_needed": max(0, v.target_points - pts),
                "missing_colors": [v.letters[i] for i in range(5) if p.bonuses[i] == 0],
                "time_stone": p.tokens[TIME] > 0,
                "meets": meets_gauntlet(state, s),
            }
        seats.append(entry)
    view: dict[str, Any] = {
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
        tiles_key: [tile_view(v, t) for t in state.tiles],
        "seats": seats,
        "joker": v.letters[JOKER],
    }
    if v.avengers:
        view["avengers_assemble"] = state.avengers
    return view
