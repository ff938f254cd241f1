"""The pairing core of correspondence tournaments: pure, deterministic given a seed.

Three parts, the rules of each in docs/tournaments.md:

- Swiss rounds for tables of 2 to 4 seats (``swiss_round``), rules T-SWISS-*;
- standings with tiebreaks (``standings``), rules T-STAND-*;
- knockout brackets (``knockout_first_round``, ``knockout_next_round``,
  ``match_seats``, ``match_outcome``), rules T-KO-*.

No Django, no I/O, no clock, no global ``random``: every draw comes from a
``random.Random`` made from the seed given, so the same input always gives the
same answer. Player ids are ints (the Django side passes account ids).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations

import networkx as nx

PlayerId = int
Pair = frozenset[PlayerId]

MIN_SEATS = 2
MAX_SEATS = 4
# T-SWISS-SEARCH: the 3-4 seat search visits at most this many nodes of its
# backtracking tree, then improves the best partition found by swapping players
# between tables for at most SWAP_PASSES passes. Node count, not time, bounds it,
# so the answer never depends on the machine: 64 players take well under 2 s
# (docs/benchmarks.md, "Tournament pairing").
SEARCH_NODE_BUDGET = 3000
SWAP_PASSES = 4
# Below this many players left the search considers every companion for the top
# player's table (so small rounds are searched exhaustively); above, the nearest
# SEARCH_WINDOW in the order, widened once when none of them avoids a repeat.
EXACT_BELOW = 13
SEARCH_WINDOW = 9


class PairingError(ValueError):
    """An input the pairing rules cannot work with; ``rule`` names the rule."""

    def __init__(self, rule: str, message: str) -> None:
        super().__init__(f"{rule}: {message}")
        self.rule = rule
        self.message = message


# --- Swiss ------------------------------------------------------------------------------


@dataclass(frozen=True)
class SwissPlayer:
    """A player as the Swiss pairing sees them: tiebreaks compare higher-is-better,
    element by element (the standings give Buchholz, then prestige)."""

    id: PlayerId
    points: float
    tiebreaks: tuple[float, ...] = ()
    rating: float = 0.0


@dataclass(frozen=True)
class SwissRound:
    """A round's tables (each a tuple of player ids in ranking order, the tables from
    the top of the ranking down) and the player given the bye, if any."""

    tables: tuple[tuple[PlayerId, ...], ...]
    bye: PlayerId | None


def pair_key(a: PlayerId, b: PlayerId) -> Pair:
    """The key of an encounter in ``met``: the two ids, unordered."""
    return frozenset((a, b))


def ranking(players: Iterable[SwissPlayer], seed: int) -> list[SwissPlayer]:
    """T-SWISS-ORDER: players by points, then tiebreaks, then rating, all highest
    first; a seeded draw orders players equal in all three."""
    listed = sorted(players, key=lambda player: player.id)
    rng = random.Random(seed)
    draw = {player.id: rng.random() for player in listed}
    return sorted(
        listed,
        key=lambda p: (-p.points, tuple(-value for value in p.tiebreaks), -p.rating, draw[p.id]),
    )


def table_sizes(count: int, seats: int) -> list[int]:
    """T-SWISS-SIZES: as few tables as ``seats`` allows, their sizes within one of each
    other, the larger tables at the top. ``count`` excludes any bye."""
    if count == 0:
        return []
    tables = -(-count // seats)
    base, larger = divmod(count, tables)
    return [base + 1] * larger + [base] * (tables - larger)


def needs_bye(count: int, seats: int) -> bool:
    """T-SWISS-BYE: one player sits out when two-seat tables meet an odd count, or
    when a single player would be left (a table needs two)."""
    return count == 1 or (seats == 2 and count % 2 == 1)


def swiss_round(
    players: Sequence[SwissPlayer],
    *,
    met: Iterable[Pair] = (),
    had_bye: Iterable[PlayerId] = (),
    seats: int,
    seed: int,
) -> SwissRound:
    """The next Swiss round.

    T-SWISS-REPEAT first: no two players meet again while a pairing without repeats
    exists (exactly for two seats; for 3-4 seats within the bounded search,
    T-SWISS-SEARCH, which is exhaustive below EXACT_BELOW players). T-SWISS-GROUP
    second: tables hold players of equal points as far as the first rule allows.
    Then tables are formed from the top of the ranking (T-SWISS-ORDER), players
    close in it sitting together. T-SWISS-BYE: the lowest-ranked player who has not
    had a bye gets it, at most one per player.
    """
    if not MIN_SEATS <= seats <= MAX_SEATS:
        raise PairingError("T-SWISS-SEATS", f"a table has 2 to 4 seats, not {seats}")
    ids = [player.id for player in players]
    if len(set(ids)) != len(ids):
        raise PairingError("T-SWISS-PLAYERS", "a player is listed twice")
    if not players:
        return SwissRound(tables=(), bye=None)
    order = ranking(players, seed)
    already = set(had_bye)
    bye: PlayerId | None = None
    if needs_bye(len(order), seats):
        candidates = [player for player in reversed(order) if player.id not in already]
        if not candidates:
            raise PairingError("T-SWISS-BYE", "every player has had a bye; a second one is not allowed")
        bye = candidates[0].id
        order = [player for player in order if player.id != bye]
    met_pairs = {pair for pair in met if len(pair) == 2}
    if seats == 2:
        tables = _pair_two_seats(order, met_pairs)
    else:
        tables = _group_tables(order, table_sizes(len(order), seats), met_pairs)
    return SwissRound(tables=tables, bye=bye)


def _pair_two_seats(order: Sequence[SwissPlayer], met: set[Pair]) -> tuple[tuple[PlayerId, ...], ...]:
    """T-SWISS-REPEAT, T-SWISS-GROUP and closeness for two seats, as one maximum-weight
    perfect matching whose weights make each rule outweigh all the later ones together."""
    count = len(order)
    pairs = count // 2
    # closeness: count - distance in the order, at most count per table, so all the
    # tables' closeness together stays below one `same_points`; likewise below.
    same_points = pairs * count + 1
    no_repeat = pairs * (same_points + count) + 1
    graph: nx.Graph[int] = nx.Graph()
    graph.add_nodes_from(range(count))
    for i, j in combinations(range(count), 2):
        a, b = order[i], order[j]
        weight = count - (j - i)
        if a.points == b.points:
            weight += same_points
        if pair_key(a.id, b.id) not in met:
            weight += no_repeat
        graph.add_edge(i, j, weight=weight)
    matching = nx.max_weight_matching(graph, maxcardinality=True)
    tables = sorted(tuple(sorted(edge)) for edge in matching)
    return tuple(tuple(order[i].id for i in table) for table in tables)


Cost = tuple[int, int, int]
ZERO: Cost = (0, 0, 0)


def _plus(a: Cost, b: Cost) -> Cost:
    return (a[0] + b[0], a[1] + b[1], a[2] + b[2])


@dataclass
class _Search:
    """The bounded search for 3-4 seat tables over positions in the ranking."""

    points: list[float]
    met: list[list[bool]]
    budget: int
    nodes: int = 0
    best: list[tuple[int, ...]] | None = None
    best_cost: Cost | None = None
    chosen: list[tuple[int, ...]] = field(default_factory=list)

    def table_cost(self, table: Sequence[int]) -> Cost:
        """(repeats, pairs of unequal points, spread in the order) of one table."""
        repeats = unequal = spread = 0
        for i, j in combinations(table, 2):
            repeats += self.met[i][j]
            unequal += self.points[i] != self.points[j]
            spread += abs(j - i)
        return (repeats, unequal, spread)

    def run(self, remaining: list[int], sizes: tuple[int, ...], cost: Cost) -> None:
        """Extend the partition from the top remaining player; ``sizes`` are the table
        sizes still to fill, and the top player's table may take any of them."""
        if not remaining:
            if self.best_cost is None or cost < self.best_cost:
                self.best, self.best_cost = list(self.chosen), cost
            return
        if self.nodes >= self.budget and self.best is not None:
            return
        self.nodes += 1
        head, rest = remaining[0], remaining[1:]
        options = sorted(
            (table_cost, -size, companions)
            for size in set(sizes)
            for table_cost, companions in self.options(head, rest, size - 1)
        )
        for table_cost, negative_size, companions in options:
            total = _plus(cost, table_cost)
            # Costs only grow and the options are sorted: nothing later can beat the best.
            if self.best_cost is not None and total >= self.best_cost:
                break
            left = list(sizes)
            left.remove(-negative_size)
            self.chosen.append((head, *companions))
            taken = set(companions)
            self.run([index for index in rest if index not in taken], tuple(left), total)
            self.chosen.pop()
            if self.nodes >= self.budget and self.best is not None:
                return

    def options(self, head: int, rest: list[int], count: int) -> list[tuple[Cost, tuple[int, ...]]]:
        window = len(rest) if len(rest) < EXACT_BELOW else SEARCH_WINDOW
        found = self.scored(head, rest[:window], count)
        if found and found[0][0][0] > 0 and window < len(rest):
            found = self.scored(head, rest[: 2 * window], count)
        return found

    def scored(self, head: int, pool: list[int], count: int) -> list[tuple[Cost, tuple[int, ...]]]:
        found = [(self.table_cost((head, *companions)), companions) for companions in combinations(pool, count)]
        found.sort()
        return found

    def improve(self) -> None:
        """Swap players between tables while that lowers the total cost."""
        assert self.best is not None and self.best_cost is not None
        tables = [list(table) for table in self.best]
        costs = [self.table_cost(table) for table in tables]
        for _ in range(SWAP_PASSES):
            improved = False
            for a, b in combinations(range(len(tables)), 2):
                for x in range(len(tables[a])):
                    for y in range(len(tables[b])):
                        first, second = list(tables[a]), list(tables[b])
                        first[x], second[y] = second[y], first[x]
                        new_a, new_b = self.table_cost(first), self.table_cost(second)
                        if _plus(new_a, new_b) < _plus(costs[a], costs[b]):
                            tables[a], tables[b] = first, second
                            costs[a], costs[b] = new_a, new_b
                            improved = True
            if not improved:
                break
        self.best = [tuple(sorted(table)) for table in tables]


