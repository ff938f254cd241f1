"""The rules: legal moves, the state after a legal move, the end of the game.

``legal_moves`` is the one source of legality. This module trusts its caller:
``apply_legal`` plays a move already known to be legal. The validating
``apply`` (in ``engine.play``) accepts a move exactly when it is in
``legal_moves(state)``; when it is not, ``engine.diagnosis`` only works out
which rule the move breaks, so the error can name it.

Hot paths cache what depends on a few small values (the supply pattern, a
player's tokens, a payment), never on the state object itself.
"""

from __future__ import annotations

from itertools import combinations
from typing import Any

from .moves import Move, make_move
from .results import EndReason, MoveDetails, Outcome
from .state import Player, State, score
from .variants import JOKER, TIME, Variant

LIMIT = 10  # B-LIMIT-1
MAX_RESERVED = 3  # B-RESERVE-2

_TAKE_OPTIONS: dict[tuple[str, tuple[int, ...]], list[tuple[tuple[int, ...], str]]] = {}
_RETURNS: dict[tuple[str, tuple[int, ...], int], list[str]] = {}
_PAYS: dict[tuple[str, tuple[int, ...], int], list[str]] = {}
_RESERVES: dict[tuple[Any, ...], Move] = {}  # bounded: cards x decks x return letters
_NEAR: dict[tuple[Any, ...], tuple[str, ...]] = {}
_BUYS: dict[tuple[Any, ...], list[Move]] = {}
_TAKE_RETURNS: dict[tuple[str, str, tuple[int, ...]], list[Move]] = {}
_TAKE_MOVES: dict[tuple[Any, ...], tuple[Move, ...]] = {}


_SIG = (0, 1, 1, 1) + (2,) * 40  # a pile: empty, 1-3 (no take-2), 4+ (B-TAKE-2)


def _bounded(cache: dict[Any, Any], size: int = 50_000) -> None:
    if len(cache) > size:
        cache.clear()


# --- building blocks ---------------------------------------------------------

def _take_options(v: Variant, supply: tuple[int, ...]) -> list[tuple[tuple[int, ...], str]]:
    """Every take action for a supply: (counts over the five colours, letters)."""
    sig = tuple(0 if n == 0 else (1 if n < 4 else 2) for n in supply[:5])
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
            opts.append((vec, "".join(v.letters[i] for i in g)))
        for i in range(5):
            if sig[i] == 2:  # B-TAKE-2: at least 4 in the pile
                opts.append((tuple(2 if j == i else 0 for j in range(5)), v.letters[i] * 2))
        _TAKE_OPTIONS[key] = opts
    return opts


def _return_options(v: Variant, tokens: tuple[int, ...], k: int) -> list[str]:
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
        _bounded(_RETURNS)
        _RETURNS[key] = out
    return out


def _pay_options(v: Variant, paid: tuple[int, ...], spare: int) -> list[str]:
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
        _bounded(_PAYS)
        _PAYS[key] = out
    return out


def _shortfall(req: tuple[int, ...], bonuses: tuple[int, ...]) -> int:
    return sum(r - b for r, b in zip(req, bonuses) if r > b)


def qualifying_tiles(state: State, bonuses: tuple[int, ...]) -> list[str]:
    """Nobles / locations on the table whose requirement these bonuses meet
    (B-NOBLE-1, M-LOCATION-1)."""
    tiles = state.variant.tiles
    out = []
    for t in state.tiles:
        req = tiles[t].requires
        if (bonuses[0] >= req[0] and bonuses[1] >= req[1] and bonuses[2] >= req[2]
                and bonuses[3] >= req[3] and bonuses[4] >= req[4]):
            out.append(t)
    return out


def default_payment(card_cost: tuple[int, ...], bonuses: tuple[int, ...],
                    tokens: tuple[int, ...]) -> tuple[tuple[int, ...], int]:
    """B-BUY-1: gems paid per colour by default, and jokers needed for the rest."""
    paid = []
    deficit = 0
    for i in range(5):
        need = card_cost[i] - bonuses[i]
        if need <= 0:
            paid.append(0)
        elif tokens[i] >= need:
            paid.append(need)
        else:
            paid.append(tokens[i])
            deficit += need - tokens[i]
    return tuple(paid), deficit


def gains_time_stone(state: State, player: Player, card_id: str) -> bool:
    """M-TIME-1 / M-TIME-2: the first level-3 Time Stone character brings one green."""
    card = state.variant.cards[card_id]
    return card.time_stone and card.level == 3 and player.tokens[TIME] == 0 and state.supply[TIME] > 0


