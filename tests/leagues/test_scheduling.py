"""The season's schedule, as properties over many member counts (Hypothesis)."""

from __future__ import annotations

import itertools
from collections import Counter

from hypothesis import given
from hypothesis import strategies as st

from leagues.scheduling import round_robin, tables


def _meetings(rounds: list[list[tuple[int, ...]]]) -> Counter[frozenset[int]]:
    met: Counter[frozenset[int]] = Counter()
    for games in rounds:
        for game in games:
            for a, b in itertools.combinations(game, 2):
                met[frozenset((a, b))] += 1
    return met


@given(st.integers(min_value=2, max_value=30), st.booleans())
def test_in_a_round_robin_every_pair_meets_once_or_twice_when_double(count: int, double: bool) -> None:
    players = list(range(100, 100 + count))
    met = _meetings([list(r) for r in round_robin(players, double=double)])
    assert {met[frozenset(pair)] for pair in itertools.combinations(players, 2)} == {2 if double else 1}


@given(st.integers(min_value=2, max_value=30))
def test_nobody_plays_twice_in_one_round_and_an_odd_count_gives_one_bye_a_round(count: int) -> None:
    players = list(range(count))
    rounds = round_robin(players)
    assert len(rounds) == count - 1 + count % 2  # every other player met once
    for pairs in rounds:
        seated = [p for pair in pairs for p in pair]
        assert len(seated) == len(set(seated))
        assert len(seated) == count - count % 2


@given(st.integers(min_value=2, max_value=30), st.booleans())
def test_in_a_round_robin_each_player_moves_first_about_as_often_as_second(count: int, double: bool) -> None:
    first: Counter[int] = Counter()
    second: Counter[int] = Counter()
    for pairs in round_robin(list(range(count)), double=double):
        for a, b in pairs:
            first[a] += 1
            second[b] += 1
    assert all(abs(first[p] - second[p]) <= (0 if double else 1) for p in range(count))


@given(st.integers(min_value=3, max_value=24), st.sampled_from([3, 4]), st.booleans())
def test_tables_are_balanced(count: int, size: int, double: bool) -> None:
    if count < size:
        assert tables(list(range(count)), size=size) == []
        return
    players = list(range(count))
    schedule = tables(players, size=size, double=double)
    games: Counter[int] = Counter()
    positions = {p: [0] * size for p in players}
    for round_tables in schedule:
        seated = [p for table in round_tables for p in table]
        assert len(seated) == len(set(seated)), "nobody sits at two tables in a round"
        assert all(len(table) == size for table in round_tables)
        for table in round_tables:
            for position, p in enumerate(table):
                games[p] += 1
                positions[p][position] += 1
    met = _meetings(schedule)
    counts = [met[frozenset(pair)] for pair in itertools.combinations(players, 2)]
    # A greedy search, not a design: a double schedule can leave a pair one meeting further apart.
    assert max(counts) - min(counts) <= (3 if double else 2), "every pair meets about equally often"
    assert max(games[p] for p in players) - min(games[p] for p in players) <= 1
    assert all(max(seen) - min(seen) <= 2 for seen in positions.values()), "seat positions balanced"
