"""Two bots play a whole game through the API, from creation to the result."""

from __future__ import annotations

import hashlib
import random
from typing import Any

import engine
import pytest

from games import selectors
from games.models import Game
from tests.games.game_helpers import client_for

pytestmark = pytest.mark.django_db


def pick(moves: list[str], rng: random.Random) -> str:
    """Buy when possible (points end the game), else a seeded random legal move."""
    buys = [m for m in moves if m.startswith("buy ")]
    return rng.choice(buys or moves)


@pytest.mark.parametrize("variant", ["base", "marvel"])
def test_two_bot_clients_play_a_game_from_creation_to_a_result(alice: Any, bob: Any, variant: str) -> None:
    clients = {"alice": client_for(alice), "bob": client_for(bob)}
    rng = random.Random(20240601)

    created = clients["alice"].post("/api/v1/games/", {"variant": variant, "seats": 2, "invited": ["bob"]})
    assert created.status_code == 201, created.content
    game_id = created.json()["id"]
    joined = clients["bob"].post(f"/api/v1/games/{game_id}/join/", {})
    assert joined.status_code == 200 and joined.json()["status"] == "active"
    commitment = joined.json()["seed_commitment"]

    plies = 0
    while True:
        views = {name: client.get(f"/api/v1/games/{game_id}/").json() for name, client in clients.items()}
        if views["alice"]["status"] != "active":
            break
        to_move = views["alice"]["to_move"]
        name = next(n for n, view in views.items() if view["your_seat"] == to_move)
        legal = clients[name].get(f"/api/v1/games/{game_id}/legal-moves/").json()
        other = "bob" if name == "alice" else "alice"
        assert clients[other].get(f"/api/v1/games/{game_id}/legal-moves/").json()["moves"] == []
        move = pick(legal["moves"], rng)
        played = clients[name].post(
            f"/api/v1/games/{game_id}/moves/",
            {"move": move, "expected_version": legal["version"]},
            HTTP_IDEMPOTENCY_KEY=f"{game_id}-{plies}",
        )
        assert played.status_code == 201, played.content
        assert played.json()["move"] == move
        plies += 1
        assert plies < 1000

    final = views["alice"]
    assert final["status"] == "finished"
    assert final["result"]["winners"] and final["result"]["reason"]
    assert sorted(final["result"]["ranking"]) == [0, 1]

    export = clients["bob"].get(f"/api/v1/games/{game_id}/export/").json()
    assert export["seed_commitment"] == commitment
    assert hashlib.sha256(export["seed"].encode()).hexdigest() == commitment
    # The players' moves, and the passes the server played for a seat whose only
    # legal move was pass (B-PASS-1), which no client is asked for.
    history = clients["bob"].get(f"/api/v1/games/{game_id}/moves/").json()
    history = history.get("results", history) if isinstance(history, dict) else history
    by_player = [entry for entry in history if entry["played_by"] == "player"]
    forced = [entry for entry in history if entry["played_by"] != "player"]
    assert len(by_player) == plies
    assert all(entry["played_by"] == "service" and entry["move"] == "pass" for entry in forced)
    assert len(export["moves"]) == plies + len(forced)
    replayed = engine.replay(export["variant"], export["players"], int(export["seed"]), export["moves"])
    assert engine.is_over(replayed)
    assert {**engine.outcome(replayed), "resigned": [], "timed_out": []} == final["result"]
    game = Game.objects.get(pk=game_id)
    assert selectors.game_rebuild_state(game=game) == game.state