# --- legal moves ---------------------------------------------------------------

def legal_moves(state: State) -> tuple[Move, ...]:
    """Every legal move, sorted by canonical text; empty only when the game is over."""
    legal = state._legal
    if legal is None:
        legal = () if state.over else _generate(state)
        state._legal = legal
    return legal  # type: ignore[no-any-return]


def legal_index(state: State) -> frozenset[str]:
    """``legal_moves(state)`` as a set of texts, for membership tests (memoised)."""
    index = state._index
    if index is None:
        index = frozenset(legal_moves(state))
        state._index = index
    return index  # type: ignore[no-any-return]


def is_legal(state: State, move: Move) -> bool:
    """Whether ``move`` is one of ``legal_moves(state)``."""
    return move.text in legal_index(state)


def _with_tiles(moves: list[Move], tiles: list[str]) -> list[Move]:
    return [m.with_suffix(m.ret, t) for m in moves for t in tiles]


def _generate(state: State) -> tuple[Move, ...]:
    v = state.variant
    p = state.players[state.seat]
    held = p.tokens
    total = sum(held)
    q0 = qualifying_tiles(state, p.bonuses)

    buys = _buy_moves(state, p, total)
    reserves = _reserve_moves(state, p, total)
    takes = _take_moves(v, state.supply, held, total)
    if not (buys or reserves or takes):
        passes = [make_move("pass")]  # B-PASS-1
        if len(q0) >= 2:
            passes = _with_tiles(passes, q0)
        return tuple(passes)
    if len(q0) >= 2:  # B-NOBLE-2: the choice is part of every move
        reserves = _with_tiles(reserves, q0)
        takes = tuple(sorted(_with_tiles(list(takes), q0)))
    buys.sort()
    reserves.sort()
    return (*buys, *reserves, *takes)


def _take_moves(v: Variant, supply: tuple[int, ...], held: tuple[int, ...], total: int) -> tuple[Move, ...]:
    s = supply
    key = (v.name, _SIG[s[0]], _SIG[s[1]], _SIG[s[2]], _SIG[s[3]], _SIG[s[4]],
           held if total > LIMIT - 3 else None)
    moves = _TAKE_MOVES.get(key)
    if moves is None:
        out = []
        for vec, letters in _take_options(v, supply):
            after = sum(vec) + total
            if after <= LIMIT:
                out.append(make_move("take", take=letters))
            else:
                new = (held[0] + vec[0], held[1] + vec[1], held[2] + vec[2], held[3] + vec[3],
                       held[4] + vec[4], held[5], held[6])
                rkey = (v.name, letters, new)
                with_returns = _TAKE_RETURNS.get(rkey)
                if with_returns is None:
                    with_returns = [make_move("take", take=letters, ret=ret)
                                    for ret in _return_options(v, new, after - LIMIT)]
                    _bounded(_TAKE_RETURNS)
                    _TAKE_RETURNS[rkey] = with_returns
                out.extend(with_returns)
        out.sort()
        moves = tuple(out)
        _bounded(_TAKE_MOVES, 20_000)
        _TAKE_MOVES[key] = moves
    return moves


def _reserve_moves(state: State, p: Player, total: int) -> list[Move]:
    if len(p.reserved) >= MAX_RESERVED:  # B-RESERVE-2
        return []
    v = state.variant
    targets: list[tuple[str | None, int | None]] = []
    for row in state.market:
        for cid in row:
            if cid is not None:
                targets.append((cid, None))
    for level, deck in enumerate(state.decks, start=1):
        if deck:
            targets.append((None, level))
    if not targets:
        return []
    gets_joker = state.supply[JOKER] > 0  # B-RESERVE-1 / M-RESERVE-1
    rets = [""]
    if gets_joker and total + 1 > LIMIT:
        new = p.tokens[:JOKER] + (p.tokens[JOKER] + 1,) + p.tokens[JOKER + 1:]
        rets = _return_options(v, new, total + 1 - LIMIT)
    out = []
    for target in targets:
        for r in rets:
            key = (v.name, target, r)
            m = _RESERVES.get(key)
            if m is None:
                m = _RESERVES[key] = make_move("reserve", card=target[0], deck=target[1], ret=r)
            out.append(m)
    return out


