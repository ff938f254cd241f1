"""PATCH /api/v1/me/ sets the player's time zone; GET shows it, and warns when mail bounced."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
import time_machine

from accounts.models import Player
from notifications.models import Preferences
from notifications.preferences.services import preferences_update
from tests.games.game_helpers import client_for, make_player

pytestmark = pytest.mark.django_db


@pytest.fixture
def alice(db: None) -> Any:
    return make_player("alice")


def test_a_player_sets_their_time_zone_by_its_iana_name(alice: Any) -> None:
    answer = client_for(alice).patch("/api/v1/me/", {"time_zone": "Europe/Riga"}, format="json")

    assert answer.status_code == 200
    assert answer.json()["time_zone"] == "Europe/Riga"
    assert Player.objects.get(user=alice).time_zone == "Europe/Riga"
    assert client_for(alice, ("read",)).get("/api/v1/me/").json()["time_zone"] == "Europe/Riga"


def test_a_new_player_is_in_utc(alice: Any) -> None:
    assert client_for(alice, ("read",)).get("/api/v1/me/").json()["time_zone"] == "UTC"


@pytest.mark.parametrize("bad", ["Mars/Olympus_Mons", "+02:00", "europe/riga", "", "Europe/../etc/passwd"])
def test_a_name_that_is_not_an_iana_time_zone_is_refused_and_named(alice: Any, bad: str) -> None:
    answer = client_for(alice).patch("/api/v1/me/", {"time_zone": bad}, format="json")

    assert answer.status_code == 400
    body = answer.json()
    assert answer["Content-Type"].startswith("application/problem+json")
    assert body["code"] == "validation_error"
    assert "time_zone" in body["errors"]
    if bad:
        assert repr(bad) in body["errors"]["time_zone"][0]
    assert Player.objects.get(user=alice).time_zone == "UTC"


def test_a_time_zone_that_is_not_text_is_refused(alice: Any) -> None:
    answer = client_for(alice).patch("/api/v1/me/", {"time_zone": 3}, format="json")

    assert answer.status_code == 400
    assert "time_zone" in answer.json()["errors"]


def test_an_unknown_field_is_refused_by_name(alice: Any) -> None:
    answer = client_for(alice).patch("/api/v1/me/", {"timezone": "Europe/Riga"}, format="json")

    assert answer.status_code == 400
    assert "timezone" in answer.json()["errors"]


def test_a_read_token_cannot_change_the_time_zone(alice: Any) -> None:
    answer = client_for(alice, ("read",)).patch("/api/v1/me/", {"time_zone": "Europe/Riga"}, format="json")

    assert answer.status_code == 403
    assert answer.json()["code"] == "insufficient_scope"


def test_me_warns_when_mail_to_the_address_bounced(alice: Any) -> None:
    Player.objects.filter(user=alice).update(
        email_undeliverable_at=datetime(2026, 11, 3, 14, 5, tzinfo=UTC), email_undeliverable_reason="mailbox unknown"
    )

    warning = client_for(alice, ("read",)).get("/api/v1/me/").json()["email_warning"]

    assert "alice@example.com" in warning
    assert "bounced on 2026-11-03 14:05 UTC" in warning
    assert "change your address" in warning


def test_me_has_no_warning_while_mail_is_delivered(alice: Any) -> None:
    assert client_for(alice, ("read",)).get("/api/v1/me/").json()["email_warning"] is None


def test_changing_the_time_zone_moves_the_next_digest_to_the_local_hour(
    alice: Any, django_capture_on_commit_callbacks: Any
) -> None:
    with time_machine.travel(datetime(2026, 11, 2, 9, 0, tzinfo=UTC), tick=False):
        preferences_update(user=alice, mode="digest", digest_hour=8)
        assert Preferences.objects.get(user=alice).next_digest_at == datetime(2026, 11, 3, 8, 0, tzinfo=UTC)

        with django_capture_on_commit_callbacks(execute=True):
            client_for(alice).patch("/api/v1/me/", {"time_zone": "Europe/Riga"}, format="json")

    # 08:00 in Riga (UTC+2 in winter) is 06:00 UTC.
    assert Preferences.objects.get(user=alice).next_digest_at == datetime(2026, 11, 3, 6, 0, tzinfo=UTC)
