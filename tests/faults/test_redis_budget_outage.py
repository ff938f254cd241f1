"""Every Redis hung at once costs a move one budget at most, and loses nothing.

Three private redis-servers on free ports (never the machine's shared one) are the
broker, the rate-limit cache and the stream's Redis of gunicorn, one worker and
beat. All three are hung together (SIGSTOP: the kernel still takes connections and
nothing answers them) while moves are played through gunicorn: each is answered
201 within REDIS_REQUEST_BUDGET_SECONDS (plus what a move costs with Redis up, in
the same run), however many servers it would have waited on one after another.
Moves played more than REDIS_CIRCUIT_OPEN_SECONDS after the request before try the
servers again and pay no more. When Redis answers again every event is handled.
"""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests

from tests.e2e_support.processes import SHORT_LEASES, PrivateRedis, Stack, settled, start_stack, wait_for

pytestmark = [pytest.mark.e2e, pytest.mark.postgres, pytest.mark.redis, pytest.mark.serial]

BUDGET = 0.5  # REDIS_REQUEST_BUDGET_SECONDS, the default
OPEN_SECONDS = 2.0  # REDIS_CIRCUIT_OPEN_SECONDS, shortened for the test
# The machine's own jitter on top of the budget.
# 0.1 s on an idle machine; in CI another test process shares the two cores, and one
# move in twenty was seen 0.2 s past the idle bound there. Waiting on each hung
# server in turn, as before the budget, costs 1.0-1.3 s: still well past this bound.
MARGIN = 0.1 if os.environ.get("CI", "") in ("", "false", "0") else 0.3


@pytest.fixture
def stack(tmp_path: Path) -> Iterator[tuple[Stack, PrivateRedis, PrivateRedis]]:
    cache = PrivateRedis(tmp_path / "cache-redis.log").start()
    stream = PrivateRedis(tmp_path / "stream-redis.log").start()
    running = None
    try:
        env: dict[str, Any] = {
            **SHORT_LEASES, "CACHE_URL": cache.url(0), "STREAM_REDIS_URL": stream.url(0),
            "REDIS_CIRCUIT_OPEN_SECONDS": str(OPEN_SECONDS),
        }  # fmt: skip
        running = start_stack(tmp_path, workers=1, beat=True, **env)
        yield running, cache, stream
    finally:
        if running is not None:
            running.stop()
        cache.stop()
        stream.stop()


def chosen_move(stack: Stack, game_id: str) -> tuple[str, Any]:
    who = stack.api.to_move(game_id)
    return who, stack.api.call(who, "GET", f"/api/v1/games/{game_id}/legal-moves/")


def timed_move(stack: Stack, game_id: str, chosen: tuple[str, Any]) -> tuple[int, float]:
    who, legal = chosen
    started = time.monotonic()
    answer = requests.post(
        f"{stack.api.url}/api/v1/games/{game_id}/moves/", timeout=60,
        json={"move": legal["moves"][0], "expected_version": legal["version"]},
        headers={"Authorization": f"Bearer {stack.api.tokens[who]}"},
    )  # fmt: skip
    return answer.status_code, time.monotonic() - started


def test_a_move_with_the_broker_the_cache_and_the_stream_hung_costs_one_budget_at_most_and_loses_nothing(
    stack: tuple[Stack, PrivateRedis, PrivateRedis],
) -> None:
    site, cache, stream = stack
    game_id = site.api.new_game("alice", ["bob"])
    version = site.db.rows("SELECT version FROM games_game WHERE id = %s", game_id)[0][0]
    healthy = [timed_move(site, game_id, chosen_move(site, game_id)) for _ in range(6)]
    assert [status for status, _ in healthy] == [201] * 6
    # The first move warms the workers up; the slowest of the rest is what a move
    # costs on this machine now, Redis aside.
    limit = BUDGET + max(took for _, took in healthy[1:]) + MARGIN

    servers = [site.redis, cache, stream]
    for server in servers:
        server.kill(signal.SIGSTOP)
    try:
        in_a_row = [timed_move(site, game_id, chosen_move(site, game_id)) for _ in range(8)]
        spaced = []
        for _ in range(2):
            chosen = chosen_move(site, game_id)
            time.sleep(OPEN_SECONDS + 0.5)  # every circuit lets a trial through: the move tries them all
            spaced.append(timed_move(site, game_id, chosen))
        health = requests.get(site.web.url + "/healthz", timeout=30).json()
    finally:
        for server in servers:
            server.kill(signal.SIGCONT)

    hung = in_a_row + spaced
    assert [status for status, _ in hung] == [201] * len(hung), site.explain()
    slowest = max(took for _, took in hung)
    assert slowest <= limit, f"{slowest:.3f} s > {limit:.3f} s: {[round(took, 3) for _, took in hung]}"
    # The moves paid for a hung server: they did wait on it (the budget is what bounded them).
    assert max(took for _, took in spaced) >= BUDGET * 0.8, spaced
    assert health["checks"]["broker"]["state"] == "down" and health["checks"]["cache"]["state"] == "down"

    # Nothing lost: every move answered is stored, and once Redis answers every event is handled.
    stored = site.db.rows("SELECT version FROM games_game WHERE id = %s", game_id)[0][0] - version
    assert stored == len(healthy) + len(hung)
    wait_for(lambda: settled(site), timeout=120, what="every event handled after the outage", explain=site.explain)
