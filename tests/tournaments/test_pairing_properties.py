"""Properties of tournaments.pairing's Swiss rounds, checked on generated tournaments;
for small rounds the pairing is compared with a brute-force search of every partition."""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from itertools import combinations

from hypothesis import given, settings, strategies as st

from tournaments.pairing import (
    Pair,
    RoundResult,
    SwissPlayer,
    SwissRound,
    TableResult,
    history,
    needs_bye,
    pair_key,
    standings,
    swiss_round,
    table_sizes,
)


@st.composite
def rounds_to_pair(draw: st.DrawFn, most: int = 10) -> tuple[list[SwissPlayer], set[Pair], set[int], int, int]:
    count = draw(st.integers(min_value=1, max_value=most))
    players = [
        SwissPlayer(player, float(draw(st.integers(0, 3))), (float(draw(st.integers(0, 2))),),
                    float(draw(st.integers(1400, 1402))))
        for player in range(count)
    ]  # fmt: skip
    pairs = [pair_key(a, b) for a, b in combinations(range(count), 2)]
    met = set(draw(st.lists(st.sampled_from(pairs), max_size=len(pairs)))) if pairs else set()
    had_bye = set(draw(st.lists(st.integers(0, count - 1), max_size=count - 1)))
    return players, met, had_bye, draw(st.integers(2, 4)), draw(st.integers(0, 2**32))


def check_shape(players: Sequence[SwissPlayer], paired: SwissRound, seats: int) -> None:
    placed = [player for table in paired.tables for player in table]
    if paired.bye is not None:
        placed.append(paired.bye)
    assert sorted(placed) == sorted(player.id for player in players)
    sizes = [len(table) for table in paired.tables]
    if sizes:
        assert min(sizes) >= 2 and max(sizes) <= seats and max(sizes) - min(sizes) <= 1
    assert (paired.bye is not None) == needs_bye(len(players), seats)


@given(rounds_to_pair())
def test_every_player_sits_at_one_table_or_has_the_bye(case: tuple[list[SwissPlayer], set[Pair], set[int], int, int]) -> None:
    players, met, had_bye, seats, seed = case
    paired = swiss_round(players, met=met, had_bye=had_bye, seats=seats, seed=seed)
    check_shape(players, paired, seats)
    if paired.bye is not None:
        assert paired.bye not in had_bye


@given(rounds_to_pair())
def test_the_same_seed_gives_the_same_round_whatever_the_input_order(
    case: tuple[list[SwissPlayer], set[Pair], set[int], int, int],
) -> None:
    players, met, had_bye, seats, seed = case
    shuffled = list(players)
    random.Random(seed).shuffle(shuffled)
    first = swiss_round(players, met=met, had_bye=had_bye, seats=seats, seed=seed)
    assert swiss_round(shuffled, met=met, had_bye=had_bye, seats=seats, seed=seed) == first


def partitions(items: list[int], sizes: list[int]) -> Iterator[list[tuple[int, ...]]]:
    """Every way to split ``items`` into groups of ``sizes`` (as sets, each once)."""
    if not items:
        yield []
        return
    for size in sorted(set(sizes)):
        rest_sizes = list(sizes)
        rest_sizes.remove(size)
        head, rest = items[0], items[1:]
        for companions in combinations(rest, size - 1):
            left = [item for item in rest if item not in companions]
            for tail in partitions(left, rest_sizes):
                yield [(head, *companions), *tail]


def repeats_and_unequal(tables: Sequence[Sequence[int]], met: set[Pair], points: dict[int, float]) -> tuple[int, int]:
    repeats = unequal = 0
    for group in tables:
        for a, b in combinations(group, 2):
            repeats += pair_key(a, b) in met
            unequal += points[a] != points[b]
    return repeats, unequal


@settings(max_examples=40)
@given(rounds_to_pair(most=8))
def test_no_repeat_while_a_repeat_free_pairing_exists_then_points_grouped(
    case: tuple[list[SwissPlayer], set[Pair], set[int], int, int],
) -> None:
    players, met, had_bye, seats, seed = case
    paired = swiss_round(players, met=met, had_bye=had_bye, seats=seats, seed=seed)
    seated = sorted(player for table in paired.tables for player in table)
    points = {player.id: player.points for player in players}
    best = min(
        (repeats_and_unequal(tables, met, points) for tables in partitions(seated, table_sizes(len(seated), seats))),
        default=(0, 0),
    )
    assert repeats_and_unequal(paired.tables, met, points) == best


@settings(max_examples=20)
@given(st.integers(3, 9), st.integers(2, 4), st.integers(0, 2**32))
def test_a_tournament_never_gives_one_player_two_byes(count: int, seats: int, seed: int) -> None:
    rng = random.Random(seed)
    ratings = {player: float(rng.randint(1400, 1600)) for player in range(count)}
    played: list[RoundResult] = []
    rounds = count if seats == 2 and count % 2 else 4
    for number in range(rounds):
        lines = standings(ratings, played, lambda place, size: float(size - place), seed=seed)
        met, byes = history(played)
        paired = swiss_round([line.as_swiss_player() for line in lines], met=met, had_bye=byes,
                             seats=seats, seed=seed + number)  # fmt: skip
        check_shape([line.as_swiss_player() for line in lines], paired, seats)
        assert paired.bye is None or paired.bye not in byes
        results = []
        for group in paired.tables:
            places = list(range(1, len(group) + 1))
            rng.shuffle(places)
            results.append(TableResult(dict(zip(group, places, strict=True)), dict.fromkeys(group, 0)))
        played.append(RoundResult(tuple(results), paired.bye))
    byes_given = [result.bye for result in played if result.bye is not None]
    assert len(byes_given) == len(set(byes_given))