def _buy_moves(state: State, p: Player, total: int) -> list[Move]:
    v = state.variant
    costs = v.costs
    held = p.tokens
    bonuses = p.bonuses
    jokers = held[JOKER]
    t0, t1, t2, t3, t4 = held[:5]
    b0, b1, b2, b3, b4 = bonuses
    out: list[Move] = []
    candidates = [cid for row in state.market for cid in row if cid is not None]
    candidates.extend(cid for cid, _ in p.reserved)
    near = _near_tiles(state, bonuses) if state.tiles else ()
    tiles_after: dict[int, list[str]] = {}
    may_gain = v.time_letter and held[TIME] == 0 and state.supply[TIME] > 0
    vname = v.name
    w0, w1, w2, w3, w4 = b0 + t0, b1 + t1, b2 + t2, b3 + t3, b4 + t4
    for cid in candidates:
        c0, c1, c2, c3, c4 = costs[cid]
        # most cards are out of reach: reject them before working out a payment
        if ((c0 - w0 if c0 > w0 else 0) + (c1 - w1 if c1 > w1 else 0) + (c2 - w2 if c2 > w2 else 0)
                + (c3 - w3 if c3 > w3 else 0) + (c4 - w4 if c4 > w4 else 0)) > jokers:
            continue
        # B-BUY-1: bonuses first, then gems in hand, then jokers for the rest
        short = 0
        n0 = c0 - b0
        if n0 <= 0:
            n0 = 0
        elif n0 > t0:
            short += n0 - t0
            n0 = t0
        n1 = c1 - b1
        if n1 <= 0:
            n1 = 0
        elif n1 > t1:
            short += n1 - t1
            n1 = t1
        n2 = c2 - b2
        if n2 <= 0:
            n2 = 0
        elif n2 > t2:
            short += n2 - t2
            n2 = t2
        n3 = c3 - b3
        if n3 <= 0:
            n3 = 0
        elif n3 > t3:
            short += n3 - t3
            n3 = t3
        n4 = c4 - b4
        if n4 <= 0:
            n4 = 0
        elif n4 > t4:
            short += n4 - t4
            n4 = t4
        if short > jokers:
            continue
        gain = 1 if may_gain and gains_time_stone(state, p, cid) else 0
        overflow = total - (n0 + n1 + n2 + n3 + n4 + short) + gain - LIMIT
        key = (vname, cid, n0, n1, n2, n3, n4, jokers - short, held if overflow > 0 else None)
        moves = _BUYS.get(key)
        if moves is None:
            moves = _buy_options(v, cid, (n0, n1, n2, n3, n4), short, held, gain, overflow)
            _bounded(_BUYS)
            _BUYS[key] = moves
        if near:
            colour = v.cards[cid].color
            q = tiles_after.get(colour)
            if q is None:
                b = list(bonuses)
                b[colour] += 1
                q = tiles_after[colour] = qualifying_tiles(state, tuple(b))
            if len(q) >= 2:  # B-NOBLE-2: the choice is part of the move
                out.extend(m.with_suffix(m.ret, t) for m in moves for t in q)
                continue
        out.extend(moves)
    return out


def _near_tiles(state: State, bonuses: tuple[int, ...]) -> tuple[str, ...]:
    """Tiles one card or less short: only those can be reached by buying this turn."""
    key = (state.variant.name, state.tiles, bonuses)
    near = _NEAR.get(key)
    if near is None:
        tiles = state.variant.tiles
        near = tuple(t for t in state.tiles if _shortfall(tiles[t].requires, bonuses) <= 1)
        _bounded(_NEAR)
        _NEAR[key] = near
    return near


def _buy_options(v: Variant, cid: str, paid: tuple[int, ...], deficit: int,
                 held: tuple[int, ...], gain: int, overflow: int) -> list[Move]:
    """Every payment (and, when a Time Stone overflows the hand, every return)
    for buying an affordable card; tile choices are added by the caller."""
    out = []
    for pay in _pay_options(v, paid, held[JOKER] - deficit):
        rets = [""]
        if overflow > 0:  # only a Time Stone gain can overflow the hand (M-TIME-3)
            after = list(held)
            for i in range(5):
                after[i] -= paid[i]
            after[JOKER] -= deficit
            for ch in pay:
                i = v.letters.index(ch)
                after[i] += 1
                after[JOKER] -= 1
            after[TIME] += gain
            rets = _return_options(v, tuple(after), overflow)
        for r in rets:
            out.append(make_move("buy", card=cid, pay=pay, ret=r))
    return out


# --- applying a move -----------------------------------------------------------

def _replace_in_market(state: State, cid: str) -> tuple[tuple[tuple[str | None, ...], ...], tuple[tuple[str, ...], ...]]:
    """B-MARKET-1: a card leaving the market is replaced from its deck, in its slot."""
    level = int(cid[0]) - 1
    row = list(state.market[level])
    deck = state.decks[level]
    slot = row.index(cid)
    decks = state.decks
    if deck:
        row[slot] = deck[0]
        decks = decks[:level] + (deck[1:],) + decks[level + 1:]
    else:
        row[slot] = None
    market = state.market[:level] + (tuple(row),) + state.market[level + 1:]
    return market, decks


