"""A finished game reviewed by the search bot, one position at a time.

For the move played in a position, :func:`review_position` estimates each seat's
chance of winning before it (under the bot's best play) and after it, names the
move the bot prefers when it differs, and how much the mover's chance fell.

The search sees what the mover saw and nothing more: it grows one
:class:`engine.bots.ismcts.Search` from ``observe(state, mover)``, whose playouts
deal the hidden cards (the decks' order, the other seats' blind reservations)
again every time. A review that knew the later draws would blame moves that were
right when they were played.

The tree is the bot's; only the root is shared out differently. The bot spends
its playouts where they pay off in play (UCB1), which leaves a move it looked at
early and dropped, or never widened to, with too few playouts to say how much
worse it was; and a move's mean over few playouts is the noisiest figure there
is. So a review sends every playout through a root move it chooses:

- the played move always, a quarter of the budget in all, however low the
  heuristic ranks it;
- the rest by sequential halving over the heuristic's best moves and the moves
  that stop another seat's noble (:func:`_guards`): each round gives every move
  still in the running the same number of playouts and keeps the better half,
  until one is left. That one, the bot's preferred move, is the most visited
  child besides the played move, as the bot's own rule would have it, and its
  mean and the played move's come from about as many playouts each.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

from .bots.ismcts import Search, ordered, shares, value_of
from .moves import Move
from .notation import parse_move
from .observation import observe
from .play import apply
from .rules import default_payment, legal_moves, qualifying_tiles
from .sampling import determinize
from .state import State, score
from .variants import JOKER

# The budget a review runs at unless told: the largest round number of playouts
# that keeps a position under 0.8 s of one core, so that a 60-move game takes
# under a minute (scripts/bench_review.py measures it).
DEFAULT_REVIEW_PLAYOUTS = 1000

# Plies of heuristic play after the tree's leaf before a position is scored. The
# bot plays 10; a review plays 4 and scores with calibrated chances (see
# chances), because near the end ten plies of the heuristic finish the game with
# one win or loss, and the spread of so many all-or-nothing outcomes drowns a
# difference of a tenth between two moves at the budget a review can spend.
REVIEW_DEPTH = 4

# The heuristic's best moves that a review weighs, besides the played move and
# the guards: as many as the bot's own widening admits at the root after about
# 40 playouts, the most of them a round of halving can give each a fair share.
WIDTH = 8


@dataclass(frozen=True)
class PositionReview:
    """What the search bot thinks of one move played in one position.

    ``before`` and ``after`` hold one chance of winning per seat (seat order), each
    tuple summing to 1.
    """

    before: tuple[float, ...]  # each seat's chance before the move, under the bot's best play
    after: tuple[float, ...]  # each seat's chance after the move actually played
    best: str | None  # canonical text of the bot's preferred move when it is not the played one
    drop: float  # max(0, before[mover] - after[mover])


def review_position(state: State, move: str | Move, *, playouts: int, seed: int) -> PositionReview:
    """The search bot's review of ``move`` (a :class:`Move` or its canonical text)
    played in ``state``, from ``playouts`` playouts drawn with ``seed``.

    The same arguments give the same review, and so do two states that differ only
    in what the mover cannot see. An illegal move raises :class:`IllegalMove`
    naming the rule; a finished game or a budget below one playout raises
    ``ValueError``.
    """
    if isinstance(playouts, bool) or not isinstance(playouts, int) or playouts < 1:
        raise ValueError(f"playouts must be a positive integer, not {playouts!r}")
    if state.over:
        raise ValueError("the game is over: there is no move to review")
    played = move if isinstance(move, Move) else parse_move(state, move)
    apply(state, played)  # the one validation: IllegalMove names the rule
    mover = state.seat
    view = observe(state, mover)
    # The mover's moves, and the heuristic's order of them, are the same in every
    # deal of what the mover cannot see: any deal will do to list them.
    deal = determinize(view, random.Random(seed))
    others: list[Move] = []
    for m in [*ordered(deal, legal_moves(deal))[:WIDTH], *_guards(deal)]:
        if m != played and m not in others:
            others.append(m)
    search = Search(view, random.Random(seed), depth=REVIEW_DEPTH, judge=chances)
    _halve(search, mover, played, others, playouts)
    mine = search.child(played)
    assert mine is not None  # the first playout goes through it
    after = _normalised(mine.shares)
    ranked = [m for m in search.ranked() if m != played]
    rival = search.child(ranked[0]) if ranked else None
    if rival is None or rival.shares[mover] <= mine.shares[mover]:
        return PositionReview(before=after, after=after, best=None, drop=0.0)
    before = _normalised(rival.shares)
    return PositionReview(before=before, after=after, best=rival.move.text,
                          drop=max(0.0, before[mover] - after[mover]))


def _halve(search: Search, mover: int, played: Move, others: list[Move], playouts: int) -> None:
    """Spends ``playouts`` through the root's moves: a quarter through ``played``,
    spread over the rounds, and the rest by sequential halving over ``others``
    (ranked as the bot ranks: most playouts, then the mover's mean); what the
    rounds leave over goes to ``played`` and the last move standing in turn.
    ``played`` has its quarter, at least one playout, whatever the budget."""
    alive = list(others)
    rounds = max(1, math.ceil(math.log2(len(alive)))) if alive else 1
    reserve = -(-playouts // 4) if alive else playouts
    mine = theirs = 0

    def standing(m: Move) -> tuple[int, float]:
        child = search.child(m)
        return (0, 0.0) if child is None else (child.visits, child.shares[mover])

    for r in range(rounds):
        for _ in range((reserve - mine) // (rounds - r)):
            search.playout(through=played)
            mine += 1
        if not alive:
            continue
        each = (playouts - reserve - theirs) // (rounds - r) // len(alive)
        for _ in range(each):
            for m in alive:
                search.playout(through=m)
                theirs += 1
        # sorted() keeps equals in the heuristic's order
        alive = sorted(alive, key=standing, reverse=True)[:math.ceil(len(alive) / 2)]
    last = [played, *alive[:1]]
    for k in range(playouts - mine - theirs):
        search.playout(through=last[k % len(last)])


def chances(state: State) -> list[float]:
    """Each seat's chance of winning where a review's playout stops: exact at the
    end (a shared first place is split), else from
    :func:`engine.bots.ismcts.value_of` with a temperature that depends on how
    near the end the game is.

    The bot's own :func:`engine.bots.ismcts.shares` only has to rank moves; a
    review shows its figures as chances, so they are fitted to how games between
    the playouts' heuristic end: in base games a lead in value counts for less
    while the leader is far from the points that end the game (B-END-1), and in
    Splendor: Marvel, which ends at the Infinity Gauntlet (M-END-1) rather than
    on points, for much less throughout.

    The temperatures are maximum-likelihood fits, by the leader's points, to the
    winners of 2,000 two-player and 1,000 three- and four-player base games and
    1,000 two-player Marvel games played by that heuristic: about 4 to 5 early
    in a base game, 2 near 15 points (3 and 4 players a little lower), and 6 to
    12 throughout a Marvel game (the bot's 2.5 fits there worse than even odds).
    """
    if state.over:
        return shares(state)
    v = state.variant
    if v.end == "points":
        lead = max(score(state, s) for s in range(state.n)) * 15.0 / v.target_points
        temperature = min(4.0, max(2.0, 5.0 - 0.25 * lead))
    else:
        temperature = 8.0
    values = [value_of(state, s) for s in range(state.n)]
    top = max(values)
    weights = [math.exp((x - top) / temperature) for x in values]
    total = sum(weights)
    return [w / total for w in weights]


def _normalised(shares: tuple[float, ...]) -> tuple[float, ...]:
    """``shares`` scaled to sum to 1 as closely as floats do: every playout's
    shares sum to 1, but a mean of many drifts in the last bits."""
    total = sum(shares)
    if total <= 0:
        return tuple(1.0 / len(shares) for _ in shares)
    return tuple(x / total for x in shares)


def _guards(state: State) -> list[Move]:
    """The moves of the seat to move that take from the market (buy or reserve) a
    card another seat could buy on its next turn to be visited by a noble or a
    location (B-NOBLE-1, M-LOCATION-1). The heuristic seldom ranks such a defence
    high, and a review that never tried one could not tell that the moves which
    allow the visit are worse. Reads only what that seat sees."""
    v = state.variant
    cards = v.cards
    mover = state.seat
    threats: set[str] = set()
    for seat, p in enumerate(state.players):
        if seat == mover:
            continue
        visited = len(qualifying_tiles(state, p.bonuses))
        for row in state.market:
            for cid in row:
                if cid is None or cid in threats:
                    continue
                card = cards[cid]
                _, short = default_payment(card.cost, p.bonuses, p.tokens)
                if short > p.tokens[JOKER]:
                    continue
                bonuses = list(p.bonuses)
                bonuses[card.color] += 1
                if len(qualifying_tiles(state, tuple(bonuses))) > visited:
                    threats.add(cid)
    seen: set[tuple[str, str]] = set()
    out: list[Move] = []
    for m in legal_moves(state):  # sorted: the plainest form of each comes first
        if m.card in threats and (m.kind, m.card) not in seen:
            seen.add((m.kind, m.card))
            out.append(m)
    return out