def _group_tables(
    order: Sequence[SwissPlayer], sizes: list[int], met: set[Pair]
) -> tuple[tuple[PlayerId, ...], ...]:
    """T-SWISS-SEARCH: 3-4 seat tables, depth-first from the top of the ranking, the
    top player's possible tables tried best first (fewest repeats, then fewest
    unequal points, then closest in the order), branches that cannot beat the best
    found cut, at most SEARCH_NODE_BUDGET nodes; then swaps between tables."""
    count = len(order)
    met_matrix = [[pair_key(order[i].id, order[j].id) in met for j in range(count)] for i in range(count)]
    search = _Search(points=[player.points for player in order], met=met_matrix, budget=SEARCH_NODE_BUDGET)
    search.run(list(range(count)), tuple(sizes), ZERO)
    search.improve()
    assert search.best is not None
    tables = sorted(search.best, key=lambda table: (-len(table), table))
    # Larger tables on top, as T-SWISS-SIZES says, each group in ranking order.
    return tuple(tuple(order[i].id for i in table) for table in tables)


def history(rounds: Iterable[RoundResult]) -> tuple[set[Pair], set[PlayerId]]:
    """The pairs who have met and the players who have had a bye, from played rounds."""
    met: set[Pair] = set()
    byes: set[PlayerId] = set()
    for played in rounds:
        for table in played.tables:
            for a, b in combinations(sorted(table.places), 2):
                met.add(pair_key(a, b))
        if played.bye is not None:
            byes.add(played.bye)
    return met, byes


