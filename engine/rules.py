"""The rules: legal moves, the state after a legal move, the end of the game.

``legal_moves`` is the one source of legality. This module trusts its caller:
``apply_legal`` plays a move already known to be legal. The validating
``apply`` (in ``engine.play``) accepts a move exactly when it is in
``legal_moves(state)``; when it is not, ``engine.diagnosis`` only works out
which rule the move breaks, so the error can name it.

Hot paths cache what depends on a few small values (the supply pattern, a
player's tokens, a payment) in bounded module-level tables, and memoise what
depends on one state's parts in private slots of that state and its players:
the legal moves, the market and a seat's reserve as bit masks, the plain
reservations, what a seat's bonuses make of the tiles on the table.
``apply_legal`` hands a memo on to the next state while the parts it depends on
stay the same, or brings it up to date. Memos are never part of a state's value
(``==``, ``hash``, ``to_dict``), and ``tests/engine/test_reference.py`` holds
every result to the rules written plainly.
"""

from __future__ import annotations

from bisect import insort
from typing import Any, Sequence

from .memos import (
    NO_TILES,
    PLANS,
    SIG,
    TABLES,
    TileInfo,
    bounded,
    market_bits,
    move_plan,
    pay_options,
    return_options,
    seat_tile_info,
    take_options,
    tile_info,
)
from .moves import Move, make_move
from .results import EndReason, MoveDetails, Outcome
from .state import Player, State, score
from .variants import JOKER, TIME, Variant

LIMIT = 10  # B-LIMIT-1
MAX_RESERVED = 3  # B-RESERVE-2

_RESERVE_RETURN_MOVES: dict[str, dict[str, Move]] = {}  # reservation -> return letters -> move: small
_TAKE_RETURNS: dict[tuple[str, tuple[Any, ...]], dict[str, tuple[Move, ...]]] = {}  # by hand, then take letters
_TAKE_RETURN_MOVES: dict[str, dict[str, Move]] = {}  # take letters -> return letters -> move: small
_TAKE_MOVES: dict[tuple[Any, ...], tuple[Move, ...]] = {}


# --- building blocks ---------------------------------------------------------

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


def _with_tiles(moves: Sequence[Move], tiles: list[str]) -> list[Move]:
    return [m.with_suffix(m.ret, t) for m in moves for t in tiles]


def _generate(state: State) -> tuple[Move, ...]:
    v = state.variant
    p = state.players[state.ply % state.n]
    held = p.tokens
    total = sum(held)
    memo = p._tile_memo  # seat_tile_info(state, p), read here when memoised
    if memo is not None and memo[0] is state.tiles:
        q0, after = memo[1]
    else:
        q0, after = seat_tile_info(state, p)

    buys = _buy_moves(state, p, total, after)
    if len(p.reserved) < MAX_RESERVED:  # B-RESERVE-2
        reserves = state._reserves  # the plain reservations, when memoised and no return is due
        if reserves is None or (total >= LIMIT and state.supply[JOKER] > 0):
            reserves = _reserve_moves(state, p, total)
    else:
        reserves = ()
    takes = _take_moves(v, state.supply, held, total)
    if not (buys or reserves or takes):
        passes = [make_move("pass")]  # B-PASS-1
        if len(q0) >= 2:
            passes = _with_tiles(passes, q0)
        return tuple(passes)
    if len(q0) >= 2:  # B-NOBLE-2: the choice is part of every move
        reserves = tuple(sorted(_with_tiles(reserves, q0)))
        takes = tuple(sorted(_with_tiles(takes, q0)))
    # "buy" < "reserve" < "take": the three sorted runs are the sorted whole.
    if buys:
        return (*buys, *reserves, *takes)
    return reserves + takes if reserves else takes


