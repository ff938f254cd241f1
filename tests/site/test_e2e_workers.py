"""Several Celery workers against one private Redis and a PostgreSQL database of
the test's own: what runs twice, what the broker's absence costs, and what a
killed worker leaves behind.

Each test starts gunicorn, the workers and one beat with every sweep each
second and game clocks in seconds (tests/e2e_support/processes.py), drives the
games only through the API, and reads the outcome from the database and from
the emails the workers wrote (the file backend). Nobody calls a task by hand
except where a test says so.
"""

from __future__ import annotations

import os
import signal

import socket
import threading
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from celery import Celery

from tests.e2e_support.processes import (
    SHORT_LEASES,
    Stack,
    emails,
    last_move_announced,
    message_id_of,
    sent_notifications,
    settled,
    start_stack,
    wait_for,
)

pytestmark = [pytest.mark.e2e, pytest.mark.postgres, pytest.mark.redis]

PLAYERS = ("alice", "bob", "carol", "dave")


@pytest.fixture
def stack(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[Stack]:
    options: dict[str, Any] = getattr(request, "param", {})
    running = start_stack(tmp_path, players=PLAYERS, **options)
    try:
        yield running
    finally:
        running.stop()


def _assert_each_sent_notification_emailed_once(stack: Stack, messages: list[Any]) -> list[tuple[str, str, str]]:
    sent = sent_notifications(stack)
    emailed = Counter(message_id_of(message) for message in messages)
    assert [mid for mid, count in emailed.items() if count > 1] == [], "an email went out twice"
    assert sorted(emailed) == sorted(message_id for _, _, message_id in sent)
    return sent


def _pairs(games: int) -> list[tuple[str, str]]:
    return [(PLAYERS[n % 4], PLAYERS[(n + 1 + n // 4) % 4]) for n in range(games)]


def test_a_burst_of_moves_across_many_games_sends_each_notification_exactly_once(stack: Stack) -> None:
    games = [stack.api.new_game(creator, [invited]) for creator, invited in _pairs(8)]
    moves = 0
    for _ in range(5):
        for game_id in games:
            stack.api.play(game_id)
            moves += 1
    wait_for(lambda: settled(stack), timeout=120, what="every event handled and every email sent", explain=stack.explain)

    _assert_each_sent_notification_emailed_once(stack, emails(stack.mail_dir))
    assert moves == 40
    for game_id in games:
        assert last_move_announced(stack, game_id), game_id
    # Both workers took part: the load was shared, and still nothing doubled.
    for worker in stack.workers:
        assert "succeeded" in worker.output(), worker.tail()


def _events(stack: Stack, game_id: str) -> list[tuple[str, dict[str, Any]]]:
    return [
        (str(kind), payload)
        for kind, payload in stack.db.rows(
            "SELECT kind, payload FROM games_gameevent WHERE game_id = %s ORDER BY id", game_id
        )
    ]


def test_concurrent_sweeps_time_each_game_out_exactly_once(stack: Stack) -> None:
    games = [
        stack.api.new_game(creator, [invited], move_timeout_seconds=3, timeout_policy={"forfeit_after": 2})
        for creator, invited in _pairs(6)
    ]
    # Besides the beat's sweep every second, both workers get a flood of sweeps at once.
    # Not the process's current app: tests that run after this one in the same
    # process send their tasks through the site's app (celery.current_app).
    sender = Celery(broker=stack.redis.url(0), set_as_current=False)
    try:
        def finished() -> bool:
            for _ in range(4):
                sender.send_task("games.tasks.sweep_deadlines")
            rows = stack.db.rows("SELECT count(*) FROM games_game WHERE id = ANY(%s) AND status = 'finished'", games)
            return rows[0][0] == len(games)

        wait_for(finished, timeout=120, what="every game forfeited by its timeouts", every=0.5, explain=stack.explain)
    finally:
        sender.close()

    assert len(games) == 6
    for game_id in games:
        events = _events(stack, game_id)
        timeouts = [(payload["seat"], payload["consecutive"]) for kind, payload in events if kind == "turn_timed_out"]
        assert len(timeouts) == len(set(timeouts)), f"a deadline of {game_id} was acted on twice: {events}"
        for (kind, _), (next_kind, next_payload) in zip(events, events[1:]):
            if kind == "turn_timed_out":
                assert next_kind == "seat_resigned" or next_payload.get("played_by") == "bot", events
        assert sum(1 for kind, _ in events if kind == "seat_resigned") == 1, events
        assert events[-1][0] == "game_finished", events


@pytest.mark.parametrize("stack", [{"workers": 1, **SHORT_LEASES}], indirect=True)
def test_with_the_broker_down_moves_are_accepted_and_their_emails_go_out_when_it_is_back(stack: Stack) -> None:
    game_id = stack.api.new_game("alice", ["bob"])
    stack.api.play(game_id)
    wait_for(lambda: settled(stack), timeout=60, what="the first move's email", explain=stack.explain)
    before = len(sent_notifications(stack))

    stack.redis.stop()
    started = time.monotonic()
    for _ in range(3):
        stack.api.play(game_id)  # 201 each time: the outbox holds the news
    assert time.monotonic() - started < 15, "a move waited on the broker that is down"
    time.sleep(2)
    assert len(sent_notifications(stack)) == before  # nothing can reach a worker yet

    stack.redis.start()  # the same port: the workers and beat reconnect
    wait_for(lambda: settled(stack) and last_move_announced(stack, game_id), timeout=120,
             what="the held events handled and the last move's email sent once the broker is back",
             explain=stack.explain)  # fmt: skip
    assert len(sent_notifications(stack)) > before
    _assert_each_sent_notification_emailed_once(stack, emails(stack.mail_dir))


class HangingSmtpServer:
    """A minimal SMTP server. The first message's DATA is never answered (the
    connection hangs, as a mail server that stopped mid-transfer); every later
    message is accepted and kept in ``accepted``."""

    def __init__(self) -> None:
        self.listener = socket.socket()
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(16)
        self.port = int(self.listener.getsockname()[1])
        self.accepted: list[bytes] = []
        self.hanging = threading.Event()
        self._hung_once = False
        self._lock = threading.Lock()
        self._running = True
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        self.listener.settimeout(0.2)
        while self._running:
            try:
                conn, _ = self.listener.accept()
            except OSError:
                continue
            threading.Thread(target=self._session, args=(conn,), daemon=True).start()

    def _session(self, conn: socket.socket) -> None:
        file = conn.makefile("rb")
        try:
            conn.sendall(b"220 hanging-smtp ready\r\n")
            while self._running:
                line = file.readline()
                if not line:
                    return
                verb = line[:4].upper()
                if verb in (b"EHLO", b"HELO"):
                    conn.sendall(b"250 hanging-smtp\r\n")
                elif verb == b"DATA":
                    conn.sendall(b"354 go on\r\n")
                    body = b""
                    while not body.endswith(b"\r\n.\r\n"):
                        chunk = file.readline()
                        if not chunk:
                            return
                        body += chunk
                    with self._lock:
                        hang, self._hung_once = not self._hung_once, True
                    if hang:
                        self.hanging.set()
                        while self._running:  # never answer: the sender waits until it is killed
                            time.sleep(0.1)
                        return
                    self.accepted.append(body)
                    conn.sendall(b"250 accepted\r\n")
                elif verb == b"QUIT":
                    conn.sendall(b"221 bye\r\n")
                    return
                else:
                    conn.sendall(b"250 ok\r\n")
        except OSError:
            return
        finally:
            conn.close()

    def close(self) -> None:
        self._running = False
        self.listener.close()


@pytest.fixture
def smtp() -> Iterator[HangingSmtpServer]:
    server = HangingSmtpServer()
    try:
        yield server
    finally:
        server.close()


def _message_ids(bodies: list[bytes]) -> list[str]:
    import email

    return [message_id_of(email.message_from_bytes(body)) for body in bodies]


def test_a_worker_killed_mid_task_loses_nothing(tmp_path: Path, smtp: HangingSmtpServer) -> None:
    # Workers send through a mail server that hangs on the first message: the
    # worker sending it is SIGKILLed there. Its task was not acknowledged
    # (acks_late), so Redis gives it to the other worker after the visibility
    # timeout, and the notification's claim has run out by then.
    stack = start_stack(
        tmp_path, players=PLAYERS, workers=2, **SHORT_LEASES, BROKER_VISIBILITY_TIMEOUT_SECONDS="5",
        EMAIL_BACKEND="django.core.mail.backends.smtp.EmailBackend", EMAIL_HOST="127.0.0.1",
        EMAIL_PORT=str(smtp.port), EMAIL_TIMEOUT="60",
    )  # fmt: skip
    try:
        game_id = stack.api.new_game("alice", ["bob"])
        assert smtp.hanging.wait(timeout=60), stack.explain()
        stuck = [worker for worker in stack.workers if _holds_connection_to(worker.pid, smtp.port)]
        assert len(stuck) == 1, stack.explain()
        stuck[0].kill(signal.SIGKILL)
        for _ in range(3):
            stack.api.play(game_id)
        wait_for(lambda: settled(stack) and last_move_announced(stack, game_id), timeout=120,
                 what="every notification sent by the surviving worker", explain=stack.explain)  # fmt: skip
        sent = sent_notifications(stack)
        delivered = Counter(_message_ids(smtp.accepted))
        assert [mid for mid, count in delivered.items() if count > 1] == []
        assert sorted(delivered) == sorted(message_id for _, _, message_id in sent)
        # The email the killed worker was sending (bob's invitation) went out after all, once.
        assert Counter(kind for _, kind, _ in sent)["invitation"] == 1
    finally:
        stack.stop()


def _holds_connection_to(pid: int, port: int) -> bool:
    """Whether the process has an ESTABLISHED TCP connection to 127.0.0.1:port."""
    inodes: set[str] = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            if fields[3] == "01" and int(fields[2].rsplit(":", 1)[1], 16) == port:
                inodes.add(fields[9])
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            link = os.readlink(fd)
        except OSError:
            continue
        if link.startswith("socket:[") and link[8:-1] in inodes:
            return True
    return False



