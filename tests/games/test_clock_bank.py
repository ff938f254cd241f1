"""Time per move and the time bank: the bank's accounting, its cap and the deadline's arithmetic.

Personas: alice creates the games and bob plays against her (conftest.py).
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from games import services
from games.errors import InvalidGameSetup
from games.models import Game, Seat
from games.services import bank_after_turn
from tests.games.clock_helpers import HOUR, NOON, play_a_take, seat_to_move, started_game

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fixed_clock")]  # fixed_clock: at NOON (tests/games/conftest.py)


def test_unused_time_of_a_turn_is_added_to_the_bank() -> None:
    assert bank_after_turn(bank=100, move_seconds=600, cap=1000, used_seconds=400) == 300


def test_the_bank_never_grows_past_its_cap() -> None:
    assert bank_after_turn(bank=900, move_seconds=600, cap=1000, used_seconds=0) == 1000


def test_time_beyond_the_move_time_comes_out_of_the_bank() -> None:
    assert bank_after_turn(bank=500, move_seconds=600, cap=1000, used_seconds=800) == 300


def test_the_bank_never_goes_below_zero() -> None:
    assert bank_after_turn(bank=100, move_seconds=600, cap=1000, used_seconds=5000) == 0


def test_a_part_second_over_the_move_time_costs_a_whole_second() -> None:
    assert bank_after_turn(bank=100, move_seconds=600, cap=1000, used_seconds=600.2) == 99


def test_without_a_bank_nothing_is_saved() -> None:
    assert bank_after_turn(bank=0, move_seconds=600, cap=0, used_seconds=10) == 0


def test_every_seat_starts_with_the_bank_and_the_deadline_adds_it(alice: Any, bob: Any) -> None:
    game = started_game(alice, bob, move_timeout_hours=24, bank_seconds=10 * HOUR, bank_cap_seconds=30 * HOUR)

    assert list(Seat.objects.filter(game=game).values_list("bank_seconds", flat=True)) == [10 * HOUR, 10 * HOUR]
    assert game.turn_started_at == NOON
    assert game.deadline_at == NOON + timedelta(hours=24 + 10)


def test_a_quick_move_saves_time_and_the_next_turn_of_that_seat_has_it(alice: Any, bob: Any, time_machine: Any) -> None:
    game = started_game(alice, bob, move_timeout_hours=24, bank_seconds=10 * HOUR, bank_cap_seconds=30 * HOUR)
    first = seat_to_move(game)

    time_machine.move_to(NOON + timedelta(hours=4), tick=False)
    play_a_take(game)
    first.refresh_from_db()
    assert first.bank_seconds == (10 + 20) * HOUR  # 20 unused hours, up to the cap of 30

    game.refresh_from_db()
    assert game.deadline_at == NOON + timedelta(hours=4 + 24 + 10)  # the other seat's bank is still 10 h
    time_machine.move_to(NOON + timedelta(hours=5), tick=False)
    play_a_take(game)
    game.refresh_from_db()
    assert game.deadline_at == NOON + timedelta(hours=5 + 24 + 30)


def test_a_slow_move_spends_the_bank(alice: Any, bob: Any, time_machine: Any) -> None:
    game = started_game(alice, bob, move_timeout_hours=24, bank_seconds=10 * HOUR, bank_cap_seconds=10 * HOUR)
    first = seat_to_move(game)

    time_machine.move_to(NOON + timedelta(hours=30), tick=False)
    play_a_take(game)

    first.refresh_from_db()
    assert first.bank_seconds == 4 * HOUR


def test_the_cap_defaults_to_the_bank_at_the_start(alice: Any, bob: Any) -> None:
    game = started_game(alice, bob, bank_seconds=5 * HOUR)
    assert game.bank_cap_seconds == 5 * HOUR


def test_time_per_move_alone_is_the_old_deadline(alice: Any, bob: Any) -> None:
    game = started_game(alice, bob, move_timeout_hours=48)
    assert game.deadline_at == NOON + timedelta(hours=48)
    assert game.move_seconds == 48 * HOUR and game.move_timeout_hours == 48


@pytest.mark.parametrize(
    ("clock", "words"),
    [
        ({"move_seconds": 0}, "time per move must be between 1 second"),
        ({"move_seconds": 31 * 24 * HOUR}, "time per move"),
        ({"bank_seconds": -1}, "bank at the start"),
        ({"bank_seconds": 10 * HOUR, "bank_cap_seconds": 5 * HOUR}, "cap must be at least the bank at the start"),
        ({"forfeit_after": 0}, "forfeit_after"),
        ({"forfeit_after": 11}, "forfeit_after"),
    ],
)
def test_a_time_control_out_of_range_is_refused_saying_why(alice: Any, clock: dict[str, int], words: str) -> None:
    with pytest.raises(InvalidGameSetup) as refused:
        services.game_create(creator=alice, seats=2, **clock)
    assert words in refused.value.message
    assert not Game.objects.exists()