def _take_moves(v: Variant, supply: tuple[int, ...], held: tuple[int, ...], total: int) -> tuple[Move, ...]:
    s = supply
    hand: tuple[Any, ...] | None = None  # what of the hand the moves depend on
    if total > LIMIT:  # only a corrupt state holds more than 10
        hand = ("over", held)
    elif total > LIMIT - 3:
        # A take gives back at most k = total - 7 tokens (three taken, B-LIMIT-1), and
        # a return of k tokens sees each slot of the hand only up to k: beyond its
        # total, the hand matters only up to k per slot (far fewer keys than whole hands).
        k = total - (LIMIT - 3)
        h0, h1, h2, h3, h4, h5 = held[:6]
        hand = (total, h0 if h0 < k else k, h1 if h1 < k else k, h2 if h2 < k else k,
                h3 if h3 < k else k, h4 if h4 < k else k, h5 if h5 < k else k)
    key = (v.name, SIG[s[0]], SIG[s[1]], SIG[s[2]], SIG[s[3]], SIG[s[4]], hand)
    moves = _TAKE_MOVES.get(key)
    if moves is None:
        # The options come in text order, and no option's text is the start of
        # another's but "take W" of "take WW" (followed by " return", which sorts
        # first): the moves come out sorted with no sort.
        options = take_options(v, key[1:6])
        if hand is None:  # no take can overflow the hand
            moves = tuple(move for _, _, move in options)
        else:
            hkey = (v.name, hand)
            by_take = _TAKE_RETURNS.get(hkey)
            if by_take is None:
                bounded(_TAKE_RETURNS, 20_000)
                by_take = _TAKE_RETURNS[hkey] = {}
            out: list[Move] = []
            for vec, letters, move in options:
                with_returns = by_take.get(letters)
                if with_returns is None:
                    with_returns = by_take[letters] = _take_returns(v, vec, letters, move, held, total)
                out.extend(with_returns)
            moves = tuple(out)
        bounded(_TAKE_MOVES, 20_000)
        _TAKE_MOVES[key] = moves
    return moves


def _take_returns(v: Variant, vec: tuple[int, ...], letters: str, move: Move,
                  held: tuple[int, ...], total: int) -> tuple[Move, ...]:
    """A take, with every way to give back what it takes beyond 10 (B-LIMIT-1)."""
    after = vec[0] + vec[1] + vec[2] + vec[3] + vec[4] + total
    if after <= LIMIT:
        return (move,)
    new = (held[0] + vec[0], held[1] + vec[1], held[2] + vec[2], held[3] + vec[3],
           held[4] + vec[4], held[5], held[6])
    by_return = _TAKE_RETURN_MOVES.get(letters)
    if by_return is None:
        by_return = _TAKE_RETURN_MOVES[letters] = {}
    out = []
    for ret in return_options(v, new, after - LIMIT):
        m = by_return.get(ret)
        if m is None:
            m = by_return[ret] = make_move("take", take=letters, ret=ret)
        out.append(m)
    return tuple(out)


def _reserve_moves(state: State, p: Player, total: int) -> tuple[Move, ...]:
    """The reservations of a seat holding fewer than three reserved cards, sorted."""
    v = state.variant
    plain = state._reserves
    if plain is None:  # memoised on the state; apply_legal keeps it up to date
        tables = TABLES[v.name]
        plain = state._reserves = tuple(sorted(
            tables.reserve[cid] if cid is not None else tables.reserve_deck[level]  # type: ignore[index]
            for cid, level in _reserve_targets(state)))
    if state.supply[JOKER] > 0 and total + 1 > LIMIT:  # the joker (B-RESERVE-1) overflows the hand
        new = p.tokens[:JOKER] + (p.tokens[JOKER] + 1,) + p.tokens[JOKER + 1:]
        # No reservation's text is the start of another's, and the returns are
        # sorted and all as long: every move after its plain one keeps the order.
        out = []
        rets = return_options(v, new, total + 1 - LIMIT)
        for move in plain:
            by_return = _RESERVE_RETURN_MOVES.get(move)
            if by_return is None:
                by_return = _RESERVE_RETURN_MOVES[move] = {}
            for ret in rets:
                m = by_return.get(ret)
                if m is None:
                    m = by_return[ret] = move.with_suffix(ret)
                out.append(m)
        return tuple(out)
    return plain  # type: ignore[no-any-return]


