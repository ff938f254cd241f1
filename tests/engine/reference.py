"""The rules written plainly, as the slow reference the engine's fast paths are
held to (``test_reference.py``).

Nothing here is cached, unrolled or shared with ``engine.rules``: the legal moves
are every action the rules allow, each with every payment, every set of tokens to
give back and every tile choice, sorted by their text; a move is applied to the
plain data of ``engine.to_dict``. Only the move's text comes from the engine
(``make_move``), since the notation has its own tests.
"""

from __future__ import annotations

import copy
from itertools import combinations, product
from typing import Any

import engine
from engine.moves import Move, make_move
from engine.variants import Variant, get_variant

LIMIT = 10  # B-LIMIT-1
JOKER, TIME = 5, 6


def _bonuses(v: Variant, cards: list[str]) -> list[int]:
    out = [0] * 5
    for cid in cards:
        out[v.cards[cid].color] += 1
    return out


def _points(v: Variant, seat: dict[str, Any]) -> int:
    return sum(v.cards[c].points for c in seat["cards"]) + sum(v.tiles[t].points for t in seat["tiles"])


def _icons(v: Variant, seat: dict[str, Any]) -> int:
    return sum(v.cards[c].avengers for c in seat["cards"])


def _qualifying(v: Variant, table: list[str], bonuses: list[int]) -> list[str]:
    """B-NOBLE-1, M-LOCATION-1: tiles whose requirement these bonuses meet."""
    return [t for t in table if all(bonuses[i] >= v.tiles[t].requires[i] for i in range(5))]


def _returns(v: Variant, tokens: list[int], k: int) -> list[str]:
    """B-LIMIT-1, M-TIME-3: every multiset of ``k`` tokens held, never the Time Stone."""
    out = []
    for counts in product(*(range(tokens[i] + 1) for i in range(6))):
        if sum(counts) == k:
            out.append("".join(v.letters[i] * counts[i] for i in range(6)))
    return out


def _gains_time_stone(v: Variant, d: dict[str, Any], seat: dict[str, Any], cid: str) -> bool:
    """M-TIME-1 / M-TIME-2."""
    card = v.cards[cid]
    return card.time_stone and card.level == 3 and seat["tokens"][TIME] == 0 and d["supply"][TIME] > 0


def _actions(v: Variant, d: dict[str, Any], seat: dict[str, Any]) -> list[tuple[dict[str, Any], list[int], int | None]]:
    """Every action (the move's fields without returns or tile), with the tokens
    held after it and the colour of the card it buys."""
    held = seat["tokens"]
    supply = d["supply"]
    out: list[tuple[dict[str, Any], list[int], int | None]] = []
    left = [i for i in range(5) if supply[i] > 0]
    groups = list(combinations(left, 3)) if len(left) >= 3 else ([tuple(left)] if left else [])
    for g in groups:  # B-TAKE-3 (fewer colours only when fewer are left)
        out.append(({"kind": "take", "take": "".join(v.letters[i] for i in g)},
                    [held[i] + (1 if i in g else 0) for i in range(7)], None))
    for i in range(5):  # B-TAKE-2
        if supply[i] >= 4:
            out.append(({"kind": "take", "take": v.letters[i] * 2},
                        [held[j] + (2 if j == i else 0) for j in range(7)], None))
    if len(seat["reserved"]) < 3:  # B-RESERVE-1, B-RESERVE-2
        joker = [1 if j == JOKER and supply[JOKER] > 0 else 0 for j in range(7)]
        for row in d["market"]:
            for cid in row:
                if cid is not None:
                    out.append(({"kind": "reserve", "card": cid}, [held[j] + joker[j] for j in range(7)], None))
        for level, deck in enumerate(d["decks"], start=1):
            if deck:
                out.append(({"kind": "reserve", "deck": level}, [held[j] + joker[j] for j in range(7)], None))
    bonuses = _bonuses(v, seat["cards"])
    candidates = [cid for row in d["market"] for cid in row if cid is not None]
    candidates += [cid for cid, _ in seat["reserved"]]
    for cid in candidates:  # B-BUY-1: bonuses first, then gems, jokers for the rest
        card = v.cards[cid]
        need = [max(0, card.cost[i] - bonuses[i]) for i in range(5)]
        gems = [min(need[i], held[i]) for i in range(5)]
        jokers = sum(need) - sum(gems)
        if jokers > held[JOKER]:
            continue
        gain = 1 if _gains_time_stone(v, d, seat, cid) else 0
        for swap in product(*(range(gems[i] + 1) for i in range(5))):  # J: a joker instead of a gem
            if jokers + sum(swap) > held[JOKER]:
                continue
            after = [held[i] - gems[i] + swap[i] for i in range(5)]
            after += [held[JOKER] - jokers - sum(swap), held[TIME] + gain]
            pay = "".join(v.letters[i] * swap[i] for i in range(5))
            out.append(({"kind": "buy", "card": cid, "pay": pay}, after, card.color))
    return out


