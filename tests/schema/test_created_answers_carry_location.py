"""Every ``201 Created`` answer carries ``Location``, the path of what it created,
and the schema says so: a client learns where the new game, move, token, address,
webhook or vacation is without building the URL itself.

- alice creates: games, tokens, addresses, webhooks, vacation days.
- bob is her opponent, so that her game starts and she can move.
- dave has lost his token and mints one with an emailed code.
"""

from __future__ import annotations

import socket
from typing import Any

import pytest
from django.core import mail
from drf_spectacular.generators import SchemaGenerator

from accounts.services import player_create
from tests.accounts.conftest import SignupFlow, client_with
from tests.games.game_helpers import client_for, start_two_player_game, user_to_move
from tests.webhooks.webhook_helpers import PUBLIC_ADDRESS, FakeDNS

pytestmark = pytest.mark.django_db

METHODS = {"get", "put", "post", "patch", "delete"}


@pytest.fixture(autouse=True)
def _no_throttling(settings: Any) -> None:
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {**settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "user": "100000/minute"},
    }


def test_every_201_answer_in_the_schema_documents_a_required_location_header() -> None:
    openapi = SchemaGenerator().get_schema(request=None, public=True)
    created = {
        f"{method.upper()} {path}": operation["responses"]["201"].get("headers", {}).get("Location")
        for path, item in openapi["paths"].items()
        for method, operation in item.items()
        if method in METHODS and "201" in operation["responses"]
    }
    assert {"POST /api/v1/games/", "POST /api/v1/games/{game_id}/moves/", "POST /api/v1/tokens/"} <= set(created)
    undocumented = sorted(label for label, header in created.items() if not header or not header.get("required"))
    assert undocumented == []
    assert all(header["schema"] == {"type": "string", "format": "uri-reference"} for header in created.values())


def test_a_created_game_is_at_its_location(alice: Any, bob: Any) -> None:
    client = client_for(alice, scopes=("read", "play"))
    answer = client.post("/api/v1/games/", {"invited": ["bob"]}, format="json")
    assert answer.status_code == 201, answer.json()
    assert answer["Location"] == f"/api/v1/games/{answer.json()['id']}/"
    assert client.get(answer["Location"]).json()["id"] == answer.json()["id"]


def test_a_practice_game_is_at_its_location(alice: Any) -> None:
    answer = client_for(alice).post("/api/v1/games/", {"bots": ["random"]}, format="json")
    assert answer.status_code == 201, answer.json()
    assert answer["Location"] == f"/api/v1/games/{answer.json()['id']}/"


def test_a_sandbox_is_at_its_location(alice: Any, bob: Any) -> None:
    game = start_two_player_game(alice, bob)
    answer = client_for(alice).post(f"/api/v1/games/{game.pk}/sandbox/", {}, format="json")
    assert answer.status_code == 201, answer.json()
    assert answer["Location"] == f"/api/v1/games/{answer.json()['id']}/" != f"/api/v1/games/{game.pk}/"


def test_a_move_is_located_in_its_games_move_history_at_its_ply(alice: Any, bob: Any) -> None:
    game = start_two_player_game(alice, bob)
    client = client_for(user_to_move(game), scopes=("read", "play"))
    body = {"move": "take WUG", "expected_version": game.version}
    answer = client.post(f"/api/v1/games/{game.pk}/moves/", body, format="json")
    assert answer.status_code == 201, answer.json()
    assert answer["Location"] == f"/api/v1/games/{game.pk}/moves/"
    history = client.get(answer["Location"]).json()
    assert [entry["move"] for entry in history if entry["ply"] == answer.json()["ply"]] == ["take WUG"]


def test_a_replayed_move_answer_carries_the_same_location(alice: Any, bob: Any) -> None:
    game = start_two_player_game(alice, bob)
    client = client_for(user_to_move(game))
    body = {"move": "take WUG", "expected_version": game.version}
    first, again = (
        client.post(f"/api/v1/games/{game.pk}/moves/", body, format="json", HTTP_IDEMPOTENCY_KEY="k-1")
        for _ in range(2)
    )
    assert (first.status_code, again.status_code, again["Idempotent-Replayed"]) == (201, 201, "true")
    assert first["Location"] == again["Location"] == f"/api/v1/games/{game.pk}/moves/"


def test_a_minted_token_is_at_its_location_where_it_is_revoked(alice: Any) -> None:
    client = client_for(alice)
    answer = client.post("/api/v1/tokens/", {"name": "laptop"}, format="json")
    assert answer.status_code == 201, answer.json()
    assert answer["Location"] == f"/api/v1/tokens/{answer.json()['id']}/"
    assert client.delete(answer["Location"]).status_code == 204


def test_a_token_minted_with_an_emailed_code_is_at_its_location(django_capture_on_commit_callbacks: Any) -> None:
    player_create(username="dave", email="dave@example.com", display_name="Dave")
    with django_capture_on_commit_callbacks(execute=True):
        asked = client_with().post("/api/v1/tokens/recover/", {"email": "dave@example.com"}, format="json")
    assert asked.status_code == 202 and len(mail.outbox) == 1
    body = {"email": "dave@example.com", "code": SignupFlow.last_code("dave@example.com"), "name": "new laptop"}
    answer = client_with().post("/api/v1/tokens/recover/confirm/", body, format="json")
    assert answer.status_code == 201, answer.json()
    assert answer["Location"] == f"/api/v1/tokens/{answer.json()['id']}/"


def test_an_added_address_is_at_its_location(alice: Any) -> None:
    client = client_for(alice)
    answer = client.post("/api/v1/me/emails/", {"address": "alice@work.example"}, format="json")
    assert answer.status_code == 201, answer.json()
    assert answer["Location"] == f"/api/v1/me/emails/{answer.json()['id']}/"
    assert client.delete(answer["Location"]).status_code == 204


def test_a_webhook_is_at_its_location(alice: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(socket, "getaddrinfo", FakeDNS({"hooks.alice.example": [PUBLIC_ADDRESS]}).getaddrinfo)
    client = client_for(alice, scopes=("read", "play"))
    answer = client.post("/api/v1/webhooks/", {"url": "https://hooks.alice.example/splendor"}, format="json")
    assert answer.status_code == 201, answer.json()
    assert answer["Location"] == f"/api/v1/webhooks/{answer.json()['id']}/"
    assert client.get(answer["Location"]).json()["url"] == "https://hooks.alice.example/splendor"


def test_vacation_days_taken_are_at_their_location(alice: Any) -> None:
    client = client_for(alice, scopes=("read", "play"))
    answer = client.post("/api/v1/me/vacation/", {"days": 2}, format="json")
    assert answer.status_code == 201, answer.json()
    assert answer["Location"] == "/api/v1/me/vacation/"
    assert client.get(answer["Location"]).json() == answer.json()
