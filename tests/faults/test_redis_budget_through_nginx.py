"""Through the guide's nginx, every Redis hung at once costs a move one budget at
most, and /metrics stays closed.

docs/deploy.md's web unit (its gunicorn ExecStart line, the shipped config and
its three workers) runs behind step 8's nginx site, with step 4's production
settings for a plain-http trial. The broker, the rate-limit cache and the
stream's Redis are three private redis-servers (never the machine's shared one),
used by that gunicorn, one worker and beat. With all three hung (SIGSTOP: the
kernel still takes connections and nothing answers them) 20 moves of a game
between two players are played through nginx: each is answered 201 within
REDIS_REQUEST_BUDGET_SECONDS plus what a move through nginx costs with Redis up
in the same run (the slowest of its healthy moves after the first, so that a
busy machine's noise is in both sides of the comparison) plus 0.1 s. Every few moves the test waits out
REDIS_CIRCUIT_OPEN_SECONDS, so those moves try the servers again and wait on
them. nginx answers /metrics 404 itself, without the token and with it. Once
Redis answers again every move answered is stored.
"""

from __future__ import annotations

import os
import secrets
import signal
import statistics
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import requests

from tests.e2e_support.deploy_guide import Nginx, exec_start, port_open, runnable
from tests.e2e_support.processes import (
    SHORT_LEASES,
    Api,
    Beat,
    PrivateDatabase,
    PrivateRedis,
    Process,
    Worker,
    free_port,
    player_tokens,
    site_env,
    stop_all,
    wait_for,
)

pytestmark = [pytest.mark.e2e, pytest.mark.postgres, pytest.mark.redis, pytest.mark.serial]

BUDGET = 0.5  # REDIS_REQUEST_BUDGET_SECONDS, the default
OPEN_SECONDS = 2.0  # REDIS_CIRCUIT_OPEN_SECONDS, shortened for the test
# 0.1 s on an idle machine; in CI another test process shares the two cores, and one
# move in twenty was seen 0.2 s past the idle bound there. Waiting on each hung
# server in turn, as before the budget, costs 1.0-1.3 s: still well past this bound.
MARGIN = 0.1 if os.environ.get("CI", "") in ("", "false", "0") else 0.3
HUNG_MOVES = 20
SPACED_EVERY = 5  # every 5th hung move comes after the circuits let a trial through


@dataclass
class Site:
    db: PrivateDatabase
    redis: list[PrivateRedis]  # broker, cache, stream
    processes: list[Process]
    nginx: Nginx
    web_port: int
    api: Api
    metrics_token: str

    def explain(self) -> str:
        return "\n".join(process.tail(40) for process in self.processes)


@pytest.fixture
def site(tmp_path: Path) -> Iterator[Site]:
    broker, cache, stream = (PrivateRedis(tmp_path / f"{name}-redis.log") for name in ("broker", "cache", "stream"))
    db = PrivateDatabase(os.environ["DATABASE_URL"])
    web_port = free_port()
    nginx = Nginx(tmp_path / "nginx", web_port=web_port, stream_port=free_port())  # no stream is asked for here
    metrics_token = secrets.token_urlsafe(32)
    env = site_env(
        tmp_path, database_url=db.url, broker_url=broker.url(0), REDIS_URL=broker.url(0),
        CACHE_URL=cache.url(0), STREAM_REDIS_URL=stream.url(0), REDIS_CIRCUIT_OPEN_SECONDS=str(OPEN_SECONDS),
        # Step 4's production settings, for a trial over plain http behind the proxy.
        DEBUG="false", SECRET_KEY=secrets.token_urlsafe(50), ALLOWED_HOSTS="127.0.0.1", SITE_URL=nginx.url,
        TRUSTED_PROXIES="1", METRICS_TOKEN=metrics_token, **SHORT_LEASES,
    )  # fmt: skip
    web = Process("gunicorn", runnable(exec_start("splendor-web"), bind=f"127.0.0.1:{web_port}"), env,
                  tmp_path / "web.log")  # fmt: skip
    processes: list[Process] = [broker, cache, stream]
    created = False
    try:
        for server in (broker, cache, stream):
            server.start()
        db.create(env)
        created = True
        api = Api(nginx.url, player_tokens(env, ("alice", "bob")))
        processes.append(web.start())
        wait_for(lambda: port_open(web_port) or not web.alive(), timeout=60, what="gunicorn listening",
                 explain=web.tail)  # fmt: skip
        assert web.alive(), web.tail()
        processes.append(Worker(env, tmp_path / "worker.log").start())
        processes.append(Beat(env, tmp_path / "beat.log").start())
        processes.append(nginx.start())
        yield Site(db, [broker, cache, stream], processes, nginx, web_port, api, metrics_token)
    finally:
        for server in (broker, cache, stream):
            server.kill(signal.SIGCONT)  # a stopped server would not take its SIGTERM
        stop_all(reversed(processes))
        if created:
            db.drop()


