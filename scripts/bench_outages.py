"""What a hung broker and a trickling webhook receiver cost, measured on real processes.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres python scripts/bench_outages.py [--moves 5]

Starts what the end-to-end tests start (tests/e2e_support/processes.py): a private
redis-server on a free port as the broker, a PostgreSQL database of its own
(dropped at the end) and gunicorn with the shipped config; no worker and no beat
(nothing here needs them). Then prints, each as median and max seconds:

- a move (the POST to /moves/, as the client sees it) with the broker up, then with the
  broker replaced by a listener that takes connections and never answers (a hung
  Redis): --moves moves one after another, and --moves moves each more than
  games.services.PUBLISH_PAUSE_SECONDS after the one before (each of them tries
  the broker);
- a join that fills the last seat and starts the game, with the broker hung;
- GET /healthz with Redis up and hung (Redis is the broker only here: the cache
  is the process's own);
- one webhook attempt (webhooks.services.http_post, in this process) against a
  receiver that answers one byte a second, with WEBHOOKS_ATTEMPT_SECONDS=10.

Not a test and not in CI. docs/benchmarks.md keeps the figures and the command.
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import requests  # noqa: E402

from tests.e2e_support.processes import SilentListener, start_stack  # noqa: E402

PAUSE_SECONDS = 5.0  # games.services.PUBLISH_PAUSE_SECONDS


def timed(call: Callable[[], Any]) -> tuple[Any, float]:
    started = time.monotonic()
    result = call()
    return result, time.monotonic() - started


def summary(name: str, seconds: list[float]) -> None:
    print(f"{name:58} median {statistics.median(seconds):6.3f} s   max {max(seconds):6.3f} s   (n={len(seconds)})")


def move(api: Any, game_id: str) -> float:
    """The seconds one POST of a move takes (choosing it is not counted)."""
    who = api.to_move(game_id)
    legal = api.call(who, "GET", f"/api/v1/games/{game_id}/legal-moves/")
    answer, took = timed(lambda: requests.post(
        f"{api.url}/api/v1/games/{game_id}/moves/", timeout=60,
        json={"move": legal["moves"][0], "expected_version": legal["version"]},
        headers={"Authorization": f"Bearer {api.tokens[who]}"},
    ))  # fmt: skip
    assert answer.status_code == 201, answer.text
    return took


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
    parser.add_argument("--moves", type=int, default=5)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        stack = start_stack(Path(folder), players=("alice", "bob", "carol", "dave"), workers=0, beat=False)
        api = stack.api
        try:
            game_id = api.new_game("alice", ["bob"])
            up = [move(api, game_id) for _ in range(options.moves)]
            health_up = [health(stack.web.url) for _ in range(options.moves)]

            stack.redis.stop()
            hung = SilentListener(stack.redis.port)
            try:
                in_a_row = [move(api, game_id) for _ in range(options.moves)]
                spaced = []
                for _ in range(options.moves):
                    time.sleep(PAUSE_SECONDS + 0.5)
                    spaced.append(move(api, game_id))
                time.sleep(PAUSE_SECONDS + 0.5)
                open_game = api.call("carol", "POST", "/api/v1/games/", {"seats": 2, "invited": ["dave"]})
                time.sleep(PAUSE_SECONDS + 0.5)
                joined, join = timed(lambda: requests.post(
                    f"{api.url}/api/v1/games/{open_game['id']}/join/", timeout=60,
                    headers={"Authorization": f"Bearer {api.tokens['dave']}"},
                ))  # fmt: skip
                health_hung = [health(stack.web.url) for _ in range(options.moves)]
            finally:
                hung.close()
        finally:
            stack.stop()

    summary("move, broker up", up)
    summary("move, broker hung, one after another", in_a_row)
    summary(f"move, broker hung, each {PAUSE_SECONDS + 0.5:g} s after the last", spaced)
    summary(f"join that starts a game, broker hung (answered {joined.status_code})", [join])
    summary("GET /healthz, Redis up", health_up)
    summary("GET /healthz, Redis hung", health_hung)
    summary("webhook attempt, receiver sending a byte a second", [webhook_attempt(trickling_receiver())])


if __name__ == "__main__":
    main()
