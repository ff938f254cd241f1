"""The games API reads its input strictly: unknown fields, versions that are not
JSON integers, moves that are not strings, list parameters it cannot read and
invitee lists it need not look up are refused with a 400 that names them."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from games import services
from games.models import Game
from tests.games.game_helpers import client_for, make_player, user_to_move

pytestmark = pytest.mark.django_db


def refused(answer: Any, field: str) -> list[str]:
    """The messages of a 400 validation_error for ``field``."""
    assert answer.status_code == 400, answer.content
    body = answer.json()
    assert body["code"] == "validation_error"
    assert field in body["errors"], body
    assert field in body["detail"] or len(body["errors"]) > 1
    messages: list[str] = body["errors"][field]
    return messages


# --- unknown fields ---------------------------------------------------------------


def test_an_unknown_field_in_a_new_game_is_refused_by_name(alice: Any) -> None:
    answer = client_for(alice).post("/api/v1/games/", {"seats": 2, "colour": "red"}, format="json")

    [message] = refused(answer, "colour")
    assert "`seats`" in message and "`invited`" in message
    assert answer.json()["detail"].startswith("colour: ")
    assert not Game.objects.exists()


def test_unknown_fields_are_named_beside_the_other_fields_errors(alice: Any) -> None:
    answer = client_for(alice).post("/api/v1/games/", {"seats": 9, "colour": "red", "size": 3}, format="json")

    assert answer.status_code == 400
    assert set(answer.json()["errors"]) == {"seats", "colour", "size"}


def test_a_misspelt_expected_version_is_not_a_move_without_a_version(active_game: Game) -> None:
    client = client_for(user_to_move(active_game))
    answer = client.post(
        f"/api/v1/games/{active_game.pk}/moves/",
        {"move": "take WUG", "expected_versoin": active_game.version},
        format="json",
    )
    refused(answer, "expected_versoin")
    assert active_game.moves.count() == 0


def test_an_unknown_field_in_a_join_is_refused(alice: Any, bob: Any) -> None:
    game = services.game_create(creator=alice, seats=2)
    answer = client_for(bob).post(f"/api/v1/games/{game.pk}/join/", {"seat": 1}, format="json")
    refused(answer, "seat")


# --- JSON types -------------------------------------------------------------------------


@pytest.mark.parametrize("version", ["3", 3.0, True, [3], {"v": 3}])
def test_an_expected_version_that_is_not_a_json_integer_is_refused(active_game: Game, version: Any) -> None:
    client = client_for(user_to_move(active_game))
    answer = client.post(
        f"/api/v1/games/{active_game.pk}/moves/", {"move": "take WUG", "expected_version": version}, format="json"
    )
    [message] = refused(answer, "expected_version")
    assert "whole number" in message
    assert active_game.moves.count() == 0


def test_a_joins_expected_version_must_be_a_json_integer_too(alice: Any, bob: Any) -> None:
    game = services.game_create(creator=alice, seats=2)
    answer = client_for(bob).post(f"/api/v1/games/{game.pk}/join/", {"expected_version": "1"}, format="json")
    refused(answer, "expected_version")


@pytest.mark.parametrize("move", [5, True, ["take", "WUG"], {"take": "WUG"}])
def test_a_move_that_is_not_a_string_is_refused(active_game: Game, move: Any) -> None:
    client = client_for(user_to_move(active_game))
    answer = client.post(
        f"/api/v1/games/{active_game.pk}/moves/",
        {"move": move, "expected_version": active_game.version},
        format="json",
    )
    [message] = refused(answer, "move")
    assert message == 'Must be text in double quotes, such as "take WUG".'


# --- limit and offset -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("query", "parameter"),
    [
        ("limit=-1", "limit"),
        ("limit=0", "limit"),
        ("limit=abc", "limit"),
        ("limit=101", "limit"),
        ("limit=2.5", "limit"),
        ("limit=+5", "limit"),
        ("limit=", "limit"),
        ("limit=1_0", "limit"),
        ("offset=-1", "offset"),
        ("offset=ten", "offset"),
        ("offset=" + "9" * 5000, "offset"),
    ],
)
def test_list_parameters_that_are_not_usable_numbers_are_refused_by_name(
    alice: Any, query: str, parameter: str
) -> None:
    answer = client_for(alice).get(f"/api/v1/games/?{query}")
    [message] = refused(answer, parameter)
    assert "whole number" in message


def test_a_limit_of_one_hundred_and_an_offset_past_the_end_are_served(alice: Any) -> None:
    services.game_create(creator=alice, seats=2)
    client = client_for(alice)

    assert client.get("/api/v1/games/?limit=100").json()["count"] == 1
    past_the_end = client.get("/api/v1/games/?offset=" + "9" * 30)
    assert past_the_end.status_code == 200 and past_the_end.json()["results"] == []


def test_the_token_list_checks_its_limit_too(alice: Any) -> None:
    answer = client_for(alice, scopes=("read",)).get("/api/v1/tokens/?limit=1000")
    refused(answer, "limit")


# --- the invitee list --------------------------------------------------------------------


def _username_lookups(queries: CaptureQueriesContext) -> list[str]:
    return [q["sql"] for q in queries.captured_queries if '"auth_user"."username" IN' in q["sql"]]


def test_thousands_of_invitees_are_refused_without_a_lookup(alice: Any, bob: Any) -> None:
    client = client_for(alice)
    with CaptureQueriesContext(connection) as queries:
        answer = client.post("/api/v1/games/", {"seats": 4, "invited": ["bob"] * 3000}, format="json")

    [message] = refused(answer, "invited")
    assert message == "You can invite at most 3 players: a game has at most 4 seats, and one of them is yours."
    assert _username_lookups(queries) == []
    assert len(queries) <= 3  # the token and its last use: nothing per name


def test_more_invitees_than_seats_besides_yours_are_refused_before_any_lookup(alice: Any, bob: Any) -> None:
    make_player("dave")
    client = client_for(alice)
    with CaptureQueriesContext(connection) as queries:
        answer = client.post("/api/v1/games/", {"seats": 2, "invited": ["bob", "dave"]}, format="json")

    [message] = refused(answer, "invited")
    assert message == "You invited 2 players, but a game of 2 seats has only 1 seat besides yours."
    assert _username_lookups(queries) == []


def test_inviting_the_same_player_twice_is_refused_by_name_before_any_lookup(alice: Any, bob: Any) -> None:
    client = client_for(alice)
    with CaptureQueriesContext(connection) as queries:
        answer = client.post("/api/v1/games/", {"seats": 3, "invited": ["bob", "bob"]}, format="json")

    [message] = refused(answer, "invited")
    assert message == "You invited bob more than once; invite each player once."
    assert _username_lookups(queries) == []
    assert not Game.objects.exists()


def test_every_invitee_is_looked_up_in_one_query(alice: Any, bob: Any, charlie: Any, dave: Any) -> None:
    client = client_for(alice)
    with CaptureQueriesContext(connection) as queries:
        answer = client.post(
            "/api/v1/games/", {"seats": 4, "invited": ["dave", "bob", "charlie"]}, format="json"
        )

    assert answer.status_code == 201, answer.content
    assert len(_username_lookups(queries)) == 1
    assert [seat["username"] for seat in answer.json()["seats"]] == ["alice", "dave", "bob", "charlie"]


def test_each_unknown_invitee_is_named(alice: Any, bob: Any) -> None:
    answer = client_for(alice).post(
        "/api/v1/games/", {"seats": 4, "invited": ["nobody", "bob", "ghost"]}, format="json"
    )
    assert refused(answer, "invited") == [
        "There is no player with the username nobody.",
        "There is no player with the username ghost.",
    ]


def test_a_disabled_player_cannot_be_invited(alice: Any, bob: Any) -> None:
    bob.is_active = False
    bob.save()
    answer = client_for(alice).post("/api/v1/games/", {"seats": 2, "invited": ["bob"]}, format="json")
    assert refused(answer, "invited") == ["There is no player with the username bob."]


@pytest.mark.parametrize("invited", ["bob", 5, [5], {"bob": True}])
def test_invitees_must_be_a_list_of_strings(alice: Any, bob: Any, invited: Any) -> None:
    answer = client_for(alice).post("/api/v1/games/", {"seats": 2, "invited": invited}, format="json")
    refused(answer, "invited")


def test_an_anonymous_list_is_still_refused_before_its_parameters_are_read() -> None:
    assert APIClient().get("/api/v1/games/?limit=abc").status_code == 401