# --- standings ----------------------------------------------------------------------------


@dataclass(frozen=True)
class TableResult:
    """One finished table: each player's place (1 is first; places may be shared) and
    the prestige points they scored."""

    places: Mapping[PlayerId, int]
    prestige: Mapping[PlayerId, int]


@dataclass(frozen=True)
class RoundResult:
    """A played round: its tables' results and the bye, if any."""

    tables: tuple[TableResult, ...]
    bye: PlayerId | None = None


@dataclass(frozen=True)
class Standing:
    """One line of the standings; ``rank`` starts at 1."""

    rank: int
    player: PlayerId
    points: float
    buchholz: float
    prestige: int
    rating: float

    def as_swiss_player(self) -> SwissPlayer:
        """The player for the next Swiss round: tiebreaks Buchholz, then prestige."""
        return SwissPlayer(self.player, self.points, (self.buchholz, float(self.prestige)), self.rating)


def standings(
    ratings: Mapping[PlayerId, float],
    rounds: Sequence[RoundResult],
    points_for_place: Callable[[int, int], float],
    *,
    seed: int,
) -> list[Standing]:
    """The standings after ``rounds``: T-STAND-POINTS, points by place, from
    ``points_for_place(place, table_size)`` (T-STAND-BYE: a bye is a first place at a
    table of the round's largest size, two when it had none); then T-STAND-BUCHHOLZ,
    the sum of the tournament points of every opponent met (once per table shared);
    then T-STAND-PRESTIGE, the prestige points scored; then rating; then a seeded draw.
    ``ratings`` lists every player of the tournament."""
    points = dict.fromkeys(ratings, 0.0)
    prestige = dict.fromkeys(ratings, 0)
    opponents: dict[PlayerId, list[PlayerId]] = {player: [] for player in ratings}
    for number, played in enumerate(rounds, start=1):
        largest = max((len(table.places) for table in played.tables), default=2)
        for table in played.tables:
            unknown = (set(table.places) | set(table.prestige)) - set(ratings)
            if unknown:
                raise PairingError("T-STAND-PLAYERS", f"round {number} names players not in the tournament: "
                                   f"{sorted(unknown)}")  # fmt: skip
            for player, place in table.places.items():
                points[player] += points_for_place(place, len(table.places))
                prestige[player] += table.prestige.get(player, 0)
                opponents[player].extend(other for other in table.places if other != player)
        if played.bye is not None:
            if played.bye not in ratings:
                raise PairingError("T-STAND-PLAYERS", f"round {number}'s bye {played.bye} is not in the tournament")
            points[played.bye] += points_for_place(1, largest)
    buchholz = {player: float(sum(points[other] for other in opponents[player])) for player in ratings}
    rng = random.Random(seed)
    draw = {player: rng.random() for player in sorted(ratings)}
    order = sorted(
        ratings,
        key=lambda p: (-points[p], -buchholz[p], -prestige[p], -ratings[p], draw[p]),
    )
    return [
        Standing(rank, player, points[player], buchholz[player], prestige[player], ratings[player])
        for rank, player in enumerate(order, start=1)
    ]


