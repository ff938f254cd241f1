"""Playing a tournament through the API, each game ended by scripted resignations."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rest_framework.test import APIClient

from tests.games.game_helpers import client_for


class Clients:
    """One API client per player (play scope), by username."""

    def __init__(self, users: Sequence[Any]) -> None:
        self.by_name: dict[str, APIClient] = {u.username: client_for(u, scopes=("read", "play")) for u in users}

    def __getitem__(self, name: str) -> APIClient:
        return self.by_name[name]


def ok(response: Any, status: int = 200) -> Any:
    assert response.status_code == status, response.content
    return response.json()


def detail(client: APIClient, tournament_id: int) -> dict[str, Any]:
    return ok(client.get(f"/api/v1/tournaments/{tournament_id}/"))  # type: ignore[no-any-return]


def current_round(body: dict[str, Any]) -> dict[str, Any]:
    return body["round_list"][-1]  # type: ignore[no-any-return]


def finish_by_resignations(clients: Clients, game_id: str, places: Sequence[str]) -> None:
    """End a game so that ``places`` (usernames, first place first) is its result:
    the last resigns first, then the one before, until one is left standing."""
    for name in reversed(places[1:]):
        ok(clients[name].post(f"/api/v1/games/{game_id}/resign/", {}, format="json"))
