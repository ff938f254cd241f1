"""What a hung Redis and a trickling webhook receiver cost, measured on real processes.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres python scripts/bench_outages.py [--moves 20]

Starts what the end-to-end tests start (tests/e2e_support/processes.py): a private
redis-server on a free port as the broker, a second one as the rate-limit cache
(``CACHE_URL``), a third as the stream's (``STREAM_REDIS_URL``), a PostgreSQL
database of its own (dropped at the end) and gunicorn with the shipped config; no worker and no beat
(nothing here needs them). Then prints, for the POST of a move as the client sees it,
median, 95th percentile and max seconds, how many answered 5xx, and how many moves
were lost (answered but not stored):

- with every Redis up;
- with the broker's Redis hung, then the cache's, then the stream's, then all three
  (SIGSTOP: the kernel still accepts connections and nothing answers them; with
  --stream-on-broker the stream publishes on the broker's Redis, as it does by
  default, and the scenarios are the broker's, the cache's, then both): --moves
  moves one after another (each after a GET of its legal moves), then --spaced moves
  each more than the circuit's open period (REDIS_CIRCUIT_OPEN_SECONDS, 5 s) after
  the request before, each of which tries the hung servers again;
- a join that fills the last seat and starts a game, with every Redis hung;
- GET /healthz with Redis up and hung;
- one webhook attempt (webhooks.services.http_post, in this process) against a
  receiver that answers one byte a second, with WEBHOOKS_ATTEMPT_SECONDS=10.

Not a test and not in CI. docs/benchmarks.md keeps the figures and the command.
"""

from __future__ import annotations

import argparse
import os
import signal
import socket
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import requests  # noqa: E402

from tests.e2e_support.processes import PrivateRedis, start_stack  # noqa: E402

OPEN_SECONDS = 5.0  # REDIS_CIRCUIT_OPEN_SECONDS, the default


def timed(call: Callable[[], Any]) -> tuple[Any, float]:
    started = time.monotonic()
    result = call()
    return result, time.monotonic() - started


@dataclass
class Moves:
    seconds: list[float] = field(default_factory=list)
    errors: int = 0  # answered 5xx
    answered: int = 0  # answered 201


def percentile(seconds: list[float], share: float) -> float:
    ordered = sorted(seconds)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def summary(name: str, moves: Moves) -> None:
    s = moves.seconds
    print(
        f"{name:52} median {statistics.median(s):6.3f}  p95 {percentile(s, 0.95):6.3f}  max {max(s):6.3f} s"
        f"   5xx {moves.errors}   (n={len(s)})"
    )


def choose(api: Any, game_id: str) -> tuple[str, dict[str, Any]]:
    """Who is to move and their legal moves (asked before the timed POST)."""
    who = api.to_move(game_id)
    return who, api.call(who, "GET", f"/api/v1/games/{game_id}/legal-moves/")


def move(api: Any, game_id: str, into: Moves, chosen: tuple[str, dict[str, Any]] | None = None) -> None:
    """One POST of a move, timed (choosing it is not counted)."""
    who, legal = chosen or choose(api, game_id)
    answer, took = timed(lambda: requests.post(
        f"{api.url}/api/v1/games/{game_id}/moves/", timeout=60,
        json={"move": legal["moves"][0], "expected_version": legal["version"]},
        headers={"Authorization": f"Bearer {api.tokens[who]}"},
    ))  # fmt: skip
    into.seconds.append(took)
    if answer.status_code >= 500:
        into.errors += 1
    elif answer.status_code == 201:
        into.answered += 1
    else:
        raise AssertionError(f"{answer.status_code} {answer.text}")


@contextmanager
def hung(*servers: PrivateRedis) -> Iterator[None]:
    """The servers stopped with SIGSTOP (they take connections and answer nothing)."""
    for server in servers:
        server.kill(signal.SIGSTOP)
    try:
        yield
    finally:
        for server in servers:
            server.kill(signal.SIGCONT)
        time.sleep(OPEN_SECONDS + 0.5)  # every circuit closed again before the next scenario


def health(url: str) -> float:
    answer, took = timed(lambda: requests.get(url + "/healthz", timeout=30))
    assert answer.status_code == 200, answer.text
    return took


