"""Who may call what: every endpoint against every kind of caller."""

from __future__ import annotations

from typing import Any

import engine
import pytest
from rest_framework.test import APIClient

from accounts.services import token_create, token_revoke
from games.models import Game, Seat
from tests.games.game_helpers import client_for, user_to_move

pytestmark = pytest.mark.django_db

CALLERS = ["seat_to_move", "other_seat", "non_player", "anonymous", "revoked_token", "read_only_token"]

# endpoint: (method, path suffix, expected status per caller in CALLERS order)
MATRIX: dict[str, tuple[str, str, tuple[int, ...]]] = {
    "list": ("get", "/api/v1/games/", (200, 200, 200, 401, 401, 200)),
    "create": ("post", "/api/v1/games/", (201, 201, 201, 401, 401, 403)),
    "detail": ("get", "{game}/", (200, 200, 404, 401, 401, 200)),
    "join": ("post", "{game}/join/", (409, 409, 404, 401, 401, 403)),
    "legal_moves": ("get", "{game}/legal-moves/", (200, 200, 404, 401, 401, 200)),
    "history": ("get", "{game}/moves/", (200, 200, 404, 401, 401, 200)),
    "move": ("post", "{game}/moves/", (201, 409, 404, 401, 401, 403)),
    "resign": ("post", "{game}/resign/", (200, 200, 404, 401, 401, 403)),
    "export": ("get", "{game}/export/", (200, 200, 404, 401, 401, 200)),
    # Each seat's own notes: a seat holder reads and writes theirs (tests/notes).
    "notes": ("get", "{game}/notes/", (200, 200, 404, 401, 401, 200)),
    "notes_store": ("put", "{game}/notes/", (200, 200, 404, 401, 401, 403)),
}

EXPECTED_CODES = {
    ("move", "other_seat"): "not_your_turn",
    # The game is private: to someone without a seat it does not exist.
    **{
        (endpoint, "non_player"): "game_not_found"
        for endpoint in ("detail", "join", "legal_moves", "history", "move", "resign", "export", "notes", "notes_store")
    },
    ("join", "seat_to_move"): "seat_unavailable",
}


def caller_client(kind: str, game: Game, charlie: Any) -> APIClient:
    mover = user_to_move(game)
    other = Seat.objects.exclude(user=mover).get(game=game).user
    if kind == "seat_to_move":
        return client_for(mover)
    if kind == "other_seat":
        return client_for(other)
    if kind == "non_player":
        return client_for(charlie)
    if kind == "anonymous":
        return APIClient()
    if kind == "read_only_token":
        return client_for(mover, scopes=("read",))
    if kind == "revoked_token":
        token, plain = token_create(user=mover, name="revoked", scopes=["play"])
        token_revoke(token=token, by_user=mover)
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Bearer {plain}")
        return client
    raise AssertionError(kind)


def body_for(endpoint: str, game: Game) -> dict[str, Any]:
    if endpoint == "create":
        return {"seats": 2}
    if endpoint == "move":
        state = engine.from_dict(game.state)
        take = next(t for t in map(engine.format_move, engine.legal_moves(state)) if t.startswith("take "))
        return {"move": take, "expected_version": game.version}
    if endpoint == "notes_store":
        return {"note": "", "moves": {}}
    return {}


@pytest.mark.parametrize("endpoint", list(MATRIX))
@pytest.mark.parametrize("caller", CALLERS)
def test_each_endpoint_answers_each_kind_of_caller_as_the_matrix_says(
    endpoint: str, caller: str, active_game: Game, charlie: Any
) -> None:
    method, path, expected = MATRIX[endpoint]
    client = caller_client(caller, active_game, charlie)
    target = path.format(game=f"/api/v1/games/{active_game.pk}")

    if method == "get":
        response = client.get(target)
    else:
        response = getattr(client, method)(target, body_for(endpoint, active_game), format="json")

    want = expected[CALLERS.index(caller)]
    assert response.status_code == want, (endpoint, caller, response.content)
    if want >= 400:
        assert response["Content-Type"].startswith("application/problem+json")
    if want == 401:
        assert response["WWW-Authenticate"].startswith("Bearer")
    if caller == "read_only_token" and want == 403:
        assert response.json()["code"] == "insufficient_scope"
    if (endpoint, caller) in EXPECTED_CODES:
        assert response.json()["code"] == EXPECTED_CODES[(endpoint, caller)]


def test_the_acting_seat_comes_from_the_token_never_the_body(active_game: Game, charlie: Any) -> None:
    mover = user_to_move(active_game)
    other = Seat.objects.exclude(user=mover).get(game=active_game)
    state = engine.from_dict(active_game.state)
    take = next(t for t in map(engine.format_move, engine.legal_moves(state)) if t.startswith("take "))

    client = client_for(other.user)
    url = f"/api/v1/games/{active_game.pk}/moves/"

    naming_the_mover = client.post(
        url,
        {"move": take, "expected_version": active_game.version, "seat": active_game.to_move, "user": mover.username},
        format="json",
    )
    plain = client.post(url, {"move": take, "expected_version": active_game.version}, format="json")

    # A body cannot even name a seat or a player: they are not fields of a move.
    assert naming_the_mover.status_code == 400 and set(naming_the_mover.json()["errors"]) == {"seat", "user"}
    assert plain.status_code == 409 and plain.json()["code"] == "not_your_turn"
    assert active_game.moves.count() == 0
