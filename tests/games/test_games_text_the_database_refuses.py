"""Input PostgreSQL cannot take is refused before it reaches a query.

PostgreSQL refuses NUL (\\x00) in text, and lone surrogates cannot be sent to it
at all: such input used to raise in the query and answer 500 (SQLite stores it,
so there the same requests passed). Every answer below is the one a client gets
for any other wrong id or value, on either database.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from games import errors, selectors, services
from games.models import Game, IdempotencyRecord, Move, is_public_id
from tests.games.game_helpers import client_for, user_to_move

pytestmark = pytest.mark.django_db

NUL_ID = "ab\x00cd"


def post_json(client: APIClient, path: str, body: dict[str, Any], **headers: str) -> Any:
    # Encoded here: the test client's own JSON encoder cannot write a lone surrogate.
    return client.post(path, json.dumps(body), content_type="application/json", **headers)


def test_only_text_in_the_public_id_alphabet_can_be_a_game_id() -> None:
    assert is_public_id("7kq2m9xw4r")
    assert not is_public_id("")
    assert not is_public_id("7kq2m9xw4r7kq2m9x")  # longer than the column
    assert not is_public_id("nosuchgame")  # i and o are not in the alphabet
    assert not is_public_id(NUL_ID)
    assert not is_public_id("7KQ2M9XW4R")


def test_a_game_id_that_cannot_exist_is_not_found_without_asking_the_database(alice: Any) -> None:
    with CaptureQueriesContext(connection) as captured:
        with pytest.raises(errors.GameNotFound):
            selectors.game_get(game_id=NUL_ID)
        with pytest.raises(errors.GameNotFound):
            services.move_submit(game_id=NUL_ID, user=alice, text="take WUG", expected_version=1)
        with pytest.raises(errors.GameNotFound):
            services.game_time_out(game_id=NUL_ID)
    assert not [q for q in captured.captured_queries if "games_game" in q["sql"]]


def test_a_nul_character_in_a_game_id_is_game_not_found_on_every_endpoint(alice: Any) -> None:
    client = client_for(alice)
    base = "/api/v1/games/ab%00cd/"
    answers = [client.get(base + suffix) for suffix in ["", "legal-moves/", "moves/", "export/"]]
    answers += [client.post(base + suffix, {}, format="json") for suffix in ["join/", "resign/"]]
    answers.append(client.post(base + "moves/", {"move": "take WUG", "expected_version": 1}, format="json"))
    assert len(answers) == 7
    for answer in answers:
        assert answer.status_code == 404, answer.content
        assert answer.json()["code"] == "game_not_found"


@pytest.mark.parametrize(
    ("username", "message"),
    [("bo\x00b", "Null characters are not allowed."), ("bo\ud800b", "Surrogate characters are not allowed: U+D800.")],
)
def test_an_invited_username_the_database_cannot_hold_is_a_validation_error(
    alice: Any, bob: Any, username: str, message: str
) -> None:
    answer = post_json(client_for(alice), "/api/v1/games/", {"seats": 2, "invited": ["bob", username]})
    assert answer.status_code == 400, answer.content
    assert answer.json()["code"] == "validation_error"
    assert answer.json()["errors"] == {"invited": [message]}
    assert not Game.objects.exists()


@pytest.mark.parametrize("text", ["take\x00WUG", "take \ud800"])
def test_a_move_text_the_database_cannot_hold_is_a_validation_error(active_game: Game, text: str) -> None:
    client = client_for(user_to_move(active_game))
    answer = post_json(client, f"/api/v1/games/{active_game.pk}/moves/", {"move": text, "expected_version": 3})
    assert answer.status_code == 400, answer.content
    assert list(answer.json()["errors"]) == ["move"]
    assert not Move.objects.exists()


def test_an_idempotency_key_with_a_nul_character_is_a_validation_error(active_game: Game) -> None:
    client = client_for(user_to_move(active_game))
    answer = post_json(
        client,
        f"/api/v1/games/{active_game.pk}/moves/",
        {"move": "pass", "expected_version": active_game.version},
        HTTP_IDEMPOTENCY_KEY="retry\x001",
    )
    assert answer.status_code == 400, answer.content
    assert list(answer.json()["errors"]) == ["Idempotency-Key"]
    assert not Move.objects.exists() and not IdempotencyRecord.objects.exists()


def test_if_match_and_if_none_match_with_a_nul_character_are_compared_not_stored(active_game: Game) -> None:
    client = client_for(user_to_move(active_game))
    moved = post_json(
        client, f"/api/v1/games/{active_game.pk}/moves/", {"move": "pass"}, HTTP_IF_MATCH='"3\x00"'
    )
    assert moved.status_code == 412 and moved.json()["code"] == "precondition_failed"
    read = client.get(f"/api/v1/games/{active_game.pk}/", HTTP_IF_NONE_MATCH="\x00")
    assert read.status_code == 200


def test_a_page_larger_than_a_database_integer_is_refused_by_name_not_a_server_error(alice: Any) -> None:
    services.game_create(creator=alice, seats=2)
    answer = client_for(alice).get("/api/v1/games/", {"limit": str(2**70), "offset": "0"})
    assert answer.status_code == 400, answer.content
    assert list(answer.json()["errors"]) == ["limit"]
