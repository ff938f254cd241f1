"""A search bot: information-set Monte Carlo tree search (single observer).

The bot sees only its seat's view. Every playout deals the cards that view hides
again (:class:`engine.sampling.HiddenSampler`: the decks' order, the other seats'
blind reservations), walks one tree shared by all those deals, whose nodes are
the moves played so far, and scores where it ends. So the tree is a tree of what
the seat knows, never of the true hidden cards, which it is never given.

- Selection: UCB1 over the children that are legal in this deal, with each
  child's *availability* (how often it could have been chosen) in place of its
  parent's visits, as information-set MCTS does; moves enter a node best-first by a
  short heuristic, one more as its visits grow (progressive widening), so that a
  budget of a few hundred playouts is spent on sensible moves.
- Playout: up to ``depth`` plies of the same heuristic (a little noise breaks ties),
  then the position is scored: a finished game gives each winner an equal share of
  1; an unfinished one a share by each seat's points, cards, tokens and progress
  towards nobles or locations (and, in Splendor: Marvel, the colours and the Time
  Stone the Infinity Gauntlet needs, M-END-1).
- Each seat maximises its own share (the players are not assumed to collude), so
  the same code plays 2, 3 and 4 players.

The tree is a :class:`Search`, which the bot grows and ranks the root's moves of;
a game's review (``engine.review``) grows one too, and reads from its root each
move's mean share of every seat.

The budget is a number of playouts (deterministic under the bot's seed) or a
number of seconds measured by a clock the caller passes (``time.perf_counter`` by
default).
"""

from __future__ import annotations

import math
import random
import time
from dataclasses import dataclass
from typing import Callable, Container, Sequence

from ..memos import move_plan
from ..moves import Move
from ..results import BoardView
from ..rules import apply_legal, legal_index, legal_moves, outcome
from ..sampling import HiddenSampler
from ..state import State, score
from ..variants import JOKER, TIME
from .base import Bot

DEFAULT_PLAYOUTS = 400
EXPLORATION = 0.7
DEPTH = 10
NOISE = 0.15  # how much a playout's heuristic is blurred, in its own units


class _Node:
    __slots__ = ("mover", "visits", "avail", "reward", "totals", "children", "order")

    def __init__(self, mover: int, seats: int) -> None:
        self.mover = mover  # the seat whose move led here
        self.visits = 0
        self.avail = 0
        self.reward = 0.0  # summed share of the mover
        self.totals = [0.0] * seats  # summed share of every seat
        self.children: dict[Move, _Node] = {}
        self.order: list[Move] | None = None  # candidate moves, best first


@dataclass(frozen=True)
class RootChild:
    """What a search found of one move from its root."""

    move: Move
    visits: int
    shares: tuple[float, ...]  # the mean share of one win of each seat over its playouts


