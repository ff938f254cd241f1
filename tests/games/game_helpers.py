"""Helpers shared by the games tests: building games and playing them with simple bots."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import engine
from rest_framework.test import APIClient

from accounts.services import player_create, token_create
from games import services
from games.models import Game, Seat


def make_player(username: str) -> Any:
    return player_create(username=username, email=f"{username}@example.com", display_name=username.title())


def client_for(user: Any, scopes: tuple[str, ...] = ("play",)) -> APIClient:
    _, plain = token_create(user=user, name=f"{user.username}-test", scopes=list(scopes))
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {plain}")
    return client


def start_two_player_game(alice: Any, bob: Any, *, variant: str = "base") -> Game:
    game = services.game_create(creator=alice, variant=variant, seats=2, invited=[bob])
    services.seat_join(game=game, user=bob)
    game.refresh_from_db()
    return game


def user_to_move(game: Game) -> Any:
    game.refresh_from_db()
    return Seat.objects.get(game=game, index=game.to_move).user


def state_of(game: Game) -> Any:
    game.refresh_from_db()
    return engine.from_dict(game.state)


Policy = Callable[[Any, list[str]], str]


def first_legal(state: Any, moves: list[str]) -> str:
    return moves[0]


def greedy(state: Any, moves: list[str]) -> str:
    """Buys when it can (the dearest first), else takes gems, else anything: ends games quickly."""
    buys = [m for m in moves if m.startswith("buy ")]
    if buys:
        return buys[-1]
    takes = [m for m in moves if m.startswith("take ") and " return " not in m]
    if takes:
        return takes[len(takes) // 2]
    return moves[0]


def play_moves(game: Game, count: int, policy: Policy = greedy) -> None:
    """Play ``count`` turns through move_submit with ``policy``."""
    for _ in range(count):
        game.refresh_from_db()
        if game.status != Game.Status.ACTIVE:
            return
        state = engine.from_dict(game.state)
        texts = [engine.format_move(m) for m in engine.legal_moves(state)]
        services.move_submit(
            game_id=game.pk,
            user=user_to_move(game),
            text=policy(state, texts),
            expected_version=game.version,
        )


def play_to_end(game: Game, policy: Policy = greedy, limit: int = 1000) -> None:
    for _ in range(limit):
        game.refresh_from_db()
        if game.status != Game.Status.ACTIVE:
            return
        play_moves(game, 1, policy)
    raise AssertionError("the game did not end")
