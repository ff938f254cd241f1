"""Every endpoint that reads a JSON body refuses fields it does not know, naming
them (api.serializers.StrictInputSerializer), and the strict JSON fields take
only the JSON type they name."""

from __future__ import annotations

import re
from typing import Any

import pytest
from drf_spectacular.generators import SchemaGenerator
from rest_framework import serializers
from rest_framework.test import APIClient

from accounts.services import player_create, token_create
from accounts.services.addresses import email_address_add
from api.serializers import JSONIntegerField, JSONStringField, StrictInputSerializer
from games import services
from tournaments.services import tournament_create
from webhooks.services import endpoint_create

pytestmark = pytest.mark.django_db

BODY_METHODS = ("post", "put", "patch", "delete")
STRAY = "surely_not_a_field"


class _Example(StrictInputSerializer):
    """An example request with a number, a text and a field the server fills."""

    count = JSONIntegerField(required=False)
    name = JSONStringField(required=False)
    shown = serializers.CharField(read_only=True)


def test_a_strict_serializer_names_each_unknown_field_and_the_fields_it_takes() -> None:
    example = _Example(data={"count": 1, "colour": "red", "shown": "x"})
    assert not example.is_valid()
    message = "This request has no such field; the fields here are `count` and `name`."
    assert example.errors == {"colour": [message], "shown": [message]}


def test_a_strict_serializer_takes_its_own_fields() -> None:
    example = _Example(data={"count": 1, "name": "a"})
    assert example.is_valid(), example.errors
    assert example.validated_data == {"count": 1, "name": "a"}


@pytest.mark.parametrize("value", ["5", 5.0, True, False, None, [5]])
def test_a_json_integer_field_takes_only_a_json_integer(value: Any) -> None:
    assert not _Example(data={"count": value}).is_valid()


@pytest.mark.parametrize("value", [5, 5.5, True, ["a"], {"a": 1}])
def test_a_json_string_field_takes_only_a_json_string(value: Any) -> None:
    assert not _Example(data={"name": value}).is_valid()


def _body_operations() -> list[tuple[str, str]]:
    schema = SchemaGenerator().get_schema(request=None, public=True)
    return sorted(
        (method, path)
        for path, item in schema["paths"].items()
        for method, operation in item.items()
        if method in BODY_METHODS and "requestBody" in operation
    )


def test_every_endpoint_that_takes_a_body_refuses_a_field_it_does_not_know(settings: Any) -> None:
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": dict.fromkeys(settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "1000/minute"),
    }
    alice = player_create(username="alice", email="alice@example.com", display_name="Alice")
    bob = player_create(username="bob", email="bob@example.com", display_name="Bob")
    token, plaintext = token_create(user=alice, name="laptop", scopes=["read", "play"])
    game = services.game_create(creator=bob, seats=3)
    settings.WEBHOOKS_ALLOW_LOOPBACK = True
    webhook = endpoint_create(owner=alice, url="http://127.0.0.1:9/hook")
    address = email_address_add(user=alice, address="alice.two@example.com", client="127.0.0.1")
    tournament = tournament_create(creator=alice, name="Cup", format="knockout")
    values = {
        "game_id": game.pk, "token_id": str(token.pk), "username": "bob", "webhook_id": str(webhook.pk),
        "address_id": str(address.pk), "tournament_id": str(tournament.pk),
    }
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {plaintext}")

    operations = _body_operations()
    assert ("post", "/api/v1/games/") in operations and ("post", "/api/v1/players/") in operations
    accepted = []
    for method, path in operations:
        url = re.sub(r"\{(\w+)\}", lambda match: values[match.group(1)], path)
        answer = getattr(client, method)(url, {STRAY: 1}, format="json")
        errors = answer.json().get("errors", {}) if answer.status_code == 400 else {}
        if STRAY not in errors:
            accepted.append((method.upper(), path, answer.status_code))
    assert accepted == []


def test_erasing_an_account_with_a_stray_field_erases_nothing() -> None:
    # The schema leaves DELETE bodies out, so the sweep above does not reach this one.
    alice = player_create(username="alice", email="alice@example.com", display_name="Alice")
    _, plaintext = token_create(user=alice, name="laptop", scopes=["play"])
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {plaintext}")

    answer = client.delete("/api/v1/me/", {"confirm": "alice", "also": "my games"}, format="json")

    assert answer.status_code == 400 and list(answer.json()["errors"]) == ["also"]
    alice.refresh_from_db()
    assert alice.username == "alice" and alice.is_active
