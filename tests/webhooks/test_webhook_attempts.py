"""One attempt is bounded as a whole, an endpoint gets one attempt at a time, and
attempts run on a queue of their own, so that no receiver can hold the workers.

The receivers here are real sockets on 127.0.0.1 that answer one byte at a time:
each read gets a byte well within WEBHOOKS_TIMEOUT_SECONDS, so only a deadline on
the whole attempt stops them. Times are asserted generously (three times the
deadline), never as a speed.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from splendor_site.celery import app
from tests.site.test_settings_from_environment import run_manage
from tests.webhooks.webhook_helpers import Committed, Transport, new_game, register
from webhooks import services
from webhooks.models import Delivery, DeliveryAttempt, Endpoint

pytestmark = pytest.mark.django_db

DEADLINE = 1.0
TRICKLE_EVERY = 0.2  # seconds between bytes: far below the per-read timeout
TRICKLE_FOR = 20.0  # how long the receiver would go on if nobody cut it


class TricklingReceiver:
    """Accepts connections and answers each with ``answer`` one byte every
    TRICKLE_EVERY seconds, for TRICKLE_FOR seconds at most."""

    def __init__(self, answer: bytes) -> None:
        self.answer = answer
        self.listener = socket.socket()
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(8)
        self.port = int(self.listener.getsockname()[1])
        self.requests = 0
        self.running = True
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        self.listener.settimeout(0.1)
        while self.running:
            try:
                conn, _ = self.listener.accept()
            except OSError:
                continue
            self.requests += 1
            threading.Thread(target=self._trickle, args=(conn,), daemon=True).start()

    def _trickle(self, conn: socket.socket) -> None:
        stop = time.monotonic() + TRICKLE_FOR
        try:
            conn.recv(65536)  # the request
            for byte in self.answer:
                if not self.running or time.monotonic() > stop:
                    break
                conn.sendall(bytes([byte]))
                time.sleep(TRICKLE_EVERY)
        except OSError:
            pass  # the sender hung up: what the deadline does
        finally:
            conn.close()

    def close(self) -> None:
        self.running = False
        self.listener.close()


@pytest.fixture
def short_attempts(settings: Any) -> None:
    settings.WEBHOOKS_ALLOW_LOOPBACK = True
    settings.WEBHOOKS_TIMEOUT_SECONDS = 5.0
    settings.WEBHOOKS_ATTEMPT_SECONDS = DEADLINE


@pytest.fixture
def trickling_headers() -> Iterator[TricklingReceiver]:
    receiver = TricklingReceiver(b"HTTP/1.1 204 No Content\r\nX-Padding: " + b"." * 500 + b"\r\n\r\n")
    yield receiver
    receiver.close()


@pytest.fixture
def trickling_body() -> Iterator[TricklingReceiver]:
    receiver = TricklingReceiver(b"HTTP/1.1 200 OK\r\nContent-Length: 500\r\n\r\n" + b"." * 500)
    yield receiver
    receiver.close()


def _attempt_against(receiver: TricklingReceiver, alice: Any, bob: Any, committed: Committed) -> tuple[float, Any]:
    endpoint = register(alice, url=f"http://127.0.0.1:{receiver.port}/hook", events=["game_started"])
    started = time.monotonic()
    new_game(alice, bob, committed)
    took = time.monotonic() - started
    return took, DeliveryAttempt.objects.get(delivery__endpoint=endpoint)


def test_an_answer_whose_headers_trickle_in_is_cut_at_the_attempt_deadline(
    alice: Any, bob: Any, committed: Committed, short_attempts: None, trickling_headers: TricklingReceiver
) -> None:
    took, attempt = _attempt_against(trickling_headers, alice, bob, committed)

    assert trickling_headers.requests == 1
    assert attempt.status_code is None
    assert attempt.error == "No complete answer within 1 seconds."
    assert took < 3 * DEADLINE, took
    assert 0.9 * DEADLINE * 1000 <= attempt.duration_ms < 3 * DEADLINE * 1000


def test_an_answer_whose_body_trickles_in_is_cut_at_the_attempt_deadline(
    alice: Any, bob: Any, committed: Committed, short_attempts: None, trickling_body: TricklingReceiver
) -> None:
    took, attempt = _attempt_against(trickling_body, alice, bob, committed)

    assert attempt.status_code is None
    assert attempt.error == "No complete answer within 1 seconds."
    assert took < 3 * DEADLINE, took
    delivery = attempt.delivery
    delivery.refresh_from_db()
    assert delivery.status == "pending" and delivery.attempts == 1  # retried later, as any failure
    assert Endpoint.objects.get(pk=delivery.endpoint_id).attempt_until is None  # free for the next attempt


def test_a_connection_that_is_never_accepted_is_cut_at_the_attempt_deadline_too(
    alice: Any, bob: Any, committed: Committed, short_attempts: None
) -> None:
    # A full backlog: the TCP handshake to this port never completes.
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(0)
        port = listener.getsockname()[1]
        fillers = []
        for _ in range(8):
            filler = socket.socket()
            filler.setblocking(False)
            filler.connect_ex(("127.0.0.1", port))
            fillers.append(filler)
        try:
            endpoint = register(alice, url=f"http://127.0.0.1:{port}/hook", events=["game_started"])
            started = time.monotonic()
            new_game(alice, bob, committed)
            took = time.monotonic() - started
        finally:
            for filler in fillers:
                filler.close()
    attempt = DeliveryAttempt.objects.get(delivery__endpoint=endpoint)
    # The connect timeout (no more than what is left of the attempt) or the deadline itself.
    assert attempt.error in ("No answer within 1 seconds.", "No complete answer within 1 seconds."), attempt.error
    assert took < 3 * DEADLINE, took


def test_an_endpoint_gets_one_attempt_at_a_time(
    alice: Any, bob: Any, charlie: Any, transport: Transport, committed: Committed
) -> None:
    alices = register(alice, events=["move_played"])
    charlies = register(charlie)
    game = new_game(alice, bob, committed)
    first = Delivery.objects.create(endpoint=alices, event=game.events.all()[0], next_attempt_at=game.created_at)
    second = Delivery.objects.create(endpoint=alices, event=game.events.all()[1], next_attempt_at=game.created_at)
    elsewhere = Delivery.objects.create(endpoint=charlies, event=game.events.all()[0], next_attempt_at=game.created_at)
    tries: dict[str, bool] = {}

    def meanwhile_other_workers() -> None:
        if tries:
            return
        tries["second, same endpoint"] = services.delivery_attempt(delivery_id=second.pk)
        tries["another endpoint"] = services.delivery_attempt(delivery_id=elsewhere.pk)

    transport.during_send = meanwhile_other_workers
    transport.sent.clear()
    assert services.delivery_attempt(delivery_id=first.pk) is True

    assert tries == {"second, same endpoint": False, "another endpoint": True}
    assert [sent.url for sent in transport.sent] == [alices.url, charlies.url]
    second.refresh_from_db()
    assert second.status == "pending" and second.attempts == 0 and second.next_attempt_at == game.created_at
    # Once the first attempt is over, the waiting delivery goes out with the next sweep.
    assert services.deliveries_send_due() == 1
    second.refresh_from_db()
    assert second.status == "succeeded"


def test_an_endpoint_whose_attempt_was_abandoned_is_free_again_when_its_lease_runs_out(
    alice: Any, bob: Any, transport: Transport, committed: Committed, time_machine: Any, settings: Any
) -> None:
    time_machine.move_to("2026-03-02 09:00:00+00:00", tick=False)
    endpoint = register(alice, events=["move_played"])
    game = new_game(alice, bob, committed)
    delivery = Delivery.objects.create(endpoint=endpoint, event=game.events.first(), next_attempt_at=game.created_at)
    # A worker died during an attempt to this endpoint: its lease stands.
    Endpoint.objects.filter(pk=endpoint.pk).update(attempt_until=game.created_at + _seconds(settings.WEBHOOK_CLAIM_LEASE_SECONDS))

    assert services.delivery_attempt(delivery_id=delivery.pk) is False
    time_machine.shift(_seconds(settings.WEBHOOK_CLAIM_LEASE_SECONDS))
    assert services.delivery_attempt(delivery_id=delivery.pk) is True


def _seconds(n: float) -> Any:
    from datetime import timedelta

    return timedelta(seconds=n)


def test_deliveries_run_on_the_webhooks_queue_and_the_outbox_on_the_default_one() -> None:
    def queue(task_name: str) -> str:
        return str(app.amqp.router.route({}, task_name)["queue"].name)

    assert queue("webhooks.tasks.deliver") == "webhooks"
    assert queue("webhooks.tasks.deliver_due") == "webhooks"  # the beat's sweep of retries
    for other in ("webhooks.tasks.consume_event", "webhooks.tasks.send_disabled_notice",
                  "notifications.tasks.consume_event"):  # fmt: skip
        assert queue(other) == "celery", other
    assert queue("games.tasks.sweep_deadlines") == "beat"  # every periodic task: tests/site/test_task_queues.py


def test_a_claim_lease_no_longer_than_an_attempt_stops_start_up() -> None:
    result = run_manage("check", WEBHOOK_CLAIM_LEASE_SECONDS="10", WEBHOOKS_ATTEMPT_SECONDS="10")

    assert result.returncode != 0
    assert "WEBHOOK_CLAIM_LEASE_SECONDS=10 must be longer than WEBHOOKS_ATTEMPT_SECONDS=10" in result.stderr


def test_a_claim_lease_longer_than_an_attempt_starts() -> None:
    result = run_manage("check", WEBHOOK_CLAIM_LEASE_SECONDS="3", WEBHOOKS_ATTEMPT_SECONDS="2")

    assert result.returncode == 0, result.stderr