# --- knockout -------------------------------------------------------------------------------


@dataclass(frozen=True)
class KnockoutMatch:
    """Two players, the better seed first; ``low`` is None for a bye, which ``high``
    wins without playing."""

    high: PlayerId
    low: PlayerId | None


def knockout_seeds(ratings: Mapping[PlayerId, float], seed: int) -> list[PlayerId]:
    """T-KO-SEED: players by rating, highest first; a seeded draw orders equal ratings."""
    rng = random.Random(seed)
    draw = {player: rng.random() for player in sorted(ratings)}
    return sorted(ratings, key=lambda player: (-ratings[player], draw[player]))


def bracket_positions(size: int) -> list[int]:
    """T-KO-BRACKET: the seed numbers (from 1) in bracket order for a bracket of
    ``size`` (a power of two): 1 v size, and so on, halves mirrored so that seeds 1
    and 2 can meet only in the final, 1-4 only in the semi-finals, ... For 8:
    [1, 8, 4, 5, 2, 7, 3, 6]."""
    if size < 1 or size & (size - 1):
        raise PairingError("T-KO-BRACKET", f"a bracket's size is a power of two, not {size}")
    positions = [1]
    while len(positions) < size:
        total = 2 * len(positions) + 1
        positions = [seed for position in positions for seed in (position, total - position)]
    return positions


