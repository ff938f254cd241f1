"""The admin lists preferences and mutes, found by username; a change made there
goes through the service, so the next digest follows it."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
import time_machine

from notifications.models import GameMute, Preferences
from notifications.preferences.services import preferences_update
from tests.games.game_helpers import start_two_player_game

pytestmark = pytest.mark.django_db


def test_preferences_are_found_by_username(admin_client: Any, alice: Any, bob: Any) -> None:
    preferences_update(user=alice, mode="digest")
    preferences_update(user=bob, mode="off")

    page = admin_client.get("/admin/notifications/preferences/", {"q": "alice"})

    assert page.status_code == 200
    assert [p.user_id for p in page.context["cl"].result_list] == [alice.pk]


def test_mutes_are_found_by_username(admin_client: Any, alice: Any, bob: Any) -> None:
    game = start_two_player_game(alice, bob)
    GameMute.objects.create(user=alice, game=game)
    GameMute.objects.create(user=bob, game=game)

    page = admin_client.get("/admin/notifications/gamemute/", {"q": "bob"})

    assert page.status_code == 200
    assert [m.user_id for m in page.context["cl"].result_list] == [bob.pk]


def test_a_change_in_the_admin_moves_the_next_digest(admin_client: Any, alice: Any) -> None:
    with time_machine.travel(datetime(2026, 11, 2, 9, 0, tzinfo=UTC), tick=False):
        preferences_update(user=alice, mode="digest", digest_hour=8)
        row = Preferences.objects.get(user=alice)
        answer = admin_client.post(
            f"/admin/notifications/preferences/{row.pk}/change/",
            {"user": alice.pk, "mode": "digest", "digest_hour": 20, "reminder_hours": "[24, 2]"},
        )

    assert answer.status_code == 302
    assert Preferences.objects.get(user=alice).next_digest_at == datetime(2026, 11, 2, 20, 0, tzinfo=UTC)


def test_the_admin_refuses_reminder_hours_the_api_would_refuse(admin_client: Any, alice: Any) -> None:
    preferences_update(user=alice, mode="digest")
    row = Preferences.objects.get(user=alice)

    page = admin_client.post(
        f"/admin/notifications/preferences/{row.pk}/change/",
        {"user": alice.pk, "mode": "digest", "digest_hour": 8, "reminder_hours": "[0, 2]"},
    )

    assert page.status_code == 200
    assert "0 is not a number of hours from 1 to 168." in page.content.decode()
    assert Preferences.objects.get(user=alice).reminder_hours == [24, 2]
