"""Vacation: days per player per calendar year. A deadline that would pass takes
a whole day instead of a timeout, and days can be taken in advance; either way
the player's clocks stop in all their active games.

Personas: alice is the player who goes on vacation; bob plays against her in one
game and dave in another (conftest.py).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from games import selectors, services
from games.errors import InvalidVacation, NotEnoughVacation
from games.models import Game, GamePause, Seat, Vacation
from tests.games.clock_helpers import NOON, events, seat_to_move, started_game, time_out
from tests.games.game_helpers import client_for

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fixed_clock")]  # fixed_clock: at NOON (tests/games/conftest.py)


def alices_turn(game: Game) -> Game:
    """Make it alice's turn (the seat order is drawn at the start)."""
    seat = Seat.objects.get(game=game, user__username="alice")
    if game.to_move != seat.index:
        from tests.games.clock_helpers import play_a_take

        play_a_take(game)
        game.refresh_from_db()
    assert game.to_move == seat.index
    return game


def test_a_deadline_that_would_pass_takes_a_vacation_day_instead_of_a_timeout(
    alice: Any, bob: Any, dave: Any
) -> None:
    game = alices_turn(started_game(alice, bob))
    other = started_game(alice, dave)
    deadline = game.deadline_at
    assert deadline is not None

    assert time_out(game) is True

    game.refresh_from_db()
    other.refresh_from_db()
    assert events(game, "turn_timed_out") == []
    assert game.deadline_at is None and other.deadline_at is None
    [day] = Vacation.objects.filter(user=alice)
    assert (day.days, day.automatic, day.starts_at, day.ends_at) == (1, True, deadline, deadline + timedelta(days=1))
    [here] = events(game, "clock_paused")
    [there] = events(other, "clock_paused")
    until = (deadline + timedelta(days=1)).isoformat()
    assert {k: v for k, v in here.payload.items() if k != "version"} == {
        "reason": "vacation", "user_id": alice.pk, "until": until, "automatic": True, "notice": True,
    }
    assert (there.payload["notice"], there.payload["automatic"], there.payload["until"]) == (False, True, until)
    assert selectors.vacation_summary(user=alice)["days_left"] == 13


def test_when_the_day_is_over_the_clock_runs_again_and_the_next_deadline_takes_another(
    alice: Any, bob: Any
) -> None:
    game = alices_turn(started_game(alice, bob))
    time_out(game)
    pause = GamePause.objects.get(game=game)
    assert pause.ends_at is not None

    assert services.game_pauses_end_due(now=pause.ends_at) == 1
    game.refresh_from_db()
    assert game.deadline_at == pause.ends_at  # the time left when the day began: none
    time_out(game)

    assert Vacation.objects.filter(user=alice).count() == 2
    assert events(game, "turn_timed_out") == []


def test_with_no_days_left_the_deadline_is_a_timeout(alice: Any, bob: Any, settings: Any) -> None:
    settings.VACATION_DAYS_PER_YEAR = 1
    Vacation.objects.create(user=alice, starts_at=NOON - timedelta(days=30), ends_at=NOON - timedelta(days=29), days=1)
    game = alices_turn(started_game(alice, bob))

    time_out(game)

    assert len(events(game, "turn_timed_out")) == 1
    assert Vacation.objects.filter(user=alice).count() == 1


def test_a_player_already_on_vacation_takes_no_extra_day(alice: Any, bob: Any) -> None:
    services.vacation_take(user=alice, days=2)
    # Started during the vacation, so its clock runs; its deadline falls within the vacation.
    game = alices_turn(started_game(alice, bob, move_timeout_hours=24))

    time_out(game)

    assert list(Vacation.objects.filter(user=alice).values_list("days", flat=True)) == [2]
    assert GamePause.objects.get(game=game).ends_at == NOON + timedelta(days=2)


def test_days_taken_in_advance_stop_every_active_game_with_one_notice(alice: Any, bob: Any, dave: Any) -> None:
    games = [started_game(alice, bob), started_game(alice, dave)]

    answer = client_for(alice).post("/api/v1/me/vacation/", {"days": 3}, format="json")

    assert answer.status_code == 201, answer.json()
    body = answer.json()
    assert (body["days_used"], body["days_left"], body["days_per_year"], body["year"]) == (3, 11, 14, 2026)
    assert body["current"] == {
        "starts_at": "2026-03-02T12:00:00Z", "ends_at": "2026-03-05T12:00:00Z", "days": 3, "automatic": False,
    }
    notices = []
    for game in games:
        game.refresh_from_db()
        assert game.deadline_at is None
        [paused] = events(game, "clock_paused")
        assert paused.payload["until"] == (NOON + timedelta(days=3)).isoformat() and not paused.payload["automatic"]
        notices.append(paused.payload["notice"])
    assert sorted(notices) == [False, True]


