"""The reminder sweep sends each due reminder once, and only while the turn it
was written for is still waiting; the email says how long is left, when the
deadline is in the player's time zone and what happens then."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import time_machine

from accounts.models import Player
from games.models import Game
from notifications.models import Notification, Reminder
from notifications.preferences.services import game_mute
from notifications.reminders.tasks import send_due_reminders
from tests.notifications.email_helpers import everything_in, headline_of, html_of, mail_to
from tests.notifications.reminder_helpers import deliver_events, play, reserve_blind, started_game, to_move

pytestmark = pytest.mark.django_db

START = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)


@pytest.fixture
def frozen() -> Any:
    with time_machine.travel(START, tick=False) as traveller:
        yield traveller


@pytest.fixture
def game(frozen: Any, alice: Any, bob: Any) -> Game:
    return started_game(alice, bob)


def deadline_of(game: Game) -> datetime:
    game.refresh_from_db()
    assert game.deadline_at is not None
    return game.deadline_at


def sweep(commit: Any) -> int:
    with commit():
        sent: int = send_due_reminders()
    return sent


def test_a_reminder_is_not_sent_before_it_is_due(game: Game, frozen: Any, commit: Any) -> None:
    frozen.move_to(deadline_of(game) - timedelta(hours=24, seconds=1))

    assert sweep(commit) == 0
    assert mail_to(to_move(game)) == []


def test_a_due_reminder_is_sent_once_even_if_the_sweep_runs_twice(game: Game, frozen: Any, commit: Any) -> None:
    player = to_move(game)
    frozen.move_to(deadline_of(game) - timedelta(hours=24))

    assert sweep(commit) == 1
    assert sweep(commit) == 0

    [message] = mail_to(player)
    assert headline_of(message) == f"24 hours left to move in game {game.pk}"
    assert Reminder.objects.get(game=game, hours_before=24).sent_at == datetime.now(UTC)
    assert Notification.objects.filter(kind="reminder", user=player).count() == 1


def test_each_reminder_hour_sends_its_own_reminder(game: Game, frozen: Any, commit: Any) -> None:
    player = to_move(game)
    frozen.move_to(deadline_of(game) - timedelta(hours=24))
    sweep(commit)
    frozen.move_to(deadline_of(game) - timedelta(hours=2))
    sweep(commit)

    assert [headline_of(m) for m in mail_to(player)] == [
        f"24 hours left to move in game {game.pk}",
        f"2 hours left to move in game {game.pk}",
    ]


def test_a_reminder_is_not_sent_after_the_player_moved(game: Game, frozen: Any, commit: Any) -> None:
    player = to_move(game)
    due = deadline_of(game) - timedelta(hours=24)
    # The move's events have not reached the reminders consumer yet: the sweep checks for itself.
    play(game, "reserve deck1")
    frozen.move_to(due)

    assert sweep(commit) == 0
    assert mail_to(player) == []
    assert not Reminder.objects.filter(game=game, user=player, sent_at__isnull=True, due_at__lte=due).exists()


def test_a_reminder_is_not_sent_when_the_deadline_changed(game: Game, frozen: Any, commit: Any) -> None:
    player = to_move(game)
    deadline = deadline_of(game)
    Game.objects.filter(pk=game.pk).update(deadline_at=deadline + timedelta(hours=5))
    frozen.move_to(deadline - timedelta(hours=24))

    assert sweep(commit) == 0
    assert mail_to(player) == []


def test_a_paused_game_sends_no_reminder(game: Game, frozen: Any, commit: Any) -> None:
    player = to_move(game)
    deadline = deadline_of(game)
    Game.objects.filter(pk=game.pk).update(deadline_at=None)
    frozen.move_to(deadline - timedelta(hours=24))

    assert sweep(commit) == 0
    assert mail_to(player) == []


def test_a_muted_game_sends_no_reminder(game: Game, frozen: Any, commit: Any) -> None:
    player = to_move(game)
    game_mute(user=player, game_id=game.pk)
    frozen.move_to(deadline_of(game) - timedelta(hours=24))

    sweep(commit)

    assert mail_to(player) == []
    assert Notification.objects.get(kind="reminder", user=player).status == Notification.Status.SUPPRESSED


def test_the_next_players_reminder_is_sent_after_a_move(game: Game, frozen: Any, commit: Any) -> None:
    frozen.shift(timedelta(hours=1))
    play(game, "reserve deck1")
    deliver_events(game)
    player = to_move(game)
    frozen.move_to(deadline_of(game) - timedelta(hours=2))

    sweep(commit)

    assert [headline_of(m) for m in mail_to(player)] == [f"2 hours left to move in game {game.pk}"]


def test_a_late_sweep_sends_only_the_nearest_due_reminder_of_a_turn(game: Game, frozen: Any, commit: Any) -> None:
    player = to_move(game)
    frozen.move_to(deadline_of(game) - timedelta(hours=1))

    assert sweep(commit) == 1

    assert [headline_of(m) for m in mail_to(player)] == [f"1 hour left to move in game {game.pk}"]
    assert not Reminder.objects.filter(game=game, sent_at__isnull=True).exists()


def test_the_reminder_shows_the_deadline_in_the_players_time_zone(game: Game, frozen: Any, commit: Any) -> None:
    player = to_move(game)
    Player.objects.filter(user=player).update(time_zone="Europe/Riga")
    deadline = deadline_of(game)
    frozen.move_to(deadline - timedelta(hours=24))

    sweep(commit)

    [message] = mail_to(player)
    local = deadline.astimezone(__import__("zoneinfo").ZoneInfo("Europe/Riga"))
    assert f"{local:%H:%M}" in message.body and "(Europe/Riga)" in message.body
    assert local.hour != deadline.hour  # the test would prove nothing in UTC
    assert "(Europe/Riga)" in html_of(message)


def test_the_reminder_says_what_happens_at_the_deadline_and_links_the_game(
    game: Game, frozen: Any, commit: Any
) -> None:
    player = to_move(game)
    frozen.move_to(deadline_of(game) - timedelta(hours=2))

    sweep(commit)

    message = mail_to(player)[-1]
    assert "2 hours left" in message.body
    assert "the bot plays a move for you" in message.body
    forfeit_after = getattr(game, "forfeit_after", None)
    if forfeit_after:
        assert f"After {forfeit_after} timeouts in a row your seat is forfeited" in message.body
    assert f"/games/{game.pk}/" in message.body
    assert f"/games/{game.pk}/" in html_of(message)


def test_a_reminder_never_shows_the_opponents_blind_reserved_card(game: Game, frozen: Any, commit: Any) -> None:
    owner, card = reserve_blind(game)
    deliver_events(game)
    opponent = to_move(game)
    assert opponent != owner
    frozen.move_to(deadline_of(game) - timedelta(hours=2))

    sweep(commit)

    messages = mail_to(opponent)
    assert messages, "the opponent got their reminders"
    for message in messages:
        assert not re.search(rf"(?<![\w-]){re.escape(card)}(?!\w)", everything_in(message))


class _Policy:
    def __init__(self, forfeit_after: int | None) -> None:
        self.forfeit_after = forfeit_after


class _Seat:
    def __init__(self, consecutive_timeouts: int) -> None:
        self.consecutive_timeouts = consecutive_timeouts


@pytest.mark.parametrize(
    ("forfeit_after", "in_a_row", "says"),
    [
        (None, 0, "If you have not moved by then, the bot plays a move for you."),
        (3, 0, "the bot plays a move for you. After 3 timeouts in a row your seat is forfeited."),
        (3, 1, "After 3 timeouts in a row your seat is forfeited. You have 1 so far."),
        (3, 2, "your seat is forfeited and you leave the game. You have let 2 deadlines pass in a row."),
        (1, 0, "If you have not moved by then, your seat is forfeited and you leave the game."),
    ],
)
def test_the_reminder_says_what_the_next_timeout_would_do(forfeit_after: int | None, in_a_row: int, says: str) -> None:
    from notifications.reminders.emails import timeout_policy_text

    assert says in timeout_policy_text(_Policy(forfeit_after), _Seat(in_a_row))  # type: ignore[arg-type]
