"""The broker stops and hangs again and again under a load of moves: every worker
comes back by itself, every move is answered 201, and every email goes out once.

A private redis-server on a free port is the broker of gunicorn, of two workers
started with the options of docs/deploy.md's worker (step 6) and of one beat. While a thread plays moves through the API, the test stops Redis
(SIGTERM, then started again on the same port) and hangs it (SIGSTOP: the kernel
still accepts connections, nothing answers them; then SIGCONT), OUTAGES times in
turn. After each outage every worker must answer a ping through Redis (remote
control: its consumer has reconnected) with the same process it started with.
"""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import requests

from tests.e2e_support.processes import (
    CELERY,
    ROOT,
    SHORT_LEASES,
    SilentListener,
    Stack,
    emails,
    message_id_of,
    sent_notifications,
    settled,
    start_stack,
    wait_for,
)

pytestmark = [pytest.mark.e2e, pytest.mark.postgres, pytest.mark.redis, pytest.mark.serial]

PLAYERS = ("alice", "bob", "carol", "dave")
OUTAGES = 4  # stopped, hung, stopped, hung: each kind twice, so that a worker that came back once must do it again
OUTAGE_SECONDS = 6  # longer than the workers' read timeout (5 s): a hang they notice
# A move may take this long in all during the outages (a hung broker may cost it
# half a second; the machine is loaded): generous, and far below the seconds that
# publishing with the consumers' 5 s read timeout would wait.
SLOWEST_MOVE_SECONDS = 3.0
DEPLOY = (ROOT / "docs" / "deploy.md").read_text()


def documented_worker_options() -> list[str]:
    """The options of step 6's worker on the default queue, as docs/deploy.md
    writes them, with a concurrency this machine can carry; the queue, hostname
    and log level are the test's (Worker adds them)."""
    line = next(line for line in DEPLOY.splitlines()
                if line.startswith(".venv/bin/celery -A splendor_site worker") and "--queues celery" in line)  # fmt: skip
    words = shlex.split(line.split(">")[0])[4:]
    options: list[str] = []
    while words:
        word = words.pop(0)
        if word in ("--queues", "--loglevel", "--hostname"):
            words.pop(0)
        elif word == "--concurrency":
            options += [word, "2"]
            words.pop(0)
        else:
            options.append(word)
    return options


class Load:
    """Plays moves through the API until stopped, in two games at a time (a game
    that ends is replaced by a new one); keeps every move's answer and how long
    the slowest took."""

    def __init__(self, stack: Stack) -> None:
        self.stack = stack
        self.statuses: Counter[int | str] = Counter()
        self.slowest = 0.0
        self.running = True
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        api = self.stack.api
        pairs = [("alice", "bob"), ("carol", "dave")]
        games = [api.new_game(a, [b]) for a, b in pairs]
        turn = 0
        while self.running:
            index = turn % len(games)
            turn += 1
            try:
                who = next((name for name in pairs[index] if self._legal(games[index], name)), None)
                if who is None:  # over: another game between the same two
                    games[index] = api.new_game(pairs[index][0], [pairs[index][1]])
                    continue
                legal = self._legal(games[index], who)
                started = time.monotonic()
                answer = requests.post(
                    f"{api.url}/api/v1/games/{games[index]}/moves/",
                    json={"move": legal["moves"][0], "expected_version": legal["version"]},
                    headers={"Authorization": f"Bearer {api.tokens[who]}"},
                    timeout=60,
                )
                self.slowest = max(self.slowest, time.monotonic() - started)
                self.statuses[answer.status_code] += 1
            except (requests.RequestException, AssertionError) as exc:
                self.statuses[f"{type(exc).__name__}: {exc}"[:200]] += 1
            time.sleep(0.2)

    def _legal(self, game_id: str, who: str) -> Any:
        legal = self.stack.api.call(who, "GET", f"/api/v1/games/{game_id}/legal-moves/", expect=(200, 409))
        return legal if legal.get("moves") else None

    def __enter__(self) -> Load:
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.running = False
        self.thread.join(timeout=90)


def _answering_workers(stack: Stack) -> set[str]:
    """The hostnames (before the @) of the workers that answer docs/deploy.md's
    check, `celery -A splendor_site inspect ping`, now."""
    try:
        done = subprocess.run(
            [*CELERY, "-A", "splendor_site", "inspect", "ping", "--timeout", "2", "--json"],
            cwd=ROOT, env=stack.env, capture_output=True, text=True, timeout=60,
        )  # fmt: skip
    except subprocess.TimeoutExpired:
        # A ping that does not finish (the broker still coming back, a loaded machine)
        # is no answer now; the caller's wait_for asks again until its own limit.
        return set()
    try:
        replies = json.loads(done.stdout.strip().splitlines()[-1]) if done.returncode == 0 else {}
    except (ValueError, IndexError):
        return set()
    return {name.split("@")[0] for name in replies}


def _hang(pid: int, seconds: float) -> None:
    os.kill(pid, signal.SIGSTOP)
    try:
        time.sleep(seconds)
    finally:
        os.kill(pid, signal.SIGCONT)


