"""Waking streams never fails the change that has news: Redis down costs one short
try, then none for a while (streams read their news at their heartbeat)."""

from __future__ import annotations

from typing import Any

import pytest

from streams import bus
from tests.games.game_helpers import client_for, start_two_player_game, state_of, user_to_move

pytestmark = pytest.mark.django_db


@pytest.fixture
def redis_nowhere(settings: Any, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Redis on port 1, where nothing listens; the connections tried to it."""
    from core.redis_budget import BudgetedConnection

    settings.STREAM_REDIS_URL = "redis://127.0.0.1:1/0"
    tries: list[str] = []
    real = BudgetedConnection._connect

    def counting(connection: Any) -> Any:
        tries.append(connection._host_error())
        return real(connection)

    monkeypatch.setattr(BudgetedConnection, "_connect", counting)
    return tries


def test_a_move_is_played_when_redis_cannot_be_reached_and_later_ones_do_not_try(
    redis_nowhere: list[str], alice: Any, bob: Any, caplog: pytest.LogCaptureFixture, django_capture_on_commit_callbacks: Any
) -> None:
    import engine

    game = start_two_player_game(alice, bob)
    for _ in range(2):
        game.refresh_from_db()
        move = engine.format_move(engine.legal_moves(state_of(game))[0])
        with django_capture_on_commit_callbacks(execute=True):
            answer = client_for(user_to_move(game)).post(
                f"/api/v1/games/{game.pk}/moves/", {"move": move, "expected_version": game.version}, format="json"
            )
        assert answer.status_code == 201, answer.content
    # The first publish found the server refusing and opened its circuit: the second did not try.
    assert redis_nowhere == ["127.0.0.1:1"]
    assert "read it at the next heartbeat" in caplog.text


def test_nothing_is_published_without_a_redis_url(settings: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    settings.STREAM_REDIS_URL = None
    monkeypatch.setattr(bus, "_client", lambda url: pytest.fail("no Redis to publish to"))
    bus.publish([1, 2])


@pytest.mark.redis
def test_the_accounts_ids_are_published_on_the_channel(settings: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    import redis

    settings.STREAM_REDIS_URL = settings.REDIS_URL
    listener = redis.Redis.from_url(settings.REDIS_URL).pubsub()
    listener.subscribe(bus.CHANNEL)
    assert listener.get_message(timeout=2)["type"] == "subscribe"
    bus.publish([7, 12])
    message = None
    for _ in range(20):
        message = listener.get_message(timeout=0.5)
        if message is not None and message["type"] == "message" and message["data"] == b"7,12":
            break
    assert message is not None and message["data"] == b"7,12"
    listener.close()
