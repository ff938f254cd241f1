"""The load benchmark's client (scripts/load/game_client.py) plays real games
against a real HTTP server, so that a benchmark run measures games, not errors.

The benchmark itself (scripts/load/run.py) is not part of the suite.
"""

from __future__ import annotations

from typing import Any

import pytest
import requests

from accounts.services import player_create, token_create
from games import services
from games.models import Game
from scripts.load.game_client import choose_move, game_from_view, play_turn


class BaseUrlSession(requests.Session):
    def __init__(self, base_url: str) -> None:
        super().__init__()
        self.base_url = base_url

    def request(self, method: str, url: str, *args: Any, **kwargs: Any) -> requests.Response:  # type: ignore[override]
        kwargs.setdefault("timeout", 10)
        return super().request(method, self.base_url + url, *args, **kwargs)


@pytest.fixture
def _no_throttling(settings: Any) -> None:
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {"anon": "100000/minute", "user": "100000/minute"},
    }


@pytest.mark.postgres
def test_the_load_client_plays_a_game_to_the_end_over_http(live_server: Any, _no_throttling: None) -> None:
    alice = player_create(username="alice", email="alice@example.com")
    bob = player_create(username="bob", email="bob@example.com")
    tokens = {
        user.username: token_create(user=user, name="load client", scopes=["read", "play"])[1] for user in (alice, bob)
    }
    game = services.game_create(creator=alice, seats=2, invited=[bob])
    services.seat_join(game=game, user=bob)
    http = BaseUrlSession(live_server.url)
    view = http.get(f"/api/v1/games/{game.pk}/", headers={"Authorization": f"Bearer {tokens['alice']}"}).json()
    in_play = game_from_view(view, tokens)

    turns = 0
    while play_turn(http, in_play):
        turns += 1
        assert turns < 300, "choose_move should end a game well before 300 turns"

    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED and in_play.over
    assert game.moves.count() == turns + 1


def test_the_client_prefers_buying_the_dearest_card_then_taking_gems() -> None:
    assert choose_move(["buy 1-02", "buy 2-07", "reserve 1-01", "take WUG"]) == "buy 2-07"
    assert choose_move(["reserve 1-01", "take RGK", "take WUG return W", "take WUR"]) == "take WUR"
    assert choose_move(["pass"]) == "pass"
