"""confirm_moves: whether the game page asks before it sends a move. On by
default; changed through PATCH /api/v1/me/ or the settings page."""

from __future__ import annotations

from typing import Any

import pytest

from accounts.models import Player
from tests.accounts.pages_helpers import logged_in_client, page_text
from tests.games.game_helpers import client_for

pytestmark = pytest.mark.django_db


def test_a_new_player_is_asked_to_confirm_moves(alice: Any) -> None:
    assert Player.objects.get(user=alice).confirm_moves is True
    assert client_for(alice, ("read",)).get("/api/v1/me/").json()["confirm_moves"] is True


def test_the_api_turns_it_off_and_on(alice: Any) -> None:
    api = client_for(alice)
    answer = api.patch("/api/v1/me/", {"confirm_moves": False}, format="json")
    assert answer.status_code == 200 and answer.json()["confirm_moves"] is False
    assert Player.objects.get(user=alice).confirm_moves is False
    assert api.patch("/api/v1/me/", {"confirm_moves": True}, format="json").json()["confirm_moves"] is True


def test_the_api_refuses_what_is_not_a_boolean(alice: Any) -> None:
    answer = client_for(alice).patch("/api/v1/me/", {"confirm_moves": "perhaps"}, format="json")
    assert answer.status_code == 400 and "confirm_moves" in answer.json()["errors"]
    assert Player.objects.get(user=alice).confirm_moves is True


def test_the_settings_page_shows_the_checkbox_ticked_by_default(alice: Any) -> None:
    content = logged_in_client(alice).get("/accounts/settings/").content.decode()
    assert 'name="confirm_moves" id="id_confirm_moves" checked' in content
    assert '<label for="id_confirm_moves">Ask me to confirm a move before it is sent</label>' in content


def test_the_settings_page_saves_it(alice: Any) -> None:
    browser = logged_in_client(alice)
    answer = browser.post("/accounts/settings/", {"form": "moves"}, follow=True)
    assert "Saved: moves are sent at once." in page_text(answer)
    assert Player.objects.get(user=alice).confirm_moves is False
    assert 'id="id_confirm_moves" checked' not in answer.content.decode()
    browser.post("/accounts/settings/", {"form": "moves", "confirm_moves": "on"})
    assert Player.objects.get(user=alice).confirm_moves is True
