"""Who plays whom in a season: pure functions on player ids, no Django.

- ``round_robin``: two-player leagues. The circle method (Berger tables): with an
  odd count one player a round has a bye. Single: every pair meets once; double:
  twice, once with each player first. Who is listed first alternates so that
  nobody is first in more than one game more than they are second.
- ``tables``: three- and four-player leagues. Round by round the players are split
  into tables of the league's size (those left over sit the round out, the ones
  who sat out least first), greedily and then improved by swapping players
  between tables (and with players sitting out as often), so that every pair
  meets about equally often: over 3 to 24 players the counts of two pairs differ
  by at most 2 (3 with double), games per player by at most 1. Each table's
  order is then chosen so that each player sits in each position about equally
  (counts differ by at most 2).

The order within a pairing or table is the order players join the game
(``join_position``); the game itself then draws the play order from its seed.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Sequence

Pair = tuple[int, int]
Table = tuple[int, ...]


def round_robin(players: Sequence[int], *, double: bool = False) -> list[list[Pair]]:
    """Rounds of pairings; a player with no pairing in a round has a bye."""
    if len(set(players)) != len(players):
        raise ValueError("each player once")
    circle: list[int | None] = list(players)
    if len(circle) < 2:
        return []
    if len(circle) % 2:
        # The bye is the fixed point of the circle: the others alternate evenly.
        circle.insert(0, None)
    n = len(circle)
    rounds: list[list[Pair]] = []
    for r in range(n - 1):
        pairs: list[Pair] = []
        for i in range(n // 2):
            a, b = circle[i], circle[n - 1 - i]
            if a is None or b is None:
                continue
            # Berger: the fixed player alternates; the others by table and round.
            swap = (r % 2 == 1) if i == 0 else (i % 2 == 1)
            pairs.append((b, a) if swap else (a, b))
        rounds.append(pairs)
        # Keep the first player fixed and turn the circle by one.
        circle = [circle[0], circle[-1], *circle[1:-1]]
    if double:
        rounds += [[(b, a) for a, b in pairs] for pairs in rounds]
    return rounds


def rounds_for_tables(player_count: int, size: int, *, double: bool = False) -> int:
    """Enough rounds for every player to meet every other about once (twice when double)."""
    if player_count < size:
        return 0
    seated = (player_count // size) * size
    # Each round a player sits at a table with probability seated/n and meets size-1 others.
    per_round = (size - 1) * seated / player_count
    rounds = math.ceil((player_count - 1) / per_round)
    return rounds * (2 if double else 1)


def _pair_cost(table: Sequence[int], met: Counter[tuple[int, int]]) -> int:
    return sum(4 ** met[_key(a, b)] for a, b in itertools.combinations(table, 2))


def _key(a: int, b: int) -> tuple[int, int]:
    return (a, b) if a < b else (b, a)


def _split_round(
    playing: list[int], bench: list[int], size: int, met: Counter[tuple[int, int]], sat_out: Counter[int]
) -> tuple[list[list[int]], list[int]]:
    """Tables for one round: greedy (each table started by the player with the
    most repeat meetings so far), then swaps while any helps: of two players at
    different tables, or of a player and one sitting out who sat out as often."""
    left = list(playing)
    groups: list[list[int]] = []
    while left:
        left.sort(key=lambda p: -sum(met[_key(p, q)] for q in left if q != p))
        group = [left.pop(0)]
        while len(group) < size:
            best = min(left, key=lambda q: sum(met[_key(q, p)] for p in group))
            left.remove(best)
            group.append(best)
        groups.append(group)
    improved = True
    while improved:
        improved = False
        for g1, g2 in itertools.combinations(range(len(groups)), 2):
            for i in range(size):
                for j in range(size):
                    a, b = groups[g1][i], groups[g2][j]
                    before = _pair_cost(groups[g1], met) + _pair_cost(groups[g2], met)
                    groups[g1][i], groups[g2][j] = b, a
                    after = _pair_cost(groups[g1], met) + _pair_cost(groups[g2], met)
                    if after < before:
                        improved = True
                    else:
                        groups[g1][i], groups[g2][j] = a, b
        for group in groups:
            for i in range(size):
                for k, resting in enumerate(bench):
                    playing_now = group[i]
                    if sat_out[resting] != sat_out[playing_now]:
                        continue
                    before = _pair_cost(group, met)
                    group[i] = resting
                    if _pair_cost(group, met) < before:
                        bench[k] = playing_now
                        improved = True
                    else:
                        group[i] = playing_now
    return groups, bench


def _seat_order(group: Sequence[int], seats: dict[int, list[int]]) -> Table:
    """The order of a table that keeps everyone's counts per position most even."""

    def cost(order: Sequence[int]) -> tuple[int, int]:
        after = [seats[p][position] + 1 for position, p in enumerate(order)]
        return (max(after), sum(a * a for a in after))

    best = min(itertools.permutations(sorted(group)), key=cost)
    for position, p in enumerate(best):
        seats[p][position] += 1
    return tuple(best)


def tables(players: Sequence[int], *, size: int, rounds: int | None = None, double: bool = False) -> list[list[Table]]:
    """Rounds of tables of ``size`` players (3 or 4); ``rounds`` by default from
    ``rounds_for_tables``. Players who sit a round out are not in any of its tables."""
    if len(set(players)) != len(players):
        raise ValueError("each player once")
    if size < 2:
        raise ValueError("a table has at least two seats")
    if rounds is None:
        rounds = rounds_for_tables(len(players), size, double=double)
    if len(players) < size:
        return []
    met: Counter[tuple[int, int]] = Counter()
    sat_out: Counter[int] = Counter()
    seats: dict[int, list[int]] = {p: [0] * size for p in players}
    order = {p: i for i, p in enumerate(players)}
    schedule: list[list[Table]] = []
    for r in range(rounds):
        out_count = len(players) % size
        # Those who sat out least sit out now; the round number turns the tie-break.
        ranked = sorted(players, key=lambda p: (sat_out[p], (order[p] - r * out_count) % len(players)))
        resting = set(ranked[:out_count])
        playing = [p for p in players if p not in resting]
        groups, bench = _split_round(playing, [p for p in players if p in resting], size, met, sat_out)
        for p in bench:
            sat_out[p] += 1
        round_tables: list[Table] = []
        for group in groups:
            for a, b in itertools.combinations(group, 2):
                met[_key(a, b)] += 1
            round_tables.append(_seat_order(group, seats))
        schedule.append(round_tables)
    return schedule