def test_a_vacation_ends_by_itself_and_the_clocks_get_their_time_back(alice: Any, bob: Any) -> None:
    game = started_game(alice, bob, move_timeout_hours=24)
    services.vacation_take(user=alice, days=1, now=NOON + timedelta(hours=4))

    services.game_pauses_end_due(now=NOON + timedelta(days=1, hours=4))

    game.refresh_from_db()
    assert game.deadline_at == NOON + timedelta(days=1, hours=4 + 20)


def test_days_taken_during_a_vacation_follow_on_from_it(alice: Any, bob: Any) -> None:
    game = started_game(alice, bob)
    services.vacation_take(user=alice, days=2)
    services.vacation_take(user=alice, days=1, now=NOON + timedelta(hours=1))

    summary = selectors.vacation_summary(user=alice, now=NOON + timedelta(hours=2))

    assert summary["days_used"] == 3
    assert summary["planned"][0]["starts_at"] == NOON + timedelta(days=2)
    assert GamePause.objects.get(game=game, ended_at__isnull=True).ends_at == NOON + timedelta(days=3)


def test_days_are_counted_per_calendar_year(alice: Any, settings: Any) -> None:
    settings.VACATION_DAYS_PER_YEAR = 5
    services.vacation_take(user=alice, days=5)
    with pytest.raises(NotEnoughVacation):
        services.vacation_take(user=alice, days=1, now=NOON + timedelta(days=30))

    new_year = datetime(2027, 1, 1, 0, 0, tzinfo=UTC)
    assert selectors.vacation_summary(user=alice, now=new_year)["days_left"] == 5
    services.vacation_take(user=alice, days=5, now=new_year)


def test_asking_for_more_days_than_are_left_is_refused_saying_how_many_are(alice: Any) -> None:
    answer = client_for(alice).post("/api/v1/me/vacation/", {"days": 15}, format="json")

    assert answer.status_code == 422
    assert answer.json()["code"] == "not_enough_vacation"
    assert answer.json()["days_left"] == 14
    assert "15 days of vacation but have 14 days left" in answer.json()["detail"]
    assert not Vacation.objects.exists()


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ({"days": 0}, 400, "invalid_vacation"),
        ({"days": -2}, 400, "invalid_vacation"),
        ({"days": "3"}, 400, "validation_error"),
        ({}, 400, "validation_error"),
        ({"days": 1, "from": "monday"}, 400, "validation_error"),
    ],
)
def test_a_vacation_request_that_makes_no_sense_is_refused(
    alice: Any, body: dict[str, Any], status: int, code: str
) -> None:
    answer = client_for(alice).post("/api/v1/me/vacation/", body, format="json")

    assert (answer.status_code, answer.json()["code"]) == (status, code)
    assert not Vacation.objects.exists()


def test_fewer_than_one_day_is_refused_by_the_service_too(alice: Any) -> None:
    with pytest.raises(InvalidVacation, match="at least one day"):
        services.vacation_take(user=alice, days=0)


def test_the_vacation_page_shows_days_used_left_and_what_is_planned(alice: Any) -> None:
    services.vacation_take(user=alice, days=2)

    body = client_for(alice, ("read",)).get("/api/v1/me/vacation/").json()

    assert (body["days_used"], body["days_left"]) == (2, 12)
    assert body["current"]["ends_at"] == "2026-03-04T12:00:00Z"
    assert body["planned"] == []


def test_a_vacation_pause_names_only_the_player_on_vacation(alice: Any, bob: Any) -> None:
    game = started_game(alice, bob)
    services.vacation_take(user=alice, days=1)

    body = client_for(bob).get(f"/api/v1/games/{game.pk}/").json()

    assert [(p["reason"], p["user"]) for p in body["pauses"]] == [("vacation", "alice")]
    assert seat_to_move(game).user in (alice, bob)