class Search:
    """One tree grown from a seat's view: each :meth:`playout` deals the hidden
    cards again with ``rng`` and walks the tree down to a new leaf.

    ``judge`` scores the position where a playout stops, one share of one win a
    seat (:func:`shares` unless told).
    """

    def __init__(
        self,
        view: BoardView,
        rng: random.Random,
        *,
        depth: int = DEPTH,
        exploration: float = EXPLORATION,
        judge: Callable[[State], list[float]] | None = None,
    ) -> None:
        self.sampler = HiddenSampler(view)
        self.rng = rng
        self.depth = depth
        self.exploration = exploration
        self.judge = judge or shares
        self.root = _Node(-1, self.sampler.n)

    def ranked(self, allowed: Container[str] | None = None) -> list[Move]:
        """The root's moves, the one to play first: most visits, then the mover's
        mean share, then the text last in canonical order."""
        root = self.root
        ranked = sorted(
            ((child.visits, child.reward / child.visits if child.visits else 0.0, str(m), m)
             for m, child in root.children.items() if allowed is None or str(m) in allowed),
            reverse=True,
        )
        return [m for *_, m in ranked]

    def child(self, move: Move) -> RootChild | None:
        """The root's child reached by ``move``, or ``None`` if no playout went there."""
        node = self.root.children.get(move)
        if node is None or not node.visits:
            return None
        return RootChild(move, node.visits, tuple(t / node.visits for t in node.totals))

    def playout(self, through: Move | None = None) -> None:
        """One playout on a fresh deal. ``through`` (a root move legal in every
        deal, as the seat's own moves are) is its first move, whatever the
        progressive widening and the selection would choose: a review weighs
        moves the heuristic ranks too low for the bot to try."""
        rng = self.rng
        state = self.sampler.sample(rng)
        if through is not None and through not in legal_index(state):
            raise ValueError(f"{through} is not a legal move of this seat here")
        root = node = self.root
        path: list[_Node] = []
        c = self.exploration
        while not state.over:
            legal = legal_moves(state)
            if node.order is None:
                node.order = ordered(state, legal)
                candidates = node.order
            else:
                index = legal_index(state)
                candidates = [m for m in node.order if m in index]
                if len(candidates) < len(legal):  # moves this deal allows and no earlier one did
                    known = set(node.order)
                    fresh = [m for m in ordered(state, legal) if m not in known]
                    node.order.extend(fresh)
                    candidates.extend(fresh)
            width = 2 + int(math.sqrt(node.visits))
            candidates = candidates[:width]
            chosen: Move | None = None
            if node is root and through is not None:
                if through not in candidates:
                    candidates.append(through)
                sent = node.children.get(through)
                if sent is None:
                    chosen = through
                else:  # sent down ``through``; the moves tried before were available too
                    for m in candidates:
                        other = node.children.get(m)
                        if other is not None:
                            other.avail += 1
                    node = sent
                    path.append(node)
                    state = apply_legal(state, through)
                    continue
            if chosen is None:
                for m in candidates:
                    if m not in node.children:
                        chosen = m
                        break
            if chosen is not None:
                child = _Node(state.ply % state.n, state.n)
                node.children[chosen] = child
                for m in candidates:
                    other = node.children.get(m)
                    if other is not None:
                        other.avail += 1
                state = apply_legal(state, chosen)
                path.append(child)
                node = child
                break
            best = None
            best_value = -1.0
            for m in candidates:
                child = node.children[m]
                child.avail += 1
                value = child.reward / child.visits + c * math.sqrt(math.log(child.avail) / child.visits)
                if value > best_value:
                    best, best_value = m, value
            assert best is not None
            node = node.children[best]
            path.append(node)
            state = apply_legal(state, best)
        result = self._rollout(state, rng)
        root.visits += 1
        seats = range(len(result))
        for n in path:
            n.visits += 1
            n.reward += result[n.mover]
            totals = n.totals
            for s in seats:
                totals[s] += result[s]

    def _rollout(self, state: State, rng: random.Random) -> list[float]:
        for _ in range(self.depth):
            if state.over:
                break
            legal = legal_moves(state)
            if len(legal) == 1:
                state = apply_legal(state, legal[0])
                continue
            scored = _scores(state, legal)
            best = legal[0]
            best_value = -1e9
            for m, value in zip(legal, scored):
                value += rng.random() * NOISE
                if value > best_value:
                    best, best_value = m, value
            state = apply_legal(state, best)
        return self.judge(state)


class ISMCTSBot(Bot):
    """Information-set MCTS over deals that agree with the seat's view."""

    name = "ismcts"

    def __init__(
        self,
        seed: int = 0,
        playouts: int | None = None,
        seconds: float | None = None,
        clock: Callable[[], float] | None = None,
        depth: int = DEPTH,
        exploration: float = EXPLORATION,
    ) -> None:
        super().__init__(seed)
        if playouts is not None and (not isinstance(playouts, int) or playouts < 1):
            raise ValueError(f"playouts must be a positive integer, not {playouts!r}")
        if seconds is not None and not seconds > 0:
            raise ValueError(f"seconds must be positive, not {seconds!r}")
        if playouts is None and seconds is None:
            playouts = DEFAULT_PLAYOUTS
        self.playouts = playouts
        self.seconds = seconds
        self.clock = clock or time.perf_counter
        self.depth = depth
        self.exploration = exploration
        self.last_playouts = 0  # how many the last choice ran (for the arena's figures)

    def choose(self, view: BoardView, legal: Sequence[str]) -> str:
        seat = view["seat"]
        if seat is None:
            raise ValueError("a bot plays a seat; this is a spectator's view")
        if len(legal) == 1:
            self.last_playouts = 0
            return legal[0]
        search = Search(view, self.rng, depth=self.depth, exploration=self.exploration)
        deadline = None if self.seconds is None else self.clock() + self.seconds
        limit = self.playouts
        done = 0
        while True:
            search.playout()
            done += 1
            if limit is not None and done >= limit:
                break
            if deadline is not None and self.clock() >= deadline:
                break
        self.last_playouts = done
        ranked = search.ranked(set(legal))
        return str(ranked[0]) if ranked else legal[0]


# --- the heuristic: which moves look good, and how good a position is -----------


def ordered(state: State, legal: Sequence[Move]) -> list[Move]:
    """``legal`` best first by the heuristic (ties in canonical order): the order
    in which moves enter a node of the tree."""
    scored = _scores(state, legal)
    order = sorted(range(len(legal)), key=lambda k: (-scored[k], k))
    return [legal[k] for k in order]


