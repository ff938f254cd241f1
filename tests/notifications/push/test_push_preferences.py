"""Push has a switch per kind beside email's preferences, in the API and on the
settings page; the kinds besides turns (invitations, game over) are pushed too."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import Client

from games import services
from notifications.models import Preferences, PushSubscription
from tests.games.game_helpers import client_for
from tests.notifications.email_helpers import start_game
from tests.notifications.push.push_helpers import Browser, PushService

pytestmark = pytest.mark.django_db

PUSH_FIELDS = ["push_your_turn", "push_reminder", "push_invitation", "push_chat_line", "push_game_over"]


def test_the_push_switches_are_on_by_default_and_patched_like_the_others(alice: Any) -> None:
    client = client_for(alice)
    body = client.get("/api/v1/me/notifications/").json()
    assert {name: body[name] for name in PUSH_FIELDS} == dict.fromkeys(PUSH_FIELDS, True)
    answer = client.patch("/api/v1/me/notifications/", {"push_chat_line": False}, format="json")
    assert answer.status_code == 200
    assert answer.json()["push_chat_line"] is False and answer.json()["mode"] == "every_turn"
    assert Preferences.objects.get(user=alice).push_chat_line is False


def test_a_push_switch_takes_only_true_or_false(alice: Any) -> None:
    answer = client_for(alice).patch("/api/v1/me/notifications/", {"push_game_over": "maybe"}, format="json")
    assert answer.status_code == 400
    assert "push_game_over" in answer.json()["errors"]


def test_the_settings_page_shows_and_saves_the_push_switches(alice: Any) -> None:
    client = Client()
    client.force_login(alice)
    page = client.get("/accounts/settings/").content.decode()
    assert 'name="push_your_turn"' in page and 'name="push_game_over"' in page
    answer = client.post(
        "/accounts/settings/",
        {"form": "notifications", "mode": "every_turn", "digest_hour": "8", "reminder_hours": "24",
         "push_your_turn": "on"},
    )
    assert answer.status_code == 303
    saved = Preferences.objects.get(user=alice)
    assert saved.push_your_turn and not saved.push_invitation and not saved.push_game_over


def test_an_invitation_and_the_game_over_are_pushed(
    alice: Any, bob: Any, commit: Any, push_service: PushService
) -> None:
    browser = Browser()
    PushSubscription.objects.create(user=bob, endpoint=push_service.endpoint(), **browser.subscription("x")["keys"])
    game = start_game(commit, alice, bob)
    kinds = [json.loads(browser.decrypt(r.body))["kind"] for r in push_service.received]
    assert kinds[0] == "invitation"
    with commit():
        services.game_resign(game=game, user=alice)
    last = json.loads(browser.decrypt(push_service.received[-1].body))
    assert last["kind"] == "game_over"
    assert last["title"] and game.pk in last["body"]