def apply_legal(state: State, move: Move) -> State:
    """The state after ``move``, which the caller knows is in ``legal_moves(state)``.

    Nothing is checked here: an illegal move gives a corrupt state. Everything
    outside the engine goes through the validating ``apply`` (``engine.play``).
    """
    v = state.variant
    seat = state.seat
    p = state.players[seat]
    tokens = list(p.tokens)
    supply = list(state.supply)
    market, decks = state.market, state.decks
    reserved, cards, bonuses = p.reserved, p.cards, p.bonuses
    points, icons, avengers = p.points, p.icons, state.avengers
    letters = v.letters

    kind = move.kind
    if kind == "take":
        for ch in move.take:
            i = letters.index(ch)
            tokens[i] += 1
            supply[i] -= 1
    elif kind == "reserve":
        if move.card is not None:
            market, decks = _replace_in_market(state, move.card)
            reserved = reserved + ((move.card, False),)
        else:
            level = move.deck - 1  # type: ignore[operator]
            deck = decks[level]
            reserved = reserved + ((deck[0], True),)  # B-RESERVE-3: blind
            decks = decks[:level] + (deck[1:],) + decks[level + 1:]
        if supply[JOKER] > 0:
            supply[JOKER] -= 1
            tokens[JOKER] += 1
    elif kind == "buy":
        cid = move.card
        assert cid is not None
        card = v.cards[cid]
        if any(r[0] == cid for r in reserved):
            reserved = tuple(r for r in reserved if r[0] != cid)
        else:
            market, decks = _replace_in_market(state, cid)
        paid, deficit = default_payment(card.cost, bonuses, p.tokens)
        gems = list(paid)
        for ch in move.pay:
            i = letters.index(ch)
            gems[i] -= 1
            deficit += 1
        for i in range(5):
            tokens[i] -= gems[i]
            supply[i] += gems[i]
        tokens[JOKER] -= deficit
        supply[JOKER] += deficit
        if gains_time_stone(state, p, cid):  # M-TIME-1
            tokens[TIME] += 1
            supply[TIME] -= 1
        cards = cards + (cid,)
        b = list(bonuses)
        b[card.color] += 1
        bonuses = tuple(b)
        points += card.points
        icons += card.avengers
        if v.avengers and icons >= 3 and avengers != seat:  # M-AVENGERS-1, M-AVENGERS-2
            if avengers is None or icons > state.players[avengers].icons:
                avengers = seat
    for ch in move.ret:  # B-LIMIT-1
        i = letters.index(ch)
        tokens[i] -= 1
        supply[i] += 1

    tiles = state.tiles
    ptiles = p.tiles
    tile = move.tile
    if tile is None:
        q = qualifying_tiles(state, bonuses)
        if len(q) == 1:
            tile = q[0]
    if tile is not None:  # B-NOBLE-1 / M-LOCATION-1
        tiles = tuple(t for t in tiles if t != tile)
        ptiles = ptiles + (tile,)
        points += v.tiles[tile].points

    player = Player(tuple(tokens), bonuses, points, cards, reserved, ptiles, icons)
    players = state.players[:seat] + (player,) + state.players[seat + 1:]
    passes = state.passes + 1 if kind == "pass" else 0
    nxt = State(v, state.n, state.ply + 1, tuple(supply), decks, market, tiles, players,
                passes, state.end_triggered, False, None, avengers)
    _end_of_turn(nxt, seat)
    return nxt


def meets_gauntlet(state: State, seat: int) -> bool:
    """M-END-1: 16+ Infinity Points, a bonus of every colour and the Time Stone."""
    p = state.players[seat]
    return (score(state, seat) >= state.variant.target_points
            and min(p.bonuses) >= 1 and p.tokens[TIME] >= 1)


def _reached_end(state: State, seat: int) -> bool:
    if state.variant.end == "points":
        return score(state, seat) >= state.variant.target_points  # B-END-1
    return meets_gauntlet(state, seat)  # M-END-2, M-END-5