def _reserve_targets(state: State) -> list[tuple[str | None, int | None]]:
    """What can be reserved: every card face up (B-RESERVE-1), the top of every deck left."""
    targets: list[tuple[str | None, int | None]] = []
    for row in state.market:
        for cid in row:
            if cid is not None:
                targets.append((cid, None))
    for level, deck in enumerate(state.decks, start=1):
        if deck:
            targets.append((None, level))
    return targets


def _buy_moves(state: State, p: Player, total: int,
               after: tuple[list[str] | None, ...] | None) -> list[Move]:
    """Every purchase, with its payments, returns and tile choices, sorted."""
    v = state.variant
    tables = TABLES[v.name]
    held = p.tokens
    t0, t1, t2, t3, t4, jokers, time_stone = held
    b0, b1, b2, b3, b4 = p.bonuses
    w0, w1, w2, w3, w4 = b0 + t0, b1 + t1, b2 + t2, b3 + t3, b4 + t4
    reserved = p._reserved_bits
    if reserved is None:  # memoised on the seat; apply_legal hands it on while the reserve stays
        reserved = 0
        for cid, _ in p.reserved:
            reserved |= tables.bit[cid]
        p._reserved_bits = reserved
    candidates = state._market_bits  # market_bits(state, tables), read here when memoised
    if candidates is None:
        candidates = market_bits(state, tables)
    candidates |= reserved
    a0, a1, a2, a3, a4 = tables.afford
    if (w0 | w1 | w2 | w3 | w4 | jokers) >> 5:
        # A count below 0 or above 31, which no game reaches (a corrupt state
        # from from_dict): every candidate, card by card.
        cheap, reach = 0, candidates
    elif jokers == 0 and total <= LIMIT:
        # Without jokers a card is affordable exactly when bonuses and gems
        # cover every colour: one mask for all cards. The default payment is
        # then the only one, and only a Time Stone can overflow the hand.
        cheap = a0[w0] & a1[w1] & a2[w2] & a3[w3] & a4[w4] & candidates
        if after is None and not cheap & tables.stones:
            # The common case: each affordable card's plain purchase and nothing more
            # (no Time Stone to gain, no tile choice), in the order of their texts.
            buy = tables.buy
            plain: list[Move] = []
            while cheap:
                low = cheap & -cheap
                cheap ^= low
                plain.append(buy[low])
            return plain
        reach = 0
    else:
        # Jokers cover shortfalls: these masks only narrow the candidates down.
        cheap = 0
        reach = (a0[w0 + jokers] & a1[w1 + jokers] & a2[w2 + jokers] & a3[w3 + jokers]
                 & a4[w4 + jokers] & candidates)
    may_gain = time_stone == 0 and state.supply[TIME] > 0  # M-TIME-1 (only Marvel cards bring it)
    card = tables.card
    out: list[Move] = []
    while cheap:
        low = cheap & -cheap
        cheap ^= low
        cid, colour, move, stone = card[low]
        if stone and may_gain:
            _add_tile_choices(out, _buy_card(v, cid, move, p, total, 1), after, colour)
        elif after is not None and after[colour] is not None:
            out.extend(move.with_suffix("", t) for t in after[colour])  # type: ignore[union-attr]
        else:
            out.append(move)
    if not reach:
        out.sort()
        return out
    costs = v.costs
    memo = tables.buys
    while reach:
        low = reach & -reach
        reach ^= low
        cid, colour, move, stone = card[low]
        # _buy_card written out (this runs for every card within reach of a hand
        # holding jokers): B-BUY-1, bonuses first, then gems in hand, then jokers.
        c0, c1, c2, c3, c4 = costs[cid]
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
        gain = 1 if stone and may_gain else 0
        overflow = total - (n0 + n1 + n2 + n3 + n4 + short) + gain - LIMIT
        moves: Sequence[Move]  # every way to buy the card (B-BUY-1), its tile choices aside
        if short == jokers and overflow <= 0:  # no joker to spare, nothing to give back
            moves = (move,)
        else:
            key = (cid, n0, n1, n2, n3, n4, jokers - short, held if overflow > 0 else None)
            found = memo.get(key)
            if found is None:
                found = _buy_options(v, cid, (n0, n1, n2, n3, n4), short, held, gain, overflow)
                bounded(memo)
                memo[key] = found
            moves = found
        q = None if after is None else after[colour]
        if q is None:
            out.extend(moves)
        else:
            out.extend(m.with_suffix(m.ret, t) for m in moves for t in q)
    out.sort()
    return out


