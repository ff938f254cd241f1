"""Webhook receivers that trickle their answers hold only the webhooks worker:
turn emails and the deadline sweep go on as if they were not there.

gunicorn, a worker on the default queue, a worker on the `webhooks` queue (as
docs/deploy.md runs them) and beat share a private Redis and a PostgreSQL
database of the test's own. alice registers as many webhooks as a player may
(WEBHOOKS_MAX_PER_USER, 10), all to a receiver that answers one byte a second
and would go on for a minute. Each attempt is cut at WEBHOOKS_ATTEMPT_SECONDS,
one attempt at a time per webhook, while the game's turn emails go out and a
missed deadline is played by the bot, each within a generous bound.
"""

from __future__ import annotations

import select
import socket
import threading
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from tests.e2e_support.processes import Stack, last_move_announced, start_stack, wait_for

pytestmark = [pytest.mark.e2e, pytest.mark.postgres, pytest.mark.redis, pytest.mark.serial]

PLAYERS = ("alice", "bob")
WEBHOOKS = 10  # WEBHOOKS_MAX_PER_USER's default: the most one player may have
ATTEMPT_SECONDS = 3
TRICKLE_EVERY = 1.0
TRICKLE_FOR = 60.0
# A turn email goes out within seconds; a worker held by trickling receivers
# would keep it waiting for minutes. Generous for a loaded machine.
TURN_EMAIL_BOUND = 20.0
MOVE_TIMEOUT = 8


class TricklingReceiver:
    """Reads each request, then answers one byte every TRICKLE_EVERY seconds for
    TRICKLE_FOR seconds at most; records each request's path, webhook-id, and
    when it was read and when the sender hung up."""

    def __init__(self) -> None:
        self.listener = socket.socket()
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(64)
        self.port = int(self.listener.getsockname()[1])
        self.requests: list[dict[str, Any]] = []
        self.lock = threading.Lock()
        self.running = True
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        self.listener.settimeout(0.1)
        while self.running:
            try:
                conn, _ = self.listener.accept()
            except OSError:
                continue
            threading.Thread(target=self._trickle, args=(conn,), daemon=True).start()

    def _trickle(self, conn: socket.socket) -> None:
        answer = b"HTTP/1.1 204 No Content\r\nX-Padding: " + b"." * 200 + b"\r\n\r\n"
        try:
            head = b""
            while b"\r\n\r\n" not in head:
                chunk = conn.recv(65536)
                if not chunk:
                    return
                head += chunk
            lines = head.split(b"\r\n\r\n", 1)[0].decode("latin-1").split("\r\n")
            headers = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}
            record = {"path": lines[0].split()[1], "id": headers.get("webhook-id"), "start": time.monotonic()}
            with self.lock:
                self.requests.append(record)
            stop = time.monotonic() + TRICKLE_FOR
            for byte in answer:
                conn.sendall(bytes([byte]))
                next_byte = time.monotonic() + TRICKLE_EVERY
                while (left := next_byte - time.monotonic()) > 0:
                    # The sender hanging up shows as the end of its side of the stream.
                    if select.select([conn], [], [], min(left, 0.05))[0] and not conn.recv(65536):
                        return
                if not self.running or time.monotonic() > stop:
                    return
        except OSError:
            return
        finally:
            if "record" in locals():
                record["end"] = time.monotonic()
            conn.close()

    def close(self) -> None:
        self.running = False
        self.listener.close()


def _overlapping(requests: list[dict[str, Any]], key: str) -> list[tuple[Any, Any]]:
    """Pairs of requests with the same ``key`` that were under way at once."""
    by_key: dict[Any, list[dict[str, Any]]] = defaultdict(list)
    for request in requests:
        by_key[request[key]].append(request)
    overlaps = []
    for same in by_key.values():
        same.sort(key=lambda r: r["start"])
        for first, second in zip(same, same[1:]):
            # 0.1 s: how late the receiver may notice that the sender hung up.
            if second["start"] < first.get("end", float("inf")) - 0.1:
                overlaps.append((first, second))
    return overlaps


def _bot_played(stack: Stack, game_id: str) -> bool:
    return bool(stack.db.rows(
        "SELECT 1 FROM games_gameevent WHERE game_id = %s AND kind = 'move_played' "
        "AND payload->>'played_by' = 'bot'", game_id,
    ))  # fmt: skip


def test_webhook_receivers_that_trickle_their_answers_hold_up_no_turn_email_and_no_sweep(tmp_path: Path) -> None:
    receiver = TricklingReceiver()
    stack = start_stack(tmp_path, players=PLAYERS, workers=1, worker_queues="celery,bots,beat", webhook_workers=1,
                        WEBHOOKS_ATTEMPT_SECONDS=str(ATTEMPT_SECONDS))  # fmt: skip
    api = stack.api
    try:
        for n in range(WEBHOOKS):
            api.call("alice", "POST", "/api/v1/webhooks/", {"url": f"http://127.0.0.1:{receiver.port}/hook/{n}"})
        game_id = api.new_game("alice", ["bob"], move_timeout_seconds=MOVE_TIMEOUT, timeout_policy={"forfeit_after": 3})
        wait_for(lambda: receiver.requests, timeout=60, what="the first webhook attempts", explain=stack.explain)

        # Each move's turn email goes out at once, while every webhook's receiver trickles.
        for _ in range(4):
            api.play(game_id)
            moved = time.monotonic()
            wait_for(lambda: last_move_announced(stack, game_id), timeout=TURN_EMAIL_BOUND,
                     what="the turn email while the webhooks trickle", explain=stack.explain)  # fmt: skip
            assert time.monotonic() - moved < TURN_EMAIL_BOUND
        # Nobody moves: the sweep has the bot play the missed turn.
        wait_for(lambda: _bot_played(stack, game_id), timeout=MOVE_TIMEOUT + TURN_EMAIL_BOUND,
                 what="the bot's move on the missed deadline", explain=stack.explain)  # fmt: skip

        # The webhooks worker was busy all along: deliveries are still waiting for it.
        backlog = stack.db.rows("SELECT count(*) FROM webhooks_delivery WHERE status = 'pending'")[0][0]
        assert backlog > WEBHOOKS, backlog
        # One attempt at a time per webhook, each cut at the deadline (three times it, generously).
        attempts = stack.db.rows("SELECT duration_ms, error FROM webhooks_deliveryattempt")
        assert len(attempts) >= 3, attempts
        assert {error for _, error in attempts} == {f"No complete answer within {ATTEMPT_SECONDS} seconds."}
        assert max(duration for duration, _ in attempts) < 3 * ATTEMPT_SECONDS * 1000
        with receiver.lock:
            requests = [dict(r) for r in receiver.requests]
        assert len({r["path"] for r in requests}) >= 2, requests  # more than one webhook was tried
        assert _overlapping(requests, "path") == []
        assert _overlapping(requests, "id") == []
    finally:
        stack.stop()
        receiver.close()