def legal_moves(state: engine.State) -> list[Move]:
    """Every legal move of ``state``, sorted by canonical text."""
    if state.over:
        return []
    d = engine.to_dict(state)
    v = get_variant(d["variant"])
    seat = d["seats"][d["ply"] % d["players"]]
    moves = []
    actions = _actions(v, d, seat)
    if not actions:  # B-PASS-1
        actions = [({"kind": "pass"}, list(seat["tokens"]), None)]
    for fields, after, colour in actions:
        bonuses = _bonuses(v, seat["cards"])
        if colour is not None:
            bonuses[colour] += 1
        tiles = _qualifying(v, d["tiles"], bonuses)
        over = sum(after) - LIMIT
        for ret in _returns(v, after, over) if over > 0 else [""]:
            for tile in tiles if len(tiles) >= 2 else [None]:  # B-NOBLE-2, M-LOCATION-2
                moves.append(make_move(fields["kind"], **{k: x for k, x in fields.items() if k != "kind"},
                                       ret=ret, tile=tile))
    return sorted(moves)


def _meets_gauntlet(v: Variant, d: dict[str, Any], s: int) -> bool:
    """M-END-1."""
    seat = d["seats"][s]
    score = _points(v, seat) + (3 if d["avengers"] == s else 0)
    return score >= v.target_points and min(_bonuses(v, seat["cards"])) >= 1 and seat["tokens"][TIME] >= 1


def apply(state: engine.State, move: Move) -> dict[str, Any]:
    """``engine.to_dict`` of the state after ``move``, which must be legal."""
    d = copy.deepcopy(engine.to_dict(state))
    v = get_variant(d["variant"])
    n = d["players"]
    s = d["ply"] % n
    seat = d["seats"][s]
    held, supply = seat["tokens"], d["supply"]

    def move_token(letter: str, to_seat: int) -> None:
        i = v.all_letters.index(letter)
        held[i] += to_seat
        supply[i] -= to_seat

    def leave_market(cid: str) -> None:  # B-MARKET-1: refilled in its slot from its deck
        level = int(cid[0]) - 1
        row, deck = d["market"][level], d["decks"][level]
        row[row.index(cid)] = deck.pop(0) if deck else None

    if move.kind == "take":
        for letter in move.take:
            move_token(letter, 1)
    elif move.kind == "reserve":
        if move.card is not None:
            leave_market(move.card)
            seat["reserved"].append([move.card, False])
        else:
            seat["reserved"].append([d["decks"][move.deck - 1].pop(0), True])  # B-RESERVE-3
        if supply[JOKER] > 0:
            move_token(v.letters[JOKER], 1)
    elif move.kind == "buy":
        cid = move.card
        card = v.cards[cid]
        gain = _gains_time_stone(v, d, seat, cid)
        if any(c == cid for c, _ in seat["reserved"]):
            seat["reserved"] = [r for r in seat["reserved"] if r[0] != cid]
        else:
            leave_market(cid)
        bonuses = _bonuses(v, seat["cards"])
        for i in range(5):
            gems = min(max(0, card.cost[i] - bonuses[i]), held[i]) - move.pay.count(v.letters[i])
            jokers = max(0, card.cost[i] - bonuses[i]) - gems
            move_token(v.letters[i], -gems)
            move_token(v.letters[JOKER], -jokers)
        if gain:
            move_token(v.time_letter, 1)
        seat["cards"].append(cid)
        icons = _icons(v, seat)
        holder = d["avengers"]
        if v.avengers and icons >= 3 and holder != s:  # M-AVENGERS-1, M-AVENGERS-2
            if holder is None or icons > _icons(v, d["seats"][holder]):
                d["avengers"] = s
    for letter in move.ret:
        move_token(letter, -1)
    tiles = _qualifying(v, d["tiles"], _bonuses(v, seat["cards"]))
    tile = move.tile if move.tile is not None else (tiles[0] if len(tiles) == 1 else None)
    if tile is not None:  # B-NOBLE-1, M-LOCATION-1
        d["tiles"].remove(tile)
        seat["tiles"].append(tile)

    d["ply"] += 1
    d["passes"] = d["passes"] + 1 if move.kind == "pass" else 0
    score = _points(v, seat) + (3 if d["avengers"] == s else 0)
    reached = score >= v.target_points if v.end == "points" else _meets_gauntlet(v, d, s)
    if reached:  # B-END-1, M-END-2, M-END-5
        d["end_triggered"] = True
    if d["passes"] >= n:  # B-PASS-2
        d["over"], d["reason"] = True, "all-passed"
    elif s == n - 1:  # the round is complete
        if d["end_triggered"] and v.end == "points":
            d["over"], d["reason"] = True, "points"
        elif d["end_triggered"] and any(_meets_gauntlet(v, d, k) for k in range(n)):
            d["over"], d["reason"] = True, "gauntlet"
        else:
            d["end_triggered"] = False  # M-END-3 (never set here in a points game)
            if d["ply"] >= v.round_limit * n:  # B-END-3
                d["over"], d["reason"] = True, "round-limit"
    return d
