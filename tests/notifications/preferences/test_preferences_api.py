"""GET/PATCH /api/v1/me/notifications/ and PUT/DELETE /api/v1/games/{id}/mute/."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
import time_machine

from notifications.models import GameMute, Preferences
from tests.games.game_helpers import client_for, start_two_player_game

pytestmark = pytest.mark.django_db

URL = "/api/v1/me/notifications/"


def mute_url(game_id: str) -> str:
    return f"/api/v1/games/{game_id}/mute/"


def test_a_player_who_never_chose_has_the_defaults(alice: Any) -> None:
    answer = client_for(alice, ("read",)).get(URL)

    assert answer.status_code == 200
    assert answer.json() == {
        "mode": "every_turn",
        "digest_hour": 8,
        "reminder_hours": [24, 2],
        "muted_games": [],
        "next_digest_at": None,
        # Push to subscribed browsers (notifications.push): every kind on until turned off.
        "push_your_turn": True,
        "push_reminder": True,
        "push_invitation": True,
        "push_chat_line": True,
        "push_game_over": True,
    }
    assert not Preferences.objects.filter(user=alice).exists()


def test_a_player_chooses_the_digest_at_their_hour(alice: Any) -> None:
    with time_machine.travel(datetime(2026, 11, 2, 9, 0, tzinfo=UTC), tick=False):
        answer = client_for(alice).patch(
            URL, {"mode": "digest", "digest_hour": 7, "reminder_hours": [2, 48, 12]}, format="json"
        )

    assert answer.status_code == 200
    body = answer.json()
    assert body["mode"] == "digest" and body["digest_hour"] == 7
    assert body["reminder_hours"] == [48, 12, 2]
    assert body["next_digest_at"] == "2026-11-03T07:00:00Z"
    assert client_for(alice, ("read",)).get(URL).json() == body


def test_what_a_patch_leaves_out_stays_as_it_was(alice: Any) -> None:
    client_for(alice).patch(URL, {"reminder_hours": [6]}, format="json")
    client_for(alice).patch(URL, {"mode": "off"}, format="json")

    assert client_for(alice, ("read",)).get(URL).json()["reminder_hours"] == [6]


def test_no_reminders_at_all_is_an_empty_list(alice: Any) -> None:
    answer = client_for(alice).patch(URL, {"reminder_hours": []}, format="json")

    assert answer.status_code == 200
    assert answer.json()["reminder_hours"] == []


@pytest.mark.parametrize(
    ("body", "field", "words"),
    [
        ({"mode": "weekly"}, "mode", '"weekly" is not a mode; choose one of every_turn, digest, off.'),
        ({"digest_hour": 24}, "digest_hour", "An hour of the day runs from 0 to 23."),
        ({"digest_hour": -1}, "digest_hour", "An hour of the day runs from 0 to 23."),
        ({"digest_hour": "8"}, "digest_hour", "Must be a whole number"),
        ({"reminder_hours": [0]}, "reminder_hours", "0 is not a number of hours from 1 to 168."),
        ({"reminder_hours": [169]}, "reminder_hours", "169 is not a number of hours from 1 to 168."),
        ({"reminder_hours": [2, 24, 2]}, "reminder_hours", "2 appears more than once"),
        ({"reminder_hours": [1, 2, 3, 4, 5, 6]}, "reminder_hours", "At most 5 reminders per turn; this list has 6."),
        ({"reminder_hours": 24}, "reminder_hours", "list"),
        ({"reminder_hours": ["24"]}, "reminder_hours", "Must be a whole number"),
        ({"muted_games": ["abc"]}, "muted_games", "no such field"),
        ({"next_digest_at": None}, "next_digest_at", "no such field"),
    ],
)
def test_a_bad_preference_is_refused_saying_what_was_wrong(
    alice: Any, body: dict[str, Any], field: str, words: str
) -> None:
    answer = client_for(alice).patch(URL, body, format="json")

    assert answer.status_code == 400
    assert answer["Content-Type"].startswith("application/problem+json")
    problem = answer.json()
    assert problem["code"] == "validation_error"
    assert words in str(problem["errors"][field])


def test_nothing_is_saved_when_one_of_the_changes_is_refused(alice: Any) -> None:
    answer = client_for(alice).patch(URL, {"mode": "digest", "reminder_hours": [3, 3]}, format="json")

    assert answer.status_code == 400
    assert client_for(alice, ("read",)).get(URL).json()["mode"] == "every_turn"


def test_a_read_token_reads_but_cannot_change_preferences(alice: Any) -> None:
    answer = client_for(alice, ("read",)).patch(URL, {"mode": "off"}, format="json")

    assert answer.status_code == 403
    assert answer.json()["code"] == "insufficient_scope"


def test_preferences_need_a_token(db: None) -> None:
    from rest_framework.test import APIClient

    assert APIClient().get(URL).status_code == 401


# --- mutes ---------------------------------------------------------------------------


def test_a_player_mutes_and_unmutes_their_game(alice: Any, bob: Any) -> None:
    game = start_two_player_game(alice, bob)
    client = client_for(alice)

    muted = client.put(mute_url(game.pk))
    assert muted.status_code == 200
    assert muted.json() == {"game_id": game.pk, "muted": True}
    assert client.get(URL).json()["muted_games"] == [game.pk]

    unmuted = client.delete(mute_url(game.pk))
    assert unmuted.status_code == 200
    assert unmuted.json() == {"game_id": game.pk, "muted": False}
    assert client.get(URL).json()["muted_games"] == []


def test_muting_twice_is_one_mute_and_unmuting_twice_is_fine(alice: Any, bob: Any) -> None:
    game = start_two_player_game(alice, bob)
    client = client_for(alice)

    assert client.put(mute_url(game.pk)).status_code == 200
    assert client.put(mute_url(game.pk)).status_code == 200
    assert GameMute.objects.filter(user=alice, game=game).count() == 1
    assert client.delete(mute_url(game.pk)).status_code == 200
    assert client.delete(mute_url(game.pk)).status_code == 200
    assert not GameMute.objects.filter(user=alice).exists()


def test_a_player_without_a_seat_cannot_mute_the_game(alice: Any, bob: Any, charlie: Any) -> None:
    # A public game they may watch: refused as not theirs to mute.
    game = start_two_player_game(alice, bob, public=True)
    for answer in (client_for(charlie).put(mute_url(game.pk)), client_for(charlie).delete(mute_url(game.pk))):
        assert answer.status_code == 403
        assert answer.json()["code"] == "not_a_player"
    # A private one does not exist for them.
    private = start_two_player_game(alice, bob)
    for answer in (client_for(charlie).put(mute_url(private.pk)), client_for(charlie).delete(mute_url(private.pk))):
        assert answer.status_code == 404
        assert answer.json()["code"] == "game_not_found"
    assert not GameMute.objects.exists()


def test_muting_an_unknown_game_is_a_not_found_problem(alice: Any) -> None:
    answer = client_for(alice).put(mute_url("nosuchgame"))

    assert answer.status_code == 404
    assert answer["Content-Type"].startswith("application/problem+json")
    assert answer.json()["code"] == "game_not_found"


def test_muting_needs_a_play_token(alice: Any, bob: Any) -> None:
    game = start_two_player_game(alice, bob)

    answer = client_for(alice, ("read",)).put(mute_url(game.pk))

    assert answer.status_code == 403
    assert answer.json()["code"] == "insufficient_scope"
