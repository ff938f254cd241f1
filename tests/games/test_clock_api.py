"""The time control and the timeout policy through the API: accepted at creation,
shown in every game representation (so a player sees them before joining), and
refused with a clear error when wrong.

Personas: alice creates games, bob is invited, charlie browses the open games.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from games.models import Game
from tests.games.clock_helpers import HOUR, NOON, started_game, time_out
from tests.games.game_helpers import client_for

pytestmark = pytest.mark.django_db

CLOCK = {
    "move_timeout_hours": 24,
    "time_bank_hours": 10,
    "time_bank_cap_hours": 48,
    "timeout_policy": {"forfeit_after": 2},
}


def test_a_game_is_created_with_a_time_control_and_shows_it(alice: Any, bob: Any) -> None:
    answer = client_for(alice).post("/api/v1/games/", {"invited": ["bob"], **CLOCK}, format="json")

    assert answer.status_code == 201, answer.json()
    body = answer.json()
    assert body["time_control"] == {"move_seconds": 24 * HOUR, "bank_seconds": 10 * HOUR, "bank_cap_seconds": 48 * HOUR}
    assert body["timeout_policy"] == {"forfeit_after": 2}
    assert body["move_timeout_hours"] == 24
    assert body["paused"] is False and body["pauses"] == []


def test_the_open_games_list_shows_the_time_control_before_anyone_joins(alice: Any, charlie: Any) -> None:
    client_for(alice).post("/api/v1/games/", {**CLOCK, "public": True}, format="json")

    listed = client_for(charlie, ("read",)).get("/api/v1/games/?status=open").json()["results"]

    assert listed[0]["time_control"]["bank_cap_seconds"] == 48 * HOUR
    assert listed[0]["timeout_policy"] == {"forfeit_after": 2}


def test_the_defaults_are_72_hours_no_bank_and_forfeit_after_three(alice: Any) -> None:
    body = client_for(alice).post("/api/v1/games/", {}, format="json").json()

    assert body["time_control"] == {"move_seconds": 72 * HOUR, "bank_seconds": 0, "bank_cap_seconds": 0}
    assert body["timeout_policy"] == {"forfeit_after": 3}


def test_each_seat_shows_its_bank_and_timeouts_in_a_row(alice: Any, bob: Any, time_machine: Any, settings: Any) -> None:
    settings.VACATION_DAYS_PER_YEAR = 0
    time_machine.move_to(NOON, tick=False)
    game = started_game(alice, bob, bank_seconds=2 * HOUR, bank_cap_seconds=4 * HOUR)
    time_out(game)

    seats = client_for(alice).get(f"/api/v1/games/{game.pk}/").json()["seats"]

    late = next(seat for seat in seats if seat["consecutive_timeouts"] == 1)
    assert late["bank_seconds"] == 0
    assert [seat["bank_seconds"] for seat in seats if seat is not late] == [2 * HOUR]


def test_the_move_history_says_who_played_each_move(alice: Any, bob: Any, time_machine: Any, settings: Any) -> None:
    settings.VACATION_DAYS_PER_YEAR = 0
    time_machine.move_to(NOON, tick=False)
    game = started_game(alice, bob)
    time_out(game)

    history = client_for(bob).get(f"/api/v1/games/{game.pk}/moves/").json()

    assert [(entry["played_by"], entry["automatic"]) for entry in history] == [("bot", True)]


def test_times_in_seconds_are_refused_without_the_setting(alice: Any) -> None:
    answer = client_for(alice).post(
        "/api/v1/games/", {"move_timeout_seconds": 30, "time_bank_seconds": 10}, format="json"
    )

    assert answer.status_code == 400
    errors = answer.json()["errors"]
    assert "GAME_CLOCK_SECONDS" in errors["move_timeout_seconds"][0]
    assert "time_bank_hours" in errors["time_bank_seconds"][0]
    assert not Game.objects.exists()


def test_times_in_seconds_are_taken_with_the_setting(alice: Any, settings: Any) -> None:
    settings.GAME_CLOCK_SECONDS = True
    body = client_for(alice).post(
        "/api/v1/games/",
        {"move_timeout_seconds": 30, "time_bank_seconds": 10, "time_bank_cap_seconds": 60},
        format="json",
    ).json()

    assert body["time_control"] == {"move_seconds": 30, "bank_seconds": 10, "bank_cap_seconds": 60}
    # Not whole hours: the deprecated field says it has no answer rather than 0 hours.
    assert body["move_timeout_hours"] is None


def test_the_deprecated_hours_field_shows_a_time_in_seconds_that_is_whole_hours(alice: Any, settings: Any) -> None:
    settings.GAME_CLOCK_SECONDS = True
    client = client_for(alice, scopes=("read", "play"))
    created = client.post("/api/v1/games/", {"move_timeout_seconds": 2 * 3600}, format="json").json()
    listed = client.get("/api/v1/games/?mine=true").json()["results"]

    assert created["move_timeout_hours"] == 2
    assert [game["move_timeout_hours"] for game in listed] == [2]


def test_the_schema_marks_the_hours_field_deprecated_and_nullable() -> None:
    from drf_spectacular.generators import SchemaGenerator

    components = SchemaGenerator().get_schema(request=None, public=True)["components"]["schemas"]
    for name in ("GameSummary", "GameView"):
        field = components[name]["properties"]["move_timeout_hours"]
        assert (field["deprecated"], field["nullable"]) == (True, True), name
        assert "time_control" in field["description"]


def test_a_time_in_seconds_and_in_hours_for_the_same_thing_is_refused(alice: Any, settings: Any) -> None:
    settings.GAME_CLOCK_SECONDS = True
    answer = client_for(alice).post(
        "/api/v1/games/", {"move_timeout_seconds": 30, "move_timeout_hours": 1}, format="json"
    )
    assert answer.status_code == 400
    assert answer.json()["errors"]["move_timeout_seconds"] == [
        "Give `move_timeout_seconds` or `move_timeout_hours`, not both."
    ]


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"timeout_policy": {"forfeit_after": 0}}, "timeout_policy"),
        ({"timeout_policy": {"forfeit_after": "2"}}, "timeout_policy"),
        ({"timeout_policy": {"forfeit": 2}}, "timeout_policy"),
        ({"timeout_policy": {}}, "timeout_policy"),
        ({"time_bank_hours": -1}, "time_bank_hours"),
        ({"time_bank_hours": 1.5}, "time_bank_hours"),
    ],
)
def test_a_malformed_time_control_is_a_validation_error_naming_the_field(
    alice: Any, body: dict[str, Any], field: str
) -> None:
    answer = client_for(alice).post("/api/v1/games/", body, format="json")

    assert answer.status_code == 400
    assert answer.json()["code"] == "validation_error"
    assert field in answer.json()["errors"]


def test_a_cap_below_the_bank_is_refused_as_an_invalid_setup(alice: Any) -> None:
    answer = client_for(alice).post(
        "/api/v1/games/", {"time_bank_hours": 10, "time_bank_cap_hours": 5}, format="json"
    )

    assert answer.status_code == 400
    assert answer.json()["code"] == "invalid_game_setup"
    assert "cap must be at least the bank at the start (10 hours)" in answer.json()["detail"]


def test_a_deadline_is_the_turns_start_plus_time_per_move_plus_the_bank(
    alice: Any, bob: Any, time_machine: Any
) -> None:
    time_machine.move_to(NOON, tick=False)
    client_for(alice).post("/api/v1/games/", {"invited": ["bob"], **CLOCK}, format="json")
    game = Game.objects.get()
    body = client_for(bob).post(f"/api/v1/games/{game.pk}/join/", {}, format="json").json()

    assert body["deadline_at"] == (NOON + timedelta(hours=24 + 10)).isoformat().replace("+00:00", "Z")


def test_a_game_can_be_created_public_and_rated_and_says_so(alice: Any) -> None:
    answer = client_for(alice).post("/api/v1/games/", {"public": True, "rated": True}, format="json")
    assert answer.status_code == 201, answer.content
    assert answer.json()["public"] is True and answer.json()["rated"] is True
    plain = client_for(alice).post("/api/v1/games/", {}, format="json").json()
    assert plain["public"] is False and plain["rated"] is False
