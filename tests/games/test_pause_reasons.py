"""Pauses as a set of reasons: no clock runs while any holds; the time left is
kept and given back when the last one ends; each pause stays on record.

Personas: alice and bob play; charlie is the moderator who pauses their game.
"""

from __future__ import annotations

from datetime import timedelta
from io import StringIO
from typing import Any

import pytest
from django.core.management import call_command

from games import services
from core.errors import InvalidInput
from games.errors import GameNotActive
from games.models import Game, GamePause
from games.tasks import end_pauses
from tests.games.clock_helpers import HOUR, NOON, events, play_a_take, seat_to_move, started_game
from tests.games.game_helpers import client_for, make_player

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fixed_clock")]  # fixed_clock: at NOON (tests/games/conftest.py)


def at(hours: float) -> Any:
    return NOON + timedelta(hours=hours)


def test_a_pause_keeps_the_time_left_and_the_resume_gives_it_back(alice: Any, bob: Any) -> None:
    game = started_game(alice, bob, move_timeout_hours=24)

    services.game_pause(game_id=game.pk, reason="server", now=at(4))
    game.refresh_from_db()
    assert game.deadline_at is None and game.clock_remaining == timedelta(hours=20)

    services.game_resume(game_id=game.pk, reason="server", now=at(10))
    game.refresh_from_db()
    assert game.deadline_at == at(30) and game.clock_remaining is None


def test_overlapping_pauses_combine_and_the_clock_runs_only_when_the_last_one_ends(
    alice: Any, bob: Any, charlie: Any
) -> None:
    game = started_game(alice, bob, move_timeout_hours=24)
    services.game_pause(game_id=game.pk, reason="moderator", by_user_id=charlie.pk, note="reported", now=at(1))
    services.game_pause(game_id=game.pk, reason="server", now=at(2))

    services.game_resume(game_id=game.pk, reason="moderator", now=at(3))
    game.refresh_from_db()
    assert game.deadline_at is None

    services.game_resume(game_id=game.pk, reason="server", now=at(5))
    game.refresh_from_db()
    assert game.deadline_at == at(5 + 23)
    resumed = [e.payload for e in events(game, "clock_resumed")]
    assert [(p["reason"], p["clock_running"]) for p in resumed] == [("moderator", False), ("server", True)]
    record = list(GamePause.objects.filter(game=game).values_list("reason", "user_id", "note", "ended_at"))
    assert record == [("moderator", charlie.pk, "reported", at(3)), ("server", None, "", at(5))]


def test_clock_paused_names_the_reason_and_the_end_and_nothing_hidden(alice: Any, bob: Any, charlie: Any) -> None:
    game = started_game(alice, bob)

    services.game_pause(game_id=game.pk, reason="moderator", by_user_id=charlie.pk, until=at(48), now=at(1))

    [paused] = events(game, "clock_paused")
    assert paused.payload == {
        "reason": "moderator",
        "user_id": charlie.pk,
        "until": at(48).isoformat(),
        "automatic": False,
        "notice": True,
        "version": paused.payload["version"],
    }


def test_a_pause_with_an_end_is_ended_by_the_beat_task(alice: Any, bob: Any, time_machine: Any) -> None:
    game = started_game(alice, bob, move_timeout_hours=24)
    services.game_pause(game_id=game.pk, reason="moderator", until=at(6), now=at(2))

    time_machine.move_to(at(6), tick=False)
    assert end_pauses.delay().get() == 1
    assert end_pauses.delay().get() == 0

    game.refresh_from_db()
    assert game.deadline_at == at(6 + 22)