def _end_of_turn(state: State, seat: int) -> None:
    """Trigger and finish the game on the fresh ``state`` (still private to apply_legal)."""
    n = state.n
    if not state.end_triggered and _reached_end(state, seat):
        state.end_triggered = True
    if state.passes >= n:  # B-PASS-2
        state.over, state.reason = True, EndReason.ALL_PASSED
        return
    if seat == n - 1:  # the round is complete
        if state.end_triggered:
            if state.variant.end == "points":
                state.over, state.reason = True, EndReason.POINTS  # B-END-1
                return
            if any(meets_gauntlet(state, s) for s in range(n)):
                state.over, state.reason = True, EndReason.GAUNTLET  # M-END-2
                return
            state.end_triggered = False  # M-END-3: nobody qualifies any more; play on
        if state.ply >= state.variant.round_limit * n:  # B-END-3
            state.over, state.reason = True, EndReason.ROUND_LIMIT


# --- queries -------------------------------------------------------------------

def to_move(state: State) -> int | None:
    """The seat whose turn it is, or ``None`` once the game is over."""
    return None if state.over else state.seat


def is_over(state: State) -> bool:
    """Whether the game has ended."""
    return state.over


def _rank_key(state: State, seat: int) -> tuple[int, ...]:
    p = state.players[seat]
    if state.variant.end == "points":
        return (-score(state, seat), len(p.cards))  # B-END-2
    # M-END-4; after a Gauntlet end only qualifying players can win (M-END-3)
    q = 0 if state.reason != EndReason.GAUNTLET or meets_gauntlet(state, seat) else 1
    return (q, -score(state, seat), 0 if state.avengers == seat else 1, len(p.cards))


def outcome(state: State) -> Outcome | None:
    """``None`` before the end; then winners, scores, ranking (best first), the
    place of each seat (equal players share a place) and the reason it ended."""
    if not state.over:
        return None
    reason = state.reason
    assert reason is not None  # the rules and from_dict set it whenever the game is over
    n = state.n
    keys = [_rank_key(state, s) for s in range(n)]
    ranking = sorted(range(n), key=lambda s: (keys[s], s))
    places = [1 + sum(1 for o in range(n) if keys[o] < keys[s]) for s in range(n)]
    return {
        "winners": [s for s in ranking if places[s] == 1],
        "scores": [score(state, s) for s in range(n)],
        "ranking": ranking,
        "places": places,
        "reason": reason,
    }


def move_details(before: State, move: Move, after: State) -> MoveDetails:
    """What a move did, for the move log. ``private_card`` names a blind-reserved
    card and must be shown only to the seat that reserved it (B-RESERVE-3)."""
    seat = before.seat
    p0, p1 = before.players[seat], after.players[seat]
    new_tiles = [t for t in p1.tiles if t not in p0.tiles]
    return {
        "seat": seat,
        "move": move.text,
        "private_card": p1.reserved[-1][0] if move.kind == "reserve" and move.deck else None,
        "tile": new_tiles[0] if new_tiles else None,
        "time_stone": p1.tokens[TIME] > p0.tokens[TIME],
        "avengers": after.avengers if after.avengers != before.avengers else None,
        "over": after.over,
    }


def check_invariants(state: State, cards_total: int | None = None) -> list[str]:
    """Broken invariants, as sentences (empty when all hold)."""
    problems = []
    v = state.variant
    full = v.supply(state.n)
    for i in range(7):
        held = sum(p.tokens[i] for p in state.players)
        if state.supply[i] < 0 or held + state.supply[i] != full[i]:
            problems.append(f"token slot {i}: supply {state.supply[i]} + held {held} != {full[i]}")
    seen: list[str] = []
    for deck in state.decks:
        seen.extend(deck)
    for row in state.market:
        seen.extend(c for c in row if c is not None)
    for s, p in enumerate(state.players):
        if min(p.tokens) < 0:
            problems.append(f"seat {s} holds a negative number of tokens")
        if sum(p.tokens) > LIMIT:
            problems.append(f"seat {s} holds {sum(p.tokens)} tokens (B-LIMIT-1)")
        if len(p.reserved) > MAX_RESERVED:
            problems.append(f"seat {s} has {len(p.reserved)} reserved cards (B-RESERVE-2)")
        if p.tokens[TIME] > 1:
            problems.append(f"seat {s} holds {p.tokens[TIME]} Time Stones (M-TIME-2)")
        seen.extend(c for c, _ in p.reserved)
        seen.extend(p.cards)
    if len(seen) != len(set(seen)):
        problems.append("a card is in two places")
    if cards_total is not None and len(seen) != cards_total:
        problems.append(f"{len(seen)} cards in play, expected {cards_total}")
    tiles = list(state.tiles) + [t for p in state.players for t in p.tiles]
    if len(tiles) != len(set(tiles)):
        problems.append("a tile is in two places")
    if not state.over and not legal_moves(state):
        problems.append("no legal move before the end")
    return problems