def _add_tile_choices(out: list[Move], moves: Sequence[Move],
                      after: tuple[list[str] | None, ...] | None, colour: int) -> None:
    """``moves`` (buying a card of ``colour``) into ``out``, each once per tile
    choice when the purchase meets two tiles or more (B-NOBLE-2)."""
    q = None if after is None else after[colour]
    if q is None:
        out.extend(moves)
    else:
        out.extend(m.with_suffix(m.ret, t) for m in moves for t in q)


def _buy_card(v: Variant, cid: str, move: Move, p: Player, total: int, gain: int) -> Sequence[Move]:
    """Every way to buy ``cid`` (``move`` is the plain purchase), or none when it
    is out of reach (B-BUY-1)."""
    held = p.tokens
    jokers = held[JOKER]
    t0, t1, t2, t3, t4 = held[:5]
    b0, b1, b2, b3, b4 = p.bonuses
    c0, c1, c2, c3, c4 = v.costs[cid]
    # B-BUY-1: bonuses first, then gems in hand, then jokers for the rest
    # (unrolled over the five colours: this runs for every card within reach)
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
        return ()
    overflow = total - (n0 + n1 + n2 + n3 + n4 + short) + gain - LIMIT
    if short == jokers and overflow <= 0:  # no joker to spare, nothing to give back
        return (move,)
    memo = TABLES[v.name].buys
    key = (cid, n0, n1, n2, n3, n4, jokers - short, held if overflow > 0 else None)
    moves = memo.get(key)
    if moves is None:
        moves = _buy_options(v, cid, (n0, n1, n2, n3, n4), short, held, gain, overflow)
        bounded(memo)
        memo[key] = moves
    return moves


def _buy_options(v: Variant, cid: str, paid: tuple[int, ...], deficit: int,
                 held: tuple[int, ...], gain: int, overflow: int) -> list[Move]:
    """Every payment (and, when a Time Stone overflows the hand, every return)
    for buying an affordable card; tile choices are added by the caller."""
    out = []
    for pay in pay_options(v, paid, held[JOKER] - deficit):
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
            rets = return_options(v, tuple(after), overflow)
        for r in rets:
            out.append(make_move("buy", card=cid, pay=pay, ret=r))
    return out


# --- applying a move -----------------------------------------------------------

Market = tuple[tuple["str | None", ...], ...]
Decks = tuple[tuple[str, ...], ...]


def _replace_in_market(state: State, cid: str) -> tuple[Market, Decks, str | None]:
    """B-MARKET-1: a card leaving the market is replaced from its deck, in its
    slot; also returns the card that comes in."""
    level = int(cid[0]) - 1
    row = list(state.market[level])
    deck = state.decks[level]
    slot = row.index(cid)
    decks = state.decks
    new: str | None = None
    if deck:
        new = row[slot] = deck[0]
        decks = decks[:level] + (deck[1:],) + decks[level + 1:]
    else:
        row[slot] = None
    market = state.market[:level] + (tuple(row),) + state.market[level + 1:]
    return market, decks, new


