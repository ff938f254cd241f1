"""Players on the digest get one email a day at their digest hour in their own
time zone, listing the games waiting on them; none when nothing waits."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest
import time_machine

from accounts.models import Player
from games.models import Game
from notifications.models import Notification, Preferences
from notifications.preferences.selectors import digest_next_at
from notifications.preferences.services import game_mute, preferences_update
from notifications.reminders.tasks import send_due_digests
from tests.notifications.email_helpers import everything_in, html_of, mail_to
from tests.notifications.reminder_helpers import reserve_blind, started_game, to_move, waiting

pytestmark = pytest.mark.django_db

# Riga moves its clocks from 03:00 EET (UTC+2) to 04:00 EEST (UTC+3) on Sunday 28 March 2027.
SATURDAY = datetime(2027, 3, 27, 0, 0, tzinfo=UTC)
RIGA = ZoneInfo("Europe/Riga")


@pytest.fixture
def frozen() -> Any:
    with time_machine.travel(SATURDAY, tick=False) as traveller:
        yield traveller


def on_the_digest(user: Any, *, hour: int = 8, time_zone: str = "Europe/Riga") -> None:
    Player.objects.filter(user=user).update(time_zone=time_zone)
    preferences_update(user=user, mode="digest", digest_hour=hour)


def sweep(commit: Any) -> int:
    with commit():
        sent: int = send_due_digests()
    return sent


def next_digest(user: Any) -> datetime | None:
    return Preferences.objects.get(user=user).next_digest_at


def test_the_digest_goes_out_at_the_local_hour_on_both_sides_of_a_summer_time_change(
    frozen: Any, alice: Any, bob: Any, commit: Any
) -> None:
    game = started_game(alice, bob)
    player = to_move(game)
    on_the_digest(player)
    # 08:00 in Riga before the change is 06:00 UTC ...
    assert next_digest(player) == datetime(2027, 3, 27, 6, 0, tzinfo=UTC)

    frozen.move_to(datetime(2027, 3, 27, 5, 59, tzinfo=UTC))
    assert sweep(commit) == 0
    frozen.move_to(datetime(2027, 3, 27, 6, 0, tzinfo=UTC))
    assert sweep(commit) == 1
    # ... and after it 05:00 UTC.
    assert next_digest(player) == datetime(2027, 3, 28, 5, 0, tzinfo=UTC)
    frozen.move_to(datetime(2027, 3, 28, 5, 0, tzinfo=UTC))
    assert sweep(commit) == 1

    assert [m.subject for m in mail_to(player)] == ["1 game waiting on you"] * 2
    assert sorted(Notification.objects.filter(kind="digest").values_list("key", flat=True)) == [
        f"digest:{player.pk}:2027-03-27",
        f"digest:{player.pk}:2027-03-28",
    ]
    assert next_digest(player) == datetime(2027, 3, 29, 5, 0, tzinfo=UTC)


def test_one_digest_a_day_however_often_the_sweep_runs(frozen: Any, alice: Any, bob: Any, commit: Any) -> None:
    player = to_move(started_game(alice, bob))
    on_the_digest(player)

    for minutes in (360, 361, 365, 600, 1000):
        frozen.move_to(SATURDAY + timedelta(minutes=minutes))
        sweep(commit)

    assert len(mail_to(player)) == 1


def test_no_digest_when_no_game_waits_on_the_player(frozen: Any, alice: Any, bob: Any, commit: Any) -> None:
    other = waiting(started_game(alice, bob))
    on_the_digest(other)
    frozen.move_to(datetime(2027, 3, 27, 6, 0, tzinfo=UTC))

    assert sweep(commit) == 0

    assert mail_to(other) == []
    assert next_digest(other) == datetime(2027, 3, 28, 5, 0, tzinfo=UTC)


def test_a_muted_game_is_left_out_of_the_digest(frozen: Any, alice: Any, bob: Any, commit: Any) -> None:
    game = started_game(alice, bob)
    player = to_move(game)
    on_the_digest(player)
    game_mute(user=player, game_id=game.pk)
    frozen.move_to(datetime(2027, 3, 27, 6, 0, tzinfo=UTC))

    assert sweep(commit) == 0
    assert mail_to(player) == []


def test_the_digest_lists_each_waiting_game_with_its_deadline_and_link(
    frozen: Any, alice: Any, bob: Any, charlie: Any, commit: Any
) -> None:
    first = started_game(alice, bob)
    player = to_move(first)
    second = started_game(player, charlie)
    if to_move(second) != player:
        # Make it the player's turn in the second game too.
        Game.objects.filter(pk=second.pk).update(to_move=1 - (second.to_move or 0))
    on_the_digest(player)
    frozen.move_to(datetime(2027, 3, 27, 6, 0, tzinfo=UTC))

    sweep(commit)

    [message] = mail_to(player)
    assert message.subject == "2 games waiting on you"
    for game in (first, second):
        game.refresh_from_db()
        assert game.deadline_at is not None
        local = game.deadline_at.astimezone(RIGA)
        assert f"Game {game.pk}" in message.body
        assert f"/games/{game.pk}/" in message.body
        assert f"{local:%H:%M} (Europe/Riga)" in message.body
        assert f"/games/{game.pk}/" in html_of(message)


def test_off_or_every_turn_players_get_no_digest(frozen: Any, alice: Any, bob: Any, commit: Any) -> None:
    player = to_move(started_game(alice, bob))
    on_the_digest(player)
    preferences_update(user=player, mode="every_turn")
    frozen.move_to(datetime(2027, 3, 28, 6, 0, tzinfo=UTC))

    assert next_digest(player) is None
    assert sweep(commit) == 0


def test_the_digest_never_shows_the_opponents_blind_reserved_card(
    frozen: Any, alice: Any, bob: Any, commit: Any
) -> None:
    game = started_game(alice, bob)
    _, card = reserve_blind(game)
    player = to_move(game)
    on_the_digest(player)
    frozen.move_to(datetime(2027, 3, 27, 6, 0, tzinfo=UTC))

    sweep(commit)

    [message] = mail_to(player)
    assert not re.search(rf"(?<![\w-]){re.escape(card)}(?!\w)", everything_in(message))


@pytest.mark.parametrize(
    ("zone", "hour", "after", "expected"),
    [
        # New York falls back at 02:00 EDT on 1 November 2026: 01:00 comes twice; the first one counts.
        ("America/New_York", 1, datetime(2026, 11, 1, 0, 0, tzinfo=UTC), datetime(2026, 11, 1, 5, 0, tzinfo=UTC)),
        ("America/New_York", 8, datetime(2026, 11, 1, 0, 0, tzinfo=UTC), datetime(2026, 11, 1, 13, 0, tzinfo=UTC)),
        ("America/New_York", 8, datetime(2026, 10, 31, 13, 0, tzinfo=UTC), datetime(2026, 11, 1, 13, 0, tzinfo=UTC)),
        # It springs forward at 02:00 EST on 14 March 2027: 02:00 never shows, the digest comes at 03:00 EDT.
        ("America/New_York", 2, datetime(2027, 3, 14, 0, 0, tzinfo=UTC), datetime(2027, 3, 14, 7, 0, tzinfo=UTC)),
        ("UTC", 0, datetime(2027, 3, 14, 0, 0, tzinfo=UTC), datetime(2027, 3, 15, 0, 0, tzinfo=UTC)),
        ("Pacific/Kiritimati", 23, datetime(2027, 3, 14, 9, 0, tzinfo=UTC), datetime(2027, 3, 14, 9, 0, tzinfo=UTC)
         + timedelta(days=1)),
    ],
)
def test_the_next_digest_is_the_next_time_the_local_clock_shows_the_hour(
    zone: str, hour: int, after: datetime, expected: datetime
) -> None:
    assert digest_next_at(zone=ZoneInfo(zone), hour=hour, after=after) == expected
