"""Explicit cases: a game played from creation to the end through the API, with
every response checked against the OpenAPI schema.

Random requests rarely get past validation (a legal move at the right version is
hard to guess), so this walks the success paths the property-based run seldom
reaches: a game that starts, a move accepted (201), an idempotent replay, the
conditional and precondition answers, the game's end with its result and seed,
and a resignation.
"""

from __future__ import annotations

from typing import Any

import pytest
from schemathesis.core import NOT_SET

from tests.schema.conftest import CHECKS, Seeded, load_schema, quick_move

schema = load_schema()
GAMES = "/api/v1/games/"
GAME = "/api/v1/games/{game_id}/"


def call(
    method: str,
    path: str,
    token: str,
    *,
    game_id: str | None = None,
    body: Any = NOT_SET,
    query: dict[str, Any] | None = None,
    headers: dict[str, str] | None = None,
) -> Any:
    """Send one request built from the documented operation and validate the answer."""
    operation = schema[path][method]
    case = operation.Case(
        path_parameters={"game_id": game_id} if game_id else None, body=body, query=query, headers=headers
    )
    return case.call_and_validate(headers={"Authorization": f"Bearer {token}"}, checks=CHECKS)


def submit(token: str, game_id: str, body: dict[str, Any], **headers: str) -> Any:
    """POST a move; header names are given with underscores (If_Match=...)."""
    named = {name.replace("_", "-"): value for name, value in headers.items()}
    return call("POST", GAME + "moves/", token, game_id=game_id, body=body, headers=named or None)


def header(response: Any, name: str) -> str | None:
    values = next((v for k, v in response.headers.items() if k.lower() == name.lower()), None)
    return values[0] if values else None


@pytest.fixture
def tokens(seeded: Seeded) -> dict[str, str]:
    return {"alice": seeded.token, "bob": seeded.opponent_token}


def test_a_game_played_to_the_end_answers_as_documented_at_every_step(tokens: dict[str, str]) -> None:
    created = call("POST", GAMES, tokens["alice"], body={"variant": "base", "seats": 2, "invited": ["bob"]})
    assert created.status_code == 201
    game_id = created.json()["id"]

    joined = call("POST", GAME + "join/", tokens["bob"], game_id=game_id, body={})
    assert joined.status_code == 200 and joined.json()["status"] == "active"

    plies = 0
    while True:
        game = call("GET", GAME, tokens["alice"], game_id=game_id)
        if game.json()["status"] != "active":
            break
        mover = "alice" if game.json()["your_seat"] == game.json()["to_move"] else "bob"
        legal = call("GET", GAME + "legal-moves/", tokens[mover], game_id=game_id).json()
        move = {"move": quick_move(legal["moves"]), "expected_version": legal["version"]}
        played = submit(tokens[mover], game_id, move, Idempotency_Key=f"ply-{plies}")
        assert played.status_code == 201, played.text
        plies += 1
        assert plies < 300, "quick_move should end a game well before 300 plies"

    finished = game.json()
    assert finished["status"] == "finished" and finished["result"] and finished["seed"]
    assert call("GET", GAME + "legal-moves/", tokens["bob"], game_id=game_id).json()["moves"] == []
    history = call("GET", GAME + "moves/", tokens["bob"], game_id=game_id).json()
    assert len(history) == plies
    export = call("GET", GAME + "export/", tokens["bob"], game_id=game_id).json()
    assert export["seed"] == finished["seed"] and len(export["moves"]) == plies
    listed = call("GET", GAMES, tokens["alice"], query={"mine": "true", "status": "finished"}).json()
    assert game_id in [g["id"] for g in listed["results"]]
    assert submit(tokens["alice"], game_id, {"move": "pass", "expected_version": 0}).status_code == 409


def test_conditional_requests_replays_and_refusals_answer_as_documented(tokens: dict[str, str]) -> None:
    game_id = call("POST", GAMES, tokens["alice"], body={"invited": ["bob"]}).json()["id"]
    call("POST", GAME + "join/", tokens["bob"], game_id=game_id, body={})
    first = call("GET", GAME, tokens["alice"], game_id=game_id)
    etag = header(first, "ETag")
    assert etag == f'"{first.json()["version"]}"'
    unchanged = call("GET", GAME, tokens["alice"], game_id=game_id, headers={"If-None-Match": etag})
    assert unchanged.status_code == 304

    mover = "alice" if first.json()["your_seat"] == first.json()["to_move"] else "bob"
    waiter = "bob" if mover == "alice" else "alice"
    legal = call("GET", GAME + "legal-moves/", tokens[mover], game_id=game_id).json()
    version = legal["version"]
    move = quick_move(legal["moves"])

    mover_token, waiter_token = tokens[mover], tokens[waiter]
    assert submit(mover_token, game_id, {"move": move}).status_code == 428
    assert submit(mover_token, game_id, {"move": move}, If_Match=f'"{version + 5}"').status_code == 412
    assert submit(mover_token, game_id, {"move": move, "expected_version": version + 5}).status_code == 409
    assert submit(waiter_token, game_id, {"move": move, "expected_version": version}).status_code == 409
    nonsense = submit(mover_token, game_id, {"move": "fly to the moon", "expected_version": version})
    assert nonsense.status_code in (400, 422)

    body = {"move": move, "expected_version": version}
    played = submit(mover_token, game_id, body, Idempotency_Key="k1", If_Match=f'"{version}"')
    replayed = submit(mover_token, game_id, body, Idempotency_Key="k1")
    assert played.status_code == replayed.status_code == 201
    assert replayed.json() == played.json() and header(replayed, "Idempotent-Replayed") == "true"
    reused = submit(mover_token, game_id, {"move": "pass", "expected_version": version}, Idempotency_Key="k1")
    assert reused.status_code == 422

    resigned = call("POST", GAME + "resign/", tokens[waiter], game_id=game_id)
    assert resigned.status_code == 200 and resigned.json()["status"] == "finished"
    again = call("POST", GAME + "resign/", tokens[waiter], game_id=game_id)
    assert again.status_code == 409