def chosen_move(api: Api, game_id: str) -> tuple[str, Any]:
    who = api.to_move(game_id)
    return who, api.call(who, "GET", f"/api/v1/games/{game_id}/legal-moves/")


def timed_move(api: Api, game_id: str, chosen: tuple[str, Any]) -> tuple[int, float]:
    who, legal = chosen
    started = time.monotonic()
    answer = requests.post(
        f"{api.url}/api/v1/games/{game_id}/moves/", timeout=60,
        json={"move": legal["moves"][0], "expected_version": legal["version"]},
        headers={"Authorization": f"Bearer {api.tokens[who]}"},
    )  # fmt: skip
    return answer.status_code, time.monotonic() - started


def metrics_status(site: Site, token: str | None = None) -> int:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return requests.get(f"{site.nginx.url}/metrics", headers=headers, timeout=10).status_code


def test_through_the_guides_nginx_a_move_with_every_redis_hung_costs_one_budget_and_metrics_stay_closed(
    site: Site,
) -> None:
    api = site.api
    # /metrics: nginx answers 404 itself; gunicorn, asked directly, serves it to the token.
    assert metrics_status(site) == 404
    assert metrics_status(site, site.metrics_token) == 404
    direct = requests.get(f"http://127.0.0.1:{site.web_port}/metrics", timeout=10,
                          headers={"Authorization": f"Bearer {site.metrics_token}"})  # fmt: skip
    assert direct.status_code == 200 and "splendor_" in direct.text, direct.status_code

    game_id = api.new_game("alice", ["bob"])
    version = site.db.rows("SELECT version FROM games_game WHERE id = %s", game_id)[0][0]
    healthy = [timed_move(api, game_id, chosen_move(api, game_id)) for _ in range(6)]
    assert [status for status, _ in healthy] == [201] * len(healthy), site.explain()
    median = statistics.median(took for _, took in healthy)
    # The first move warms the workers up; the slowest of the rest is what a move
    # costs on this machine now, Redis aside.
    limit = BUDGET + max(took for _, took in healthy[1:]) + MARGIN

    for server in site.redis:
        server.kill(signal.SIGSTOP)
    try:
        hung: list[tuple[int, float]] = []
        spaced: list[float] = []
        for n in range(HUNG_MOVES):
            chosen = chosen_move(api, game_id)
            if n % SPACED_EVERY == SPACED_EVERY - 1:
                time.sleep(OPEN_SECONDS + 0.5)  # every circuit lets a trial through: the move tries them all
                hung.append(timed_move(api, game_id, chosen))
                spaced.append(hung[-1][1])
            else:
                hung.append(timed_move(api, game_id, chosen))
        metrics_while_hung = metrics_status(site)
    finally:
        for server in site.redis:
            server.kill(signal.SIGCONT)

    took = [round(seconds, 3) for _, seconds in hung]
    print(f"healthy median {median:.3f} s, limit {limit:.3f} s, hung max {max(took):.3f} s: {took}")
    assert [status for status, _ in hung] == [201] * HUNG_MOVES, f"{hung}\n{site.explain()}"
    assert max(took) <= limit, f"{max(took):.3f} s > {limit:.3f} s: {took}"
    # The spaced moves did wait on a hung server: the budget is what bounded them.
    assert max(spaced) >= BUDGET * 0.8, spaced
    assert metrics_while_hung == 404

    # Nothing lost: every move answered is stored.
    stored = site.db.rows("SELECT version FROM games_game WHERE id = %s", game_id)[0][0] - version
    assert stored == len(healthy) + HUNG_MOVES
    moves = site.db.rows("SELECT count(*) FROM games_move WHERE game_id = %s", game_id)[0][0]
    assert moves == len(healthy) + HUNG_MOVES