def _scores(state: State, legal: Sequence[Move]) -> list[float]:
    """A one-ply value for each legal move of the seat to move: buy what scores,
    take the tokens the cheapest good cards lack, reserve seldom."""
    v = state.variant
    seat = state.ply % state.n
    p = state.players[seat]
    bonus = p.bonuses
    tokens = p.tokens
    cards = v.cards
    gold = tokens[JOKER]
    want = [0.0] * 5
    for row in state.market:
        for cid in row:
            if cid is not None:
                _add_want(want, cards[cid].cost, cards[cid].points, bonus, tokens, gold)
    for cid, _ in p.reserved:
        _add_want(want, cards[cid].cost, cards[cid].points, bonus, tokens, gold, 1.5)
    tile_want = [0.0] * 5
    for tid in state.tiles:
        req = v.tiles[tid].requires
        for i in range(5):
            if bonus[i] < req[i]:
                tile_want[i] += 0.5
    marvel = v.avengers
    if marvel:
        for i in range(5):
            if bonus[i] == 0:
                tile_want[i] += 0.8
    held = sum(tokens)
    reserved = len(p.reserved)
    out: list[float] = []
    for m in legal:
        kind, cid, _, tile, change, _ = move_plan(v, m)
        if kind == "buy":
            assert cid is not None
            card = cards[cid]
            value = 50.0 + 12 * card.points + 3 * tile_want[card.color] + want[card.color]
            value -= 2 * len(m.pay)
            if tile:
                value += 12 * v.tiles[tile].points
            if marvel:
                value += 4 * card.avengers + (8 if card.time_stone and not tokens[TIME] else 0)
        elif kind == "take":
            value = 0.0
            for i in range(5):
                d = change[i]
                if d > 0:
                    value += d * (want[i] + 0.05)
                elif d < 0:
                    value += d * (want[i] + 0.3)
            if change[JOKER] < 0:
                value -= 1.0
            if held + sum(change) > 10:
                value -= 1.0
        elif kind == "reserve":
            if cid is not None:
                card = cards[cid]
                value = 0.3 + 0.5 * card.points
            else:
                value = 0.1
            if reserved >= 2:
                value -= 2.0
            value -= 0.4 * sum(1 for d in change if d < 0)
        else:
            value = -5.0
        out.append(value)
    return out


def _add_want(want: list[float], cost: tuple[int, ...], points: int, bonus: tuple[int, ...],
              tokens: tuple[int, ...], gold: int, weight: float = 1.0) -> None:
    d0 = cost[0] - bonus[0] - tokens[0]
    d1 = cost[1] - bonus[1] - tokens[1]
    d2 = cost[2] - bonus[2] - tokens[2]
    d3 = cost[3] - bonus[3] - tokens[3]
    d4 = cost[4] - bonus[4] - tokens[4]
    short = [d0 if d0 > 0 else 0, d1 if d1 > 0 else 0, d2 if d2 > 0 else 0,
             d3 if d3 > 0 else 0, d4 if d4 > 0 else 0]
    missing = short[0] + short[1] + short[2] + short[3] + short[4]
    if missing == 0:
        return
    worth = weight * (points + 1.0) / (max(0, missing - gold) + 1.0) / missing
    for i in range(5):
        if short[i]:
            want[i] += worth * short[i]


def value_of(state: State, seat: int) -> float:
    """How well ``seat`` stands, in about points: points, then the cards, tokens,
    reservations and tiles that lead to more."""
    v = state.variant
    p = state.players[seat]
    bonus = p.bonuses
    tokens = p.tokens
    value = score(state, seat) + 0.45 * sum(bonus) + 0.12 * sum(tokens[:5]) + 0.2 * tokens[JOKER]
    for tid in state.tiles:
        req = v.tiles[tid].requires
        need = sum(req)
        if need:
            missing = sum(max(0, req[i] - bonus[i]) for i in range(5))
            value += 0.6 * v.tiles[tid].points * (1.0 - missing / need) ** 2
    cards = v.cards
    for cid, _ in p.reserved:
        card = cards[cid]
        cost = card.cost
        missing = sum(max(0, cost[i] - bonus[i] - tokens[i]) for i in range(5)) - tokens[JOKER]
        value += 0.3 * card.points / (1.0 + max(0, missing))
    if v.avengers:
        value += 0.7 * sum(1 for b in bonus if b) + (2.0 if tokens[TIME] else 0.0) + 0.3 * p.icons
    return value


def shares(state: State) -> list[float]:
    """Each seat's share of one win: exact at the end (a shared first place is
    split), else from :func:`value_of`, closer to even the closer the values."""
    n = state.n
    if state.over:
        result = outcome(state)
        assert result is not None
        winners = result["winners"]
        return [1.0 / len(winners) if s in winners else 0.0 for s in range(n)]
    values = [value_of(state, s) for s in range(n)]
    top = max(values)
    weights = [math.exp((x - top) / 2.5) for x in values]
    total = sum(weights)
    return [w / total for w in weights]
