"""Hand-computed examples of tournaments.pairing (the worked example of docs/tournaments.md).

Nine players, 3-seat tables, three rounds. Ratings 1900 (player 1) down to 1100
(player 9) set the first round's order. A place is worth ``table size - place``
points (2, 1, 0 at a table of three).
"""

from __future__ import annotations

import pytest

from tournaments.pairing import (
    KnockoutMatch,
    PairingError,
    RoundResult,
    SwissPlayer,
    TableResult,
    bracket_positions,
    history,
    knockout_first_round,
    knockout_next_round,
    match_outcome,
    match_seats,
    standings,
    swiss_round,
    table_sizes,
)

RATINGS = {player: 2000.0 - 100 * player for player in range(1, 10)}


def table(*finish: tuple[int, int]) -> TableResult:
    """Players in finishing order (first, second, ...), each with the prestige they scored."""
    return TableResult(places={player: place for place, (player, _) in enumerate(finish, start=1)},
                       prestige=dict(finish))  # fmt: skip


def points_for_place(place: int, table_size: int) -> float:
    return float(table_size - place)


ROUND_1 = RoundResult((
    table((1, 15), (2, 12), (3, 10)),
    table((4, 16), (5, 11), (6, 9)),
    table((7, 14), (8, 13), (9, 8)),
))  # fmt: skip
ROUND_2 = RoundResult((
    table((4, 15), (1, 12), (7, 10)),
    table((2, 14), (8, 11), (5, 9)),
    table((9, 13), (6, 10), (3, 7)),
))  # fmt: skip


def next_round(played: list[RoundResult]) -> tuple[tuple[int, ...], ...]:
    lines = standings(RATINGS, played, points_for_place, seed=7)
    met, byes = history(played)
    paired = swiss_round([line.as_swiss_player() for line in lines], met=met, had_bye=byes, seats=3, seed=7)
    assert paired.bye is None
    return paired.tables


def test_the_first_round_seats_neighbours_in_rating_order() -> None:
    assert next_round([]) == ((1, 2, 3), (4, 5, 6), (7, 8, 9))


def test_the_second_round_groups_the_equal_points_who_have_not_met() -> None:
    # Winners 4, 1, 7 (2 points, prestige 16, 15, 14); seconds 8, 2, 5; thirds 3, 6, 9.
    assert next_round([ROUND_1]) == ((4, 1, 7), (8, 2, 5), (3, 6, 9))


def test_buchholz_after_two_rounds_is_the_opponents_points() -> None:
    lines = standings(RATINGS, [ROUND_1, ROUND_2], points_for_place, seed=7)
    got = {line.player: (line.rank, line.points, line.buchholz, line.prestige) for line in lines}
    assert got == {
        4: (1, 4.0, 7.0, 31),  # met 5, 6 (1 + 1) then 1, 7 (3 + 2)
        1: (2, 3.0, 9.0, 27),  # 2, 3 (3 + 0) then 4, 7 (4 + 2)
        2: (3, 3.0, 6.0, 26),  # 1, 3 (3 + 0) then 8, 5 (2 + 1)
        7: (4, 2.0, 11.0, 24),  # 8, 9 (2 + 2) then 4, 1 (4 + 3)
        8: (5, 2.0, 8.0, 24),  # 7, 9 (2 + 2) then 2, 5 (3 + 1)
        9: (6, 2.0, 5.0, 21),  # 7, 8 (2 + 2) then 3, 6 (0 + 1)
        5: (7, 1.0, 10.0, 20),  # 4, 6 (4 + 1) then 8, 2 (2 + 3)
        6: (8, 1.0, 7.0, 19),  # 4, 5 (4 + 1) then 3, 9 (0 + 2)
        3: (9, 0.0, 9.0, 17),  # 1, 2 (3 + 3) then 6, 9 (1 + 2)
    }


def test_the_third_round_avoids_every_repeat_before_grouping_points() -> None:
    # 7, 8 and 9 (2 points each) have all met: no table can group them. Only two
    # repeat-free partitions remain, the "diagonals" of rounds 1 and 2 seen as a 3x3
    # grid; each has 9 pairs of unequal points, and in the order 4 1 2 7 8 9 5 6 3
    # {4,2,9} {1,8,6} {7,5,3} sit closer (spread 32) than {4,3,8} {1,5,9} {2,6,7} (36).
    assert next_round([ROUND_1, ROUND_2]) == ((4, 2, 9), (1, 8, 6), (7, 5, 3))