def knockout_first_round(ratings: Mapping[PlayerId, float], seed: int) -> tuple[KnockoutMatch, ...]:
    """T-KO-BYE: the first round of a bracket of the next power of two, the seeds
    with no opponent (the top ones) through on a bye. Matches in bracket order."""
    if len(ratings) < 2:
        raise PairingError("T-KO-PLAYERS", f"a knockout needs two players, not {len(ratings)}")
    seeds = knockout_seeds(ratings, seed)
    size = 1 << (len(seeds) - 1).bit_length()
    positions = bracket_positions(size)
    matches = []
    for high, low in zip(positions[::2], positions[1::2], strict=True):
        matches.append(KnockoutMatch(seeds[high - 1], seeds[low - 1] if low <= len(seeds) else None))
    return tuple(matches)


def knockout_next_round(winners: Sequence[PlayerId], ratings: Mapping[PlayerId, float],
                        seed: int) -> tuple[KnockoutMatch, ...]:  # fmt: skip
    """T-KO-NEXT: the next round from the winners of the last, given in bracket order
    (the winner of match 1, of match 2, ...): neighbours meet, the better seed first."""
    if len(winners) < 2 or len(winners) & (len(winners) - 1):
        raise PairingError("T-KO-NEXT", f"a round follows from a power of two winners, two or more, not {len(winners)}")
    rank = {player: number for number, player in enumerate(knockout_seeds(ratings, seed))}
    matches = []
    for a, b in zip(winners[::2], winners[1::2], strict=True):
        high, low = sorted((a, b), key=lambda player: rank[player])
        matches.append(KnockoutMatch(high, low))
    return tuple(matches)


def match_seats(match: KnockoutMatch, game_number: int) -> tuple[PlayerId, PlayerId]:
    """T-KO-SEATS: who sits first in the ``game_number``-th game (from 1, replays
    counted): the better seed in odd games, the other in even ones."""
    if match.low is None:
        raise PairingError("T-KO-SEATS", "a bye is not played")
    if game_number < 1:
        raise PairingError("T-KO-SEATS", f"games are numbered from 1, not {game_number}")
    return (match.high, match.low) if game_number % 2 else (match.low, match.high)


@dataclass(frozen=True)
class MatchOutcome:
    """Where a match stands: each player's wins, the games to replay (shared first
    place), and the winner once one has won more than half of ``games_per_match``."""

    wins: Mapping[PlayerId, int]
    replays: int
    winner: PlayerId | None

    @property
    def decided(self) -> bool:
        return self.winner is not None


def match_outcome(match: KnockoutMatch, games: Sequence[Mapping[PlayerId, int]],
                  games_per_match: int) -> MatchOutcome:  # fmt: skip
    """T-KO-MATCH: a match is ``games_per_match`` (odd) games; the first to win more
    than half wins it. T-KO-REPLAY: a game whose first place is shared counts for
    no one and is replayed. ``games`` are the played games' places, in order."""
    if games_per_match < 1 or games_per_match % 2 == 0:
        raise PairingError("T-KO-MATCH", f"a match has an odd number of games, not {games_per_match}")
    if match.low is None:
        return MatchOutcome(wins={match.high: 0}, replays=0, winner=match.high)
    players = {match.high, match.low}
    wins = dict.fromkeys((match.high, match.low), 0)
    replays = 0
    needed = games_per_match // 2 + 1
    for number, places in enumerate(games, start=1):
        if set(places) != players:
            raise PairingError("T-KO-MATCH", f"game {number} has players {sorted(places)}, not {sorted(players)}")
        if any(won >= needed for won in wins.values()):
            raise PairingError("T-KO-MATCH", f"game {number} was played after the match was decided")
        first = [player for player, place in places.items() if place == 1]
        if len(first) == 1:
            wins[first[0]] += 1
        else:
            replays += 1
    winner = next((player for player, won in wins.items() if won >= needed), None)
    return MatchOutcome(wins=wins, replays=replays, winner=winner)