def test_every_worker_comes_back_by_itself_after_the_broker_is_stopped_and_hung_again_and_again(
    tmp_path: Path,
) -> None:
    options = documented_worker_options()
    assert "--concurrency" in options, options
    stack = start_stack(tmp_path, players=PLAYERS, workers=2, worker_options=options, **SHORT_LEASES)
    try:
        started = {worker.hostname: worker.pid for worker in stack.workers}
        wait_for(lambda: _answering_workers(stack) == set(started), timeout=60,
                 what="every worker answering a ping", explain=stack.explain)  # fmt: skip
        with Load(stack) as load:
            for outage in range(OUTAGES):
                time.sleep(2)  # some moves with the broker up
                if outage % 2 == 0:
                    stack.redis.stop()
                    time.sleep(OUTAGE_SECONDS)
                    stack.redis.start()  # the same port
                else:
                    _hang(stack.redis.pid, OUTAGE_SECONDS)
                wait_for(
                    lambda: _answering_workers(stack) == set(started), timeout=90,
                    what=f"every worker answering again after outage {outage + 1} "
                         f"({'stopped' if outage % 2 == 0 else 'hung'})",
                    explain=stack.explain,
                )  # fmt: skip
                assert {worker.hostname: worker.pid for worker in stack.workers if worker.alive()} == started, (
                    stack.explain()
                )
        # Every move was stored and answered as such, outages or not, and none waited on the broker.
        assert set(load.statuses) == {201}, load.statuses
        assert load.statuses[201] >= 10, load.statuses
        assert load.slowest < SLOWEST_MOVE_SECONDS, load.slowest
        wait_for(lambda: settled(stack), timeout=150, what="every event handled and every email sent",
                 explain=stack.explain)  # fmt: skip
        sent = sent_notifications(stack)
        emailed = Counter(message_id_of(message) for message in emails(stack.mail_dir))
        assert [mid for mid, count in emailed.items() if count > 1] == [], "an email went out twice"
        assert sorted(emailed) == sorted(message_id for _, _, message_id in sent)
        for worker in stack.workers:
            # Not even the errors a worker survives: an AttributeError on a closed
            # connection is what ended a worker that held an unacknowledged task when
            # the broker went (splendor_site.celery), and what gossip logs on each reconnection.
            assert "Unrecoverable error" not in worker.output(), worker.tail()
            assert "AttributeError" not in worker.output(), worker.tail()
    finally:
        stack.stop()


BROKER_TIMEOUT = 0.5  # BROKER_TIMEOUT_SECONDS, the default
# What a hung broker may add to a request, generously: three times its timeout.
HUNG_BROKER_ALLOWANCE = 3 * BROKER_TIMEOUT


def _timed(call: Any) -> tuple[Any, float]:
    started = time.monotonic()
    answer = call()
    return answer, time.monotonic() - started


def test_with_the_broker_hung_moves_a_game_starting_join_and_the_health_check_are_answered_at_once(
    tmp_path: Path,
) -> None:
    stack = start_stack(tmp_path, players=PLAYERS, workers=1, **SHORT_LEASES)
    api = stack.api
    try:
        game_id = api.new_game("alice", ["bob"])
        # How long a move and a health check take here with the broker up.
        baseline = max(_timed(lambda: api.play(game_id))[1] for _ in range(3))
        health_baseline = max(_timed(lambda: requests.get(stack.web.url + "/healthz", timeout=10))[1] for _ in range(3))

        stack.redis.stop()
        hung = SilentListener(stack.redis.port)  # takes connections on the broker's port, never answers
        try:
            for _ in range(3):
                (_, answer), took = _timed(lambda: api.play(game_id))  # api.play asserts 201
                assert took < baseline + HUNG_BROKER_ALLOWANCE, (took, baseline)

            # A join that fills the last seat starts the game: answered, not a 500, and stored active.
            open_game, took = _timed(lambda: api.call("carol", "POST", "/api/v1/games/", {"seats": 2, "invited": ["dave"]}))
            assert took < baseline + HUNG_BROKER_ALLOWANCE, (took, baseline)
            joined, took = _timed(lambda: requests.post(
                f"{api.url}/api/v1/games/{open_game['id']}/join/", timeout=60,
                headers={"Authorization": f"Bearer {api.tokens['dave']}"},
            ))  # fmt: skip
            assert joined.status_code in (200, 201), joined.text
            assert took < baseline + HUNG_BROKER_ALLOWANCE, (took, baseline)
            assert api.game("dave", open_game["id"])["status"] == "active"

            health, took = _timed(lambda: requests.get(stack.web.url + "/healthz", timeout=10))
            assert health.status_code == 200 and health.json()["checks"]["broker"]["state"] == "down"
            assert took < health_baseline + HUNG_BROKER_ALLOWANCE, (took, health_baseline)
            assert hung.held, "nothing connected to the hung broker"
        finally:
            hung.close()

        stack.redis.start()  # the same port: the worker reconnects, redelivery queues what waited
        wait_for(lambda: settled(stack), timeout=120, what="the held events handled and their emails sent",
                 explain=stack.explain)  # fmt: skip
        emailed = Counter(message_id_of(message) for message in emails(stack.mail_dir))
        assert [mid for mid, count in emailed.items() if count > 1] == []
        assert sorted(emailed) == sorted(message_id for _, _, message_id in sent_notifications(stack))
    finally:
        stack.stop()