def test_a_move_during_a_pause_leaves_the_next_clock_stopped_with_its_full_time(
    alice: Any, bob: Any, time_machine: Any
) -> None:
    game = started_game(alice, bob, move_timeout_hours=24, bank_seconds=2 * HOUR, bank_cap_seconds=2 * HOUR)
    services.game_pause(game_id=game.pk, reason="server", now=at(1))
    time_machine.move_to(at(3), tick=False)

    play_a_take(game)

    game.refresh_from_db()
    assert game.deadline_at is None and game.clock_remaining == timedelta(hours=24 + 2)
    services.game_resume(game_id=game.pk, reason="server", now=at(5))
    game.refresh_from_db()
    assert game.deadline_at == at(5 + 26)


def test_time_while_paused_does_not_come_out_of_the_bank(alice: Any, bob: Any, time_machine: Any) -> None:
    game = started_game(alice, bob, move_timeout_hours=24, bank_seconds=10 * HOUR, bank_cap_seconds=10 * HOUR)
    first = seat_to_move(game)
    services.game_pause(game_id=game.pk, reason="server", now=at(20))
    services.game_resume(game_id=game.pk, reason="server", now=at(100))  # 80 hours stopped
    time_machine.move_to(at(110), tick=False)

    play_a_take(game)  # 30 hours of clock time used: 6 from the bank

    first.refresh_from_db()
    assert first.bank_seconds == 4 * HOUR


def test_a_paused_game_is_never_timed_out(alice: Any, bob: Any) -> None:
    game = started_game(alice, bob)
    services.game_pause(game_id=game.pk, reason="server", now=at(1))

    assert services.game_time_out_overdue(now=at(1000)) == 0
    assert events(game, "turn_timed_out") == []


def test_the_game_shows_that_it_is_paused_and_why_without_naming_the_moderator(
    alice: Any, bob: Any, charlie: Any
) -> None:
    game = started_game(alice, bob)
    services.game_pause(game_id=game.pk, reason="moderator", by_user_id=charlie.pk, now=at(1))

    body = client_for(alice).get(f"/api/v1/games/{game.pk}/").json()

    assert body["paused"] is True and body["deadline_at"] is None
    assert body["pauses"] == [
        {"reason": "moderator", "user": None, "started_at": "2026-03-02T13:00:00Z", "ends_at": None}
    ]


def test_a_pause_for_an_unknown_reason_or_ending_in_the_past_is_refused(alice: Any, bob: Any) -> None:
    game = started_game(alice, bob)
    with pytest.raises(InvalidInput, match="'lunch' is not a reason"):
        services.game_pause(game_id=game.pk, reason="lunch")
    with pytest.raises(InvalidInput, match="must end in the future"):
        services.game_pause(game_id=game.pk, reason="server", until=at(-1), now=at(0))
    assert not GamePause.objects.exists()


def test_only_an_active_game_can_be_paused(alice: Any, bob: Any) -> None:
    game = started_game(alice, bob)
    services.game_resign(game=game, user=alice)

    with pytest.raises(GameNotActive):
        services.game_pause(game_id=game.pk, reason="server")


def test_a_game_that_ends_while_paused_ends_its_pauses(alice: Any, bob: Any) -> None:
    game = started_game(alice, bob)
    services.game_pause(game_id=game.pk, reason="server", now=at(1))

    services.game_resign(game=game, user=bob)

    game.refresh_from_db()
    assert game.clock_remaining is None and game.deadline_at is None
    assert not GamePause.objects.filter(ended_at__isnull=True).exists()


def test_operators_pause_and_resume_every_active_game(alice: Any, bob: Any) -> None:
    games = [started_game(alice, bob), started_game(make_player("erin"), make_player("frank"))]
    out = StringIO()

    call_command("games_pause_all", "--reason", "server", "--note", "database outage", stdout=out)

    assert "2 game(s) paused (server)" in out.getvalue()
    assert Game.objects.filter(deadline_at__isnull=True).count() == 2
    call_command("games_resume_all", stdout=out)
    assert "2 game(s) resumed (server)" in out.getvalue()
    for game in games:
        game.refresh_from_db()
        assert game.deadline_at == NOON + timedelta(hours=72)