def trickling_receiver() -> int:
    """A receiver on 127.0.0.1 that answers one byte a second, for a minute at most."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)

    def serve() -> None:
        while True:
            conn, _ = listener.accept()

            def trickle(conn: socket.socket = conn) -> None:
                try:
                    conn.recv(65536)
                    for byte in (b"HTTP/1.1 204 No Content\r\nX-Padding: " + b"." * 100)[:60]:
                        conn.sendall(bytes([byte]))
                        time.sleep(1)
                except OSError:
                    pass
                finally:
                    conn.close()

            threading.Thread(target=trickle, daemon=True).start()

    threading.Thread(target=serve, daemon=True).start()
    return int(listener.getsockname()[1])


def webhook_attempt(port: int) -> float:
    os.environ.update(
        DJANGO_SETTINGS_MODULE="splendor_site.settings", WEBHOOKS_ALLOW_LOOPBACK="true",
        WEBHOOKS_ATTEMPT_SECONDS="10", CELERY_BROKER_URL="memory://",
    )  # fmt: skip
    import django

    django.setup()
    from webhooks.services import http_post

    outcome, took = timed(lambda: http_post(url=f"http://127.0.0.1:{port}/hook", body=b"{}", headers={}))
    print(f"  webhook attempt recorded: status {outcome.status_code}, error {outcome.error!r}")
    return took


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--moves", type=int, default=20, help="moves one after another, per scenario")
    parser.add_argument("--spaced", type=int, default=3, help="moves each after the circuit closed, per scenario")
    parser.add_argument("--stream-on-broker", action="store_true",
                        help="the stream publishes on the broker's Redis (the default of STREAM_REDIS_URL)")  # fmt: skip
    options = parser.parse_args()
    results: list[tuple[str, Moves]] = []
    with tempfile.TemporaryDirectory() as folder:
        cache = PrivateRedis(Path(folder) / "cache-redis.log").start()
        stream = None if options.stream_on_broker else PrivateRedis(Path(folder) / "stream-redis.log").start()
        stack = None
        try:
            env: dict[str, Any] = {"CACHE_URL": cache.url(0)}
            if stream is not None:
                env["STREAM_REDIS_URL"] = stream.url(0)
            stack = start_stack(Path(folder), players=("alice", "bob", "carol", "dave"), workers=0, beat=False, **env)
            api = stack.api
            games: dict[str, int] = {}

            def new_game() -> str:
                """A game of its own for each scenario (one game would end before the last)."""
                game = api.new_game("alice", ["bob"])
                games[game] = stack.db.rows("SELECT version FROM games_game WHERE id = %s", game)[0][0]
                return game

            game_id = new_game()
            up = Moves()
            for _ in range(options.moves):
                move(api, game_id, up)
            results.append(("move, every Redis up", up))
            health_up = [health(stack.web.url) for _ in range(5)]
            health_hung: list[float] = []
            join: tuple[int, float] | None = None
            scenarios = [("broker", [stack.redis]), ("cache", [cache])]
            if stream is not None:
                scenarios.append(("stream", [stream]))
            scenarios.append(("every", [stack.redis, cache, *([] if stream is None else [stream])]))
            for name, servers in scenarios:
                in_a_row, spaced = Moves(), Moves()
                game_id = new_game()
                with hung(*servers):
                    for _ in range(options.moves):
                        move(api, game_id, in_a_row)
                    for _ in range(options.spaced):
                        # Chosen first: the POST is the first request after the open period.
                        chosen = choose(api, game_id)
                        time.sleep(OPEN_SECONDS + 0.5)
                        move(api, game_id, spaced, chosen)
                    if name == "every":
                        open_game = api.call("carol", "POST", "/api/v1/games/", {"seats": 2, "invited": ["dave"]})
                        time.sleep(OPEN_SECONDS + 0.5)
                        joined, took = timed(lambda: requests.post(
                            f"{api.url}/api/v1/games/{open_game['id']}/join/", timeout=60,
                            headers={"Authorization": f"Bearer {api.tokens['dave']}"},
                        ))  # fmt: skip
                        join = (joined.status_code, took)
                        health_hung = [health(stack.web.url) for _ in range(5)]
                results.append((f"move, {name} Redis hung, one after another", in_a_row))
                results.append((f"move, {name} Redis hung, each {OPEN_SECONDS + 0.5:g} s after the last", spaced))
            stored = sum(
                stack.db.rows("SELECT version FROM games_game WHERE id = %s", game)[0][0] - version
                for game, version in games.items()
            )
        finally:
            if stack is not None:
                stack.stop()
            cache.stop()
            if stream is not None:
                stream.stop()

    for name, moves in results:
        summary(name, moves)
    answered = sum(moves.answered for _, moves in results)
    print(f"moves answered 201: {answered}; stored: {stored}; lost: {answered - stored}")
    if join is not None:
        print(f"join that starts a game, every Redis hung: {join[1]:.3f} s, answered {join[0]}")
    print(f"GET /healthz, Redis up: median {statistics.median(health_up):.3f} s; "
          f"every Redis hung: median {statistics.median(health_hung):.3f} s, max {max(health_hung):.3f} s")  # fmt: skip
    print(f"webhook attempt, receiver sending a byte a second: {webhook_attempt(trickling_receiver()):.3f} s")


if __name__ == "__main__":
    main()