def _paid(cost: tuple[int, ...], bonuses: tuple[int, ...], held: tuple[int, ...],
          pay: tuple[int, ...]) -> tuple[int, int, int, int, int, int]:
    """B-BUY-1: the gems of each colour and the jokers a purchase spends, when the
    ``J:`` part (``pay``) spends jokers instead of some gems. Unrolled over the
    five colours: a third of all moves are purchases."""
    c0, c1, c2, c3, c4 = cost
    b0, b1, b2, b3, b4 = bonuses
    t0, t1, t2, t3, t4 = held[:5]
    p0, p1, p2, p3, p4 = pay
    jokers = p0 + p1 + p2 + p3 + p4
    g0 = c0 - b0
    if g0 <= 0:
        g0 = 0
    elif g0 > t0:
        jokers += g0 - t0
        g0 = t0
    g1 = c1 - b1
    if g1 <= 0:
        g1 = 0
    elif g1 > t1:
        jokers += g1 - t1
        g1 = t1
    g2 = c2 - b2
    if g2 <= 0:
        g2 = 0
    elif g2 > t2:
        jokers += g2 - t2
        g2 = t2
    g3 = c3 - b3
    if g3 <= 0:
        g3 = 0
    elif g3 > t3:
        jokers += g3 - t3
        g3 = t3
    g4 = c4 - b4
    if g4 <= 0:
        g4 = 0
    elif g4 > t4:
        jokers += g4 - t4
        g4 = t4
    return g0 - p0, g1 - p1, g2 - p2, g3 - p3, g4 - p4, jokers


