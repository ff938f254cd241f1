"""When a turn starts, the player to move gets Reminder rows due their chosen
hours before the deadline; the rows follow the turn as it moves on."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import time_machine

from games.models import Game
from notifications.models import Reminder
from notifications.preferences.services import preferences_update
from notifications.reminders.services import reminders_schedule_for_game
from tests.notifications.reminder_helpers import deliver_events, play, started_game, to_move, waiting

pytestmark = pytest.mark.django_db

START = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)


@pytest.fixture
def frozen() -> Any:
    with time_machine.travel(START, tick=False) as traveller:
        yield traveller


def unsent(game: Game) -> list[tuple[int, int, datetime, datetime]]:
    return sorted(
        Reminder.objects.filter(game=game, sent_at__isnull=True).values_list(
            "user_id", "hours_before", "deadline_at", "due_at"
        )
    )


def test_a_turn_start_writes_a_reminder_for_each_reminder_hour_before_the_deadline(
    frozen: Any, alice: Any, bob: Any
) -> None:
    game = started_game(alice, bob)
    player = to_move(game)
    deadline = game.deadline_at
    assert deadline is not None

    assert unsent(game) == sorted(
        [
            (player.pk, 2, deadline, deadline - timedelta(hours=2)),
            (player.pk, 24, deadline, deadline - timedelta(hours=24)),
        ]
    )


def test_reminder_hours_that_are_already_past_are_not_written(frozen: Any, alice: Any, bob: Any) -> None:
    preferences_update(user=alice, reminder_hours=[100, 24])
    preferences_update(user=bob, reminder_hours=[100, 24])
    game = started_game(alice, bob)
    deadline = game.deadline_at
    assert deadline is not None and deadline - timedelta(hours=100) < START

    assert [hours for _, hours, _, _ in unsent(game)] == [24]


def test_a_player_with_game_email_off_gets_no_reminders(frozen: Any, alice: Any, bob: Any) -> None:
    preferences_update(user=alice, mode="off")
    preferences_update(user=bob, mode="off")

    assert unsent(started_game(alice, bob)) == []


def test_a_move_hands_the_reminders_to_the_next_player(frozen: Any, alice: Any, bob: Any) -> None:
    game = started_game(alice, bob)
    first = to_move(game)
    frozen.shift(timedelta(hours=1))

    play(game, "reserve deck1")
    deliver_events(game)

    game.refresh_from_db()
    assert {user_id for user_id, *_ in unsent(game)} == {to_move(game).pk}
    assert to_move(game) != first
    assert {deadline for _, _, deadline, _ in unsent(game)} == {game.deadline_at}


def test_handling_the_same_turn_twice_writes_nothing_twice(frozen: Any, alice: Any, bob: Any) -> None:
    game = started_game(alice, bob)
    before = unsent(game)

    assert reminders_schedule_for_game(game_id=game.pk) == 0
    assert unsent(game) == before


def test_a_game_that_is_over_keeps_no_unsent_reminders(frozen: Any, alice: Any, bob: Any) -> None:
    game = started_game(alice, bob)
    Game.objects.filter(pk=game.pk).update(status=Game.Status.FINISHED, deadline_at=None)

    reminders_schedule_for_game(game_id=game.pk)

    assert unsent(game) == []


def test_new_reminder_hours_reschedule_the_turn_waiting_on_the_player(frozen: Any, alice: Any, bob: Any) -> None:
    game = started_game(alice, bob)
    player = to_move(game)

    preferences_update(user=player, reminder_hours=[12])

    assert [hours for _, hours, _, _ in unsent(game)] == [12]


def test_the_waiting_player_changing_their_hours_leaves_the_turn_alone(frozen: Any, alice: Any, bob: Any) -> None:
    game = started_game(alice, bob)
    before = unsent(game)

    preferences_update(user=waiting(game), reminder_hours=[12])

    assert unsent(game) == before


def test_the_reminders_consumer_writes_the_rows_when_the_start_commits(
    frozen: Any, alice: Any, bob: Any, commit: Any
) -> None:
    from games import services
    from games.extensions import event_consumers
    from games.models import GameEventClaim

    assert "reminders" in [consumer.name for consumer in event_consumers()]
    with commit():
        game = services.game_create(creator=alice, variant="base", seats=2, invited=[bob])
    with commit():
        services.seat_join(game=game, user=bob)

    assert {user_id for user_id, *_ in unsent(game)} == {to_move(game).pk}
    assert GameEventClaim.objects.filter(consumer="reminders", done_at__isnull=False).exists()