def test_a_bye_is_worth_a_first_place() -> None:
    played = [RoundResult((table((1, 5), (2, 3)),), bye=3)]
    lines = standings({1: 1500.0, 2: 1500.0, 3: 1400.0}, played, lambda place, size: float(size - place), seed=1)
    assert [(line.player, line.points, line.buchholz) for line in lines] == [(1, 1.0, 0.0), (3, 1.0, 0.0), (2, 0.0, 1.0)]


def test_two_seats_and_an_odd_count_give_the_lowest_ranked_the_bye_once() -> None:
    players = [SwissPlayer(player, points=float(10 - player)) for player in range(1, 6)]
    first = swiss_round(players, seats=2, seed=3)
    assert first.bye == 5
    assert first.tables == ((1, 2), (3, 4))
    second = swiss_round(players, had_bye={5}, seats=2, seed=3)
    assert second.bye == 4


def test_the_lowest_tables_have_a_seat_fewer() -> None:
    assert table_sizes(10, 4) == [4, 3, 3]
    assert table_sizes(11, 3) == [3, 3, 3, 2]
    assert table_sizes(5, 4) == [3, 2]


def test_seats_outside_two_to_four_are_refused() -> None:
    with pytest.raises(PairingError, match="T-SWISS-SEATS"):
        swiss_round([SwissPlayer(1, 0.0), SwissPlayer(2, 0.0)], seats=5, seed=0)


def test_a_second_bye_is_refused() -> None:
    with pytest.raises(PairingError, match="T-SWISS-BYE: every player has had a bye"):
        swiss_round([SwissPlayer(1, 0.0)], had_bye={1}, seats=2, seed=0)


# --- knockout ---------------------------------------------------------------------


def test_the_bracket_keeps_the_top_seeds_apart_until_the_end() -> None:
    assert bracket_positions(8) == [1, 8, 4, 5, 2, 7, 3, 6]
    assert bracket_positions(4) == [1, 4, 2, 3]


def test_five_players_take_three_byes_and_three_rounds() -> None:
    ratings = {1: 2000.0, 2: 1900.0, 3: 1800.0, 4: 1700.0, 5: 1600.0}
    first = knockout_first_round(ratings, seed=1)
    assert first == (KnockoutMatch(1, None), KnockoutMatch(4, 5), KnockoutMatch(2, None), KnockoutMatch(3, None))
    assert match_outcome(first[0], [], games_per_match=3).winner == 1
    second = knockout_next_round([1, 5, 2, 3], ratings, seed=1)
    assert second == (KnockoutMatch(1, 5), KnockoutMatch(2, 3))
    final = knockout_next_round([1, 3], ratings, seed=1)
    assert final == (KnockoutMatch(1, 3),)
    with pytest.raises(PairingError, match="T-KO-NEXT"):
        knockout_next_round([3], ratings, seed=1)


def test_equal_ratings_are_seeded_by_a_draw_that_the_seed_repeats() -> None:
    ratings = dict.fromkeys(range(1, 9), 1500.0)
    draws = {knockout_first_round(ratings, seed=seed) for seed in range(20)}
    assert len(draws) > 1
    assert knockout_first_round(ratings, seed=4) == knockout_first_round(ratings, seed=4)


def test_seats_alternate_within_a_match() -> None:
    match = KnockoutMatch(1, 2)
    assert [match_seats(match, number) for number in (1, 2, 3)] == [(1, 2), (2, 1), (1, 2)]


def test_a_shared_first_place_is_replayed_and_two_wins_of_three_decide() -> None:
    match = KnockoutMatch(1, 2)
    after_two = match_outcome(match, [{1: 1, 2: 2}, {1: 1, 2: 1}], games_per_match=3)
    assert (after_two.decided, after_two.replays, dict(after_two.wins)) == (False, 1, {1: 1, 2: 0})
    done = match_outcome(match, [{1: 1, 2: 2}, {1: 1, 2: 1}, {1: 2, 2: 1}, {1: 1, 2: 2}], games_per_match=3)
    assert (done.decided, done.winner, dict(done.wins)) == (True, 1, {1: 2, 2: 1})


def test_a_game_after_the_match_is_decided_is_refused() -> None:
    with pytest.raises(PairingError, match="after the match was decided"):
        match_outcome(KnockoutMatch(1, 2), [{1: 1, 2: 2}] * 3, games_per_match=3)


def test_an_even_match_length_is_refused() -> None:
    with pytest.raises(PairingError, match="T-KO-MATCH: a match has an odd number of games, not 2"):
        match_outcome(KnockoutMatch(1, 2), [], games_per_match=2)


def test_the_pairing_core_loads_no_django() -> None:
    import subprocess
    import sys

    code = "import sys, tournaments.pairing; print(sorted(m for m in sys.modules if m.split('.')[0] in {'django', 'rest_framework', 'celery'}))"
    found = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert found == "[]"
