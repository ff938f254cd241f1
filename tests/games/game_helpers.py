"""Helpers shared by the games tests: building games and playing them with simple bots."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rest_framework.test import APIClient

import engine
from accounts.services import token_create
from games import services
from games.models import Game
from tests.factories import PlayerFactory, StartedGameFactory, seat_to_move


def make_player(username: str) -> Any:
    return PlayerFactory.create(username=username)


def client_for(user: Any, scopes: tuple[str, ...] = ("play",)) -> APIClient:
    _, plain = token_create(user=user, name=f"{user.username}-test", scopes=list(scopes))
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {plain}")
    return client


def start_two_player_game(alice: Any, bob: Any, *, variant: str = "base", public: bool = False) -> Game:
    """A private game (the default, as through the API) unless ``public``: anyone may watch it."""
    return StartedGameFactory.create(creator=alice, invited=[bob], variant=variant, public=public)


def user_to_move(game: Game) -> Any:
    return seat_to_move(game).user


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


def race_same_turn(game: Game, threads: int, *, idempotency_key: str | None = None) -> list[tuple[int, Any]]:
    """Submit the same turn from ``threads`` clients at once; returns (status, body) for each.

    Half the clients send expected_version, half only If-Match, so losers see 409 or 412.
    With ``idempotency_key`` every client sends the same request with that key.
    """
    import threading

    from django.db import connection
    from django.utils import timezone

    from accounts.models import ApiToken

    game.refresh_from_db()
    mover = user_to_move(game)
    state = engine.from_dict(game.state)
    take = next(t for t in map(engine.format_move, engine.legal_moves(state)) if t.startswith("take "))
    clients = [client_for(mover) for _ in range(threads)]
    # Tokens record their last use at most once a minute; touch them now so the race is only about the move.
    ApiToken.objects.filter(user=mover).update(last_used_at=timezone.now())
    barrier = threading.Barrier(threads)
    results: list[tuple[int, Any]] = [(0, None)] * threads

    def submit(index: int) -> None:
        try:
            headers: dict[str, str] = {}
            body: dict[str, Any] = {"move": take}
            if idempotency_key is not None:
                body["expected_version"] = game.version
                headers["HTTP_IDEMPOTENCY_KEY"] = idempotency_key
            elif index % 2:
                headers["HTTP_IF_MATCH"] = f'"{game.version}"'
            else:
                body["expected_version"] = game.version
            barrier.wait(timeout=30)
            response = clients[index].post(f"/api/v1/games/{game.pk}/moves/", body, format="json", **headers)
            try:
                payload = response.json()
            except ValueError:
                payload = response.content.decode(errors="replace")
            results[index] = (response.status_code, payload)
        except Exception as exc:  # reported to the test, which fails on it
            results[index] = (-1, repr(exc))
        finally:
            connection.close()

    workers = [threading.Thread(target=submit, args=(i,)) for i in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=120)
    return results
