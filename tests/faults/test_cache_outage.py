"""The rate-limit cache fails and comes back; the service keeps serving.

A private redis-server on a free port (never the machine's shared one) is the
cache. It is stopped, then replaced by a listener that accepts connections and
never answers, then started again: requests succeed throughout, within a
generous bound, /healthz says what is down, and limits work again at the end.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest
import time_machine

from tests.e2e_support.processes import SilentListener, free_port
from tests.games.game_helpers import client_for, make_player, start_two_player_game, user_to_move

pytestmark = [pytest.mark.e2e, pytest.mark.django_db, pytest.mark.serial]

GENEROUS_SECONDS = 3.0  # per request; the cache's own timeouts are 0.25 s




class PrivateRedis:
    def __init__(self, port: int) -> None:
        self.port = port
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        binary = shutil.which("redis-server")
        assert binary, "redis-server is needed for this test (apt-get install redis-server)"
        self.process = subprocess.Popen(
            [binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2) as conn:
                    conn.sendall(b"PING\r\n")
                    if conn.recv(16).startswith(b"+PONG"):
                        return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("the private redis-server did not start")

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            self.process.wait(timeout=10)
            self.process = None


@pytest.fixture
def private_redis(settings: Any) -> Iterator[PrivateRedis]:
    redis = PrivateRedis(free_port())
    redis.start()
    shared = settings.CACHES
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": f"redis://127.0.0.1:{redis.port}/0",
            "OPTIONS": {"socket_connect_timeout": 0.25, "socket_timeout": 0.25, "retry_on_timeout": False},
        }
    }
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {"anon": "30/minute", "user": "8/minute"},
    }
    try:
        yield redis
    finally:
        settings.CACHES = shared  # before the server goes: the suite's cache teardown uses it
        redis.stop()


def _timed(call: Any) -> tuple[Any, float]:
    started = time.perf_counter()
    answer = call()
    return answer, time.perf_counter() - started


def test_moves_and_reads_go_on_while_the_cache_is_down_hung_and_back(private_redis: PrivateRedis, client: Any) -> None:
    alice, bob = make_player("alice"), make_player("bob")
    game = start_two_player_game(alice, bob)
    clients = {alice.pk: client_for(alice), bob.pk: client_for(bob)}

    def play_one() -> Any:
        mover = user_to_move(game)
        legal = clients[mover.pk].get(f"/api/v1/games/{game.pk}/legal-moves/").json()
        return clients[mover.pk].post(
            f"/api/v1/games/{game.pk}/moves/", {"move": legal["moves"][0], "expected_version": legal["version"]},
            format="json",
        )

    # Up: the counters live in the private Redis.
    answer, _ = _timed(play_one)
    assert answer.status_code == 201
    assert client.get("/healthz").json()["checks"]["cache"]["state"] == "up"

    # Down: nothing listens on the port.
    private_redis.stop()
    answer, took = _timed(play_one)
    assert answer.status_code == 201, answer.content
    assert took < GENEROUS_SECONDS
    health = client.get("/healthz")
    assert health.status_code == 200
    assert health.json()["status"] == "degraded" and health.json()["checks"]["cache"]["state"] == "down"
    assert health.json()["checks"]["cache"]["rate_limit_fallbacks"] > 0

    # Hung: a listener that accepts and never answers.
    listener = SilentListener(private_redis.port)
    try:
        answer, took = _timed(play_one)
        assert answer.status_code == 201, answer.content
        assert took < 2 * GENEROUS_SECONDS  # two requests (legal moves and the move)
        me, took = _timed(lambda: clients[alice.pk].get("/api/v1/me/"))
        assert me.status_code == 200 and took < GENEROUS_SECONDS
        assert client.get("/healthz").json()["checks"]["cache"]["state"] == "down"
    finally:
        listener.close()

    # Back: limits are counted in the shared cache again.
    private_redis.start()
    from api import throttling

    fallbacks_before = throttling.cache_failures
    with time_machine.travel(datetime(2026, 3, 1, 12, 0, 5, tzinfo=UTC), tick=False):
        answers = [clients[alice.pk].get("/api/v1/me/") for _ in range(9)]
    assert [a.status_code for a in answers] == [200] * 8 + [429]
    # Counted in the shared cache, not in the process: no request fell back.
    assert throttling.cache_failures == fallbacks_before
    assert client.get("/healthz").json()["checks"]["cache"]["state"] == "up"
    game.refresh_from_db()
    assert game.version == 3 + 3