def apply_legal(state: State, move: Move) -> State:
    """The state after ``move``, which the caller knows is in ``legal_moves(state)``.

    Nothing is checked here: an illegal move gives a corrupt state. Everything
    outside the engine goes through the validating ``apply`` (``engine.play``).
    The new state shares every part that did not change with ``state``, and is
    handed what was memoised about those parts (its market, the seat's reserve
    and tiles).
    """
    v = state.variant
    n = state.n
    seat = state.ply % n
    p = state.players[seat]
    plan = PLANS.get(move)
    if plan is None:
        plan = move_plan(v, move)
    kind, cid, deck_level, tile, change, pay = plan
    d0, d1, d2, d3, d4, d5, d6 = change  # tokens the seat takes less those it gives back
    market, decks, tiles = state.market, state.decks, state.tiles
    market_bits, reserves = state._market_bits, state._reserves
    reserved, cards, bonuses = p.reserved, p.cards, p.bonuses
    points, icons, avengers = p.points, p.icons, state.avengers
    tile_memo = p._tile_memo  # still true while the bonuses and the tiles stay

    if kind == "buy":
        assert cid is not None
        card = v.cards[cid]
        for k, r in enumerate(reserved):
            if r[0] == cid:
                reserved = reserved[:k] + reserved[k + 1:]
                break
        else:
            market, decks, market_bits, reserves = _leave_market(state, cid)
        g0, g1, g2, g3, g4, jokers = _paid(card.cost, bonuses, p.tokens, pay)
        d0 -= g0
        d1 -= g1
        d2 -= g2
        d3 -= g3
        d4 -= g4
        d5 -= jokers
        if gains_time_stone(state, p, cid):  # M-TIME-1
            d6 += 1
        cards = cards + (cid,)
        b = list(bonuses)
        b[card.color] += 1
        bonuses = tuple(b)
        points += card.points
        icons += card.avengers
        if v.avengers and icons >= 3 and avengers != seat:  # M-AVENGERS-1, M-AVENGERS-2
            if avengers is None or icons > state.players[avengers].icons:
                avengers = seat
        tile_memo = None
    elif kind == "reserve":
        if cid is not None:
            market, decks, market_bits, reserves = _leave_market(state, cid)
            reserved = reserved + ((cid, False),)
        else:
            level = deck_level - 1  # type: ignore[operator]
            deck = decks[level]
            reserved = reserved + ((deck[0], True),)  # B-RESERVE-3: blind
            decks = decks[:level] + (deck[1:],) + decks[level + 1:]
            if len(deck) == 1 and reserves is not None:  # the deck is gone
                reserves = tuple(m for m in reserves if m.deck != deck_level)
        if state.supply[JOKER] > 0:  # B-RESERVE-1
            d5 += 1
    t0, t1, t2, t3, t4, t5, t6 = p.tokens
    s0, s1, s2, s3, s4, s5, s6 = state.supply
    tokens = (t0 + d0, t1 + d1, t2 + d2, t3 + d3, t4 + d4, t5 + d5, t6 + d6)
    supply = (s0 - d0, s1 - d1, s2 - d2, s3 - d3, s4 - d4, s5 - d5, s6 - d6)

    ptiles = p.tiles
    if tile is None and tiles:
        if tile_memo is None or tile_memo[0] is not tiles:
            tile_memo = (tiles, tile_info(state, bonuses))
        met = tile_memo[1][0]
        if len(met) == 1:
            tile = met[0]
    if tile is not None:  # B-NOBLE-1 / M-LOCATION-1
        tiles = tuple(t for t in tiles if t != tile)
        ptiles = ptiles + (tile,)
        points += v.tiles[tile].points
        tile_memo = None

    # Built slot by slot rather than through __init__: one call less per
    # object, on the path every move takes.
    player = _new_player(Player)
    player.tokens, player.bonuses, player.points, player.cards = tokens, bonuses, points, cards
    player.reserved, player.tiles, player.icons, player._tile_memo = reserved, ptiles, icons, tile_memo
    player._reserved_bits = p._reserved_bits if reserved is p.reserved else None
    seats = list(state.players)
    seats[seat] = player
    passes = state.passes + 1 if kind == "pass" else 0
    nxt = _new_state(State)
    nxt.variant, nxt.n, nxt.ply, nxt.supply, nxt.decks, nxt.market = v, n, state.ply + 1, supply, decks, market
    nxt.tiles, nxt.players, nxt.passes, nxt.end_triggered = tiles, tuple(seats), passes, state.end_triggered
    nxt.over, nxt.reason, nxt.avengers = False, None, avengers
    nxt._legal = nxt._index = None
    nxt._market_bits, nxt._reserves = market_bits, reserves
    if passes or nxt.end_triggered or points + (3 if avengers == seat else 0) >= v.target_points:
        _end_of_turn(nxt, seat)
    elif seat == n - 1 and nxt.ply >= v.round_limit * n:
        # No pass, no end triggered and a score (score()) below the target, which
        # both ends need: all _end_of_turn could do is end the last round.
        nxt.over, nxt.reason = True, EndReason.ROUND_LIMIT  # B-END-3
    return nxt


_new_player = Player.__new__
_new_state = State.__new__


def _leave_market(state: State, cid: str) -> tuple[Market, Decks, int | None, tuple[Move, ...] | None]:
    """The market and decks once ``cid`` leaves the market (B-MARKET-1), and the
    state's market memos brought up to date (when it has them)."""
    market, decks, new = _replace_in_market(state, cid)
    bits, reserves = state._market_bits, state._reserves
    if bits is not None or reserves is not None:
        tables = TABLES[state.variant.name]
        if bits is not None:
            bits ^= tables.bit[cid] | (tables.bit[new] if new is not None else 0)
        if reserves is not None:
            kept = list(reserves)
            kept.remove(tables.reserve[cid])
            if new is not None:
                insort(kept, tables.reserve[new])
            if new is not None and not decks[int(cid[0]) - 1]:  # its last card came up: the deck is gone
                level = int(cid[0])
                kept = [m for m in kept if m.deck != level]
            reserves = tuple(kept)
    return market, decks, bits, reserves


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
