"""Game events become signed deliveries to the players' endpoints, retried with
backoff, and an endpoint that keeps failing is disabled with a notice."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from datetime import timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from django.core import mail
from django.utils import timezone
from standardwebhooks import Webhook

from games import services as game_services
from games.models import GameEvent
from tests.games.game_helpers import client_for, play_moves
from tests.webhooks.webhook_helpers import Committed, FakeDNS, Transport, new_game, register
from webhooks import services, tasks
from webhooks.models import Delivery, DeliveryAttempt, Endpoint

pytestmark = pytest.mark.django_db

START = "2026-03-02 09:00:00+00:00"


class Receiver(BaseHTTPRequestHandler):
    """Records each POST and answers with the server's next status."""

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length", "0"))
        server: Any = self.server
        server.received.append((self.rfile.read(length), dict(self.headers.items())))
        status = server.statuses.pop(0) if server.statuses else 204
        self.send_response(status)
        if status == 302:
            self.send_header("Location", "http://127.0.0.1:9/elsewhere")
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"ok")

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def receiver(settings: Any) -> Iterator[Any]:
    settings.WEBHOOKS_ALLOW_LOOPBACK = True
    server: Any = ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
    server.received = []
    server.statuses = []
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


def test_a_delivery_reaches_a_real_server_signed_so_that_it_verifies(
    alice: Any, bob: Any, receiver: Any, committed: Committed
) -> None:
    endpoint = register(alice, url=f"http://127.0.0.1:{receiver.server_address[1]}/hook", events=["game_started"])

    game = new_game(alice, bob, committed)

    assert len(receiver.received) == 1
    body, headers = receiver.received[0]
    payload = Webhook(endpoint.secret).verify(body, headers)
    assert payload["type"] == "game_started"
    assert payload["data"]["game_id"] == game.pk and payload["data"]["version"] == game.version
    assert headers["Content-Type"] == "application/json"
    delivery = Delivery.objects.get(endpoint=endpoint)
    assert headers["webhook-id"] == delivery.message_id and delivery.message_id.startswith("msg_")
    assert delivery.status == "succeeded" and delivery.last_status_code == 204
    with pytest.raises(Exception):
        Webhook("whsec_" + "A" * 44).verify(body, headers)


def test_a_host_name_is_connected_to_at_its_checked_address_and_still_named_in_the_request(
    alice: Any, bob: Any, receiver: Any, committed: Committed, dns: FakeDNS
) -> None:
    dns.table["hooks.local.example"] = ["127.0.0.1"]
    port = receiver.server_address[1]
    register(alice, url=f"http://hooks.local.example:{port}/hook", events=["game_started"])

    new_game(alice, bob, committed)

    [(body, headers)] = receiver.received
    assert headers["Host"] == f"hooks.local.example:{port}"
    assert json.loads(body)["type"] == "game_started"


def test_a_redirect_is_not_followed_and_counts_as_a_failure(
    alice: Any, bob: Any, receiver: Any, committed: Committed
) -> None:
    receiver.statuses = [302]
    endpoint = register(alice, url=f"http://127.0.0.1:{receiver.server_address[1]}/hook", events=["game_started"])

    new_game(alice, bob, committed)

    assert len(receiver.received) == 1
    delivery = Delivery.objects.get(endpoint=endpoint)
    assert delivery.status == "pending" and delivery.last_status_code == 302
    assert "redirects are not followed" in delivery.last_error


def test_the_payload_is_the_event_and_its_public_payload_only(
    alice: Any, bob: Any, transport: Transport, committed: Committed
) -> None:
    register(alice)
    game = new_game(alice, bob, committed)

    payloads = [json.loads(sent.body) for sent in transport.sent]
    assert [p["type"] for p in payloads] == ["game_created", "seat_joined", "game_started"]
    for payload, event in zip(payloads, GameEvent.objects.filter(game=game).order_by("id"), strict=True):
        assert set(payload) == {"type", "timestamp", "data"}
        assert payload["timestamp"] == event.created_at.isoformat()
        assert payload["data"] == {"game_id": game.pk, **event.payload}
    assert "state" not in json.dumps(payloads) and "board" not in json.dumps(payloads)


def test_only_the_players_of_a_game_get_its_events(
    alice: Any, bob: Any, charlie: Any, transport: Transport, committed: Committed
) -> None:
    alices, bobs, charlies = register(alice), register(bob), register(charlie)

    new_game(alice, bob, committed)

    assert len(transport.to(alices.url)) == 3
    # bob is invited in game_created, then joins.
    assert [json.loads(s.body)["type"] for s in transport.to(bobs.url)] == [
        "game_created",
        "seat_joined",
        "game_started",
    ]
    assert transport.to(charlies.url) == []
    assert not Delivery.objects.filter(endpoint=charlies).exists()


def test_an_endpoint_gets_only_the_events_it_asked_for(
    alice: Any, bob: Any, transport: Transport, committed: Committed
) -> None:
    endpoint = register(alice, events=["move_played"])
    game = new_game(alice, bob, committed)
    with committed():
        play_moves(game, 2)

    kinds = [json.loads(s.body)["type"] for s in transport.to(endpoint.url)]
    assert kinds == ["move_played", "move_played"]


def test_a_second_consume_of_the_same_event_creates_nothing(
    alice: Any, bob: Any, transport: Transport, committed: Committed
) -> None:
    register(alice)
    game = new_game(alice, bob, committed)
    event = GameEvent.objects.filter(game=game).first()
    assert event is not None
    before = Delivery.objects.count()

    with committed():
        assert services.event_fan_out(event=event) == []
        assert tasks.consume_event(event.pk) is False

    assert Delivery.objects.count() == before == 3
    assert len(transport.sent) == 3


def test_a_delivery_being_sent_is_not_sent_again_by_another_worker(
    alice: Any, bob: Any, transport: Transport, committed: Committed
) -> None:
    register(alice, events=["game_started"])
    tries: list[bool] = []

    def another_worker() -> None:
        delivery = Delivery.objects.get()
        tries.append(services.delivery_attempt(delivery_id=delivery.pk))
        tries.append(services.deliveries_send_due() > 0)

    transport.during_send = another_worker
    new_game(alice, bob, committed)

    assert tries == [False, False]
    assert len(transport.sent) == 1
    assert tasks.deliver(Delivery.objects.get().pk) is False  # done: a repeat does nothing


def test_a_failed_delivery_is_retried_with_backoff_until_it_succeeds(
    alice: Any, bob: Any, transport: Transport, committed: Committed, time_machine: Any
) -> None:
    time_machine.move_to(START, tick=False)
    endpoint = register(alice, events=["game_started"])
    transport.answers = [500, None, 200]

    new_game(alice, bob, committed)
    delivery = Delivery.objects.get(endpoint=endpoint)
    assert delivery.status == "pending" and delivery.attempts == 1
    assert delivery.next_attempt_at == timezone.now() + timedelta(seconds=5)

    time_machine.shift(timedelta(seconds=4))
    assert tasks.deliver_due() == 0
    time_machine.shift(timedelta(seconds=1))
    assert tasks.deliver_due() == 1
    delivery.refresh_from_db()
    assert delivery.next_attempt_at == timezone.now() + timedelta(minutes=5)
    endpoint.refresh_from_db()
    assert endpoint.consecutive_failures == 2

    time_machine.shift(timedelta(minutes=5))
    assert tasks.deliver_due() == 1
    delivery.refresh_from_db()
    endpoint.refresh_from_db()
    assert delivery.status == "succeeded" and delivery.delivered_at == timezone.now()
    assert endpoint.consecutive_failures == 0 and endpoint.is_active
    assert len(transport.sent) == 3
    assert len({s.headers["webhook-id"] for s in transport.sent}) == 1
    errors = list(DeliveryAttempt.objects.filter(delivery=delivery).values_list("status_code", "error"))
    assert errors == [(500, "HTTP 500"), (None, "No answer within 5 seconds."), (200, "")]


def test_an_endpoint_whose_delivery_runs_out_of_retries_is_disabled_and_its_owner_told(
    alice: Any, bob: Any, transport: Transport, committed: Committed, time_machine: Any, settings: Any
) -> None:
    time_machine.move_to(START, tick=False)
    endpoint = register(alice, events=["game_started"])
    transport.default = 503

    game = new_game(alice, bob, committed)
    with committed():
        for delay in settings.WEBHOOKS_RETRY_DELAYS_SECONDS:
            time_machine.shift(timedelta(seconds=delay))
            assert tasks.deliver_due() == 1

    delivery = Delivery.objects.get(endpoint=endpoint)
    endpoint.refresh_from_db()
    assert delivery.status == "failed" and delivery.attempts == 8
    assert not endpoint.is_active and endpoint.disabled_at == timezone.now()
    assert "failed 8 times" in endpoint.disabled_reason and "HTTP 503" in endpoint.disabled_reason
    [notice] = mail.outbox
    assert notice.to == ["alice@example.com"]
    assert notice.extra_headers["Auto-Submitted"] == "auto-generated"
    assert "disabled" in notice.subject
    assert endpoint.url in notice.body and "HTTP 503" in notice.body
    assert f"/api/v1/webhooks/{endpoint.pk}/" in notice.body and '"is_active": true' in notice.body
    assert endpoint.secret not in notice.body

    time_machine.shift(timedelta(days=1))
    with committed():
        play_moves(game, 1)
    assert tasks.deliver_due() == 0
    assert Delivery.objects.filter(endpoint=endpoint).count() == 1


def test_many_failures_in_a_row_over_a_day_disable_the_endpoint(
    alice: Any, bob: Any, transport: Transport, committed: Committed, time_machine: Any, settings: Any
) -> None:
    settings.WEBHOOKS_DISABLE_AFTER_FAILURES = 3
    time_machine.move_to(START, tick=False)
    endpoint = register(alice, events=["move_played"])
    transport.default = 500
    game = new_game(alice, bob, committed)

    with committed():
        play_moves(game, 3)  # three failures within minutes: not yet
    endpoint.refresh_from_db()
    assert endpoint.is_active and endpoint.consecutive_failures == 3

    time_machine.shift(timedelta(hours=24))
    with committed():
        play_moves(game, 1)
    endpoint.refresh_from_db()
    assert not endpoint.is_active and "over more than 24 hours" in endpoint.disabled_reason
    assert len(mail.outbox) == 1
    assert set(Delivery.objects.filter(endpoint=endpoint).values_list("status", flat=True)) == {"failed"}


def test_re_enabling_after_a_disable_sends_the_next_events_again(
    alice: Any, bob: Any, transport: Transport, committed: Committed
) -> None:
    endpoint = register(alice, events=["move_played"])
    game = new_game(alice, bob, committed)
    services.endpoint_update(endpoint=endpoint, is_active=False)
    with committed():
        play_moves(game, 1)
    assert transport.sent == []

    services.endpoint_update(endpoint=endpoint, is_active=True)
    with committed():
        play_moves(game, 1)
    assert len(transport.sent) == 1


def test_the_deliveries_list_shows_each_attempt_newest_first_to_the_owner_only(
    alice: Any, bob: Any, transport: Transport, committed: Committed, time_machine: Any
) -> None:
    time_machine.move_to(START, tick=False)
    endpoint = register(alice)
    transport.answers = [200, 200, 500]
    new_game(alice, bob, committed)
    time_machine.shift(timedelta(seconds=5))
    tasks.deliver_due()

    response = client_for(alice, scopes=("read",)).get(f"/api/v1/webhooks/{endpoint.pk}/deliveries/?limit=2")

    assert response.status_code == 200
    page = response.json()
    assert page["count"] == 3 and page["next"]
    newest = page["results"][0]
    assert newest["type"] == "game_started" and newest["status"] == "succeeded"
    assert newest["attempt_count"] == 2
    assert [(a["status_code"], a["error"]) for a in newest["attempts"]] == [(500, "HTTP 500"), (200, "")]
    assert all({"attempted_at", "duration_ms"} <= set(a) for a in newest["attempts"])
    assert client_for(bob).get(f"/api/v1/webhooks/{endpoint.pk}/deliveries/").status_code == 404
    assert client_for(alice).get(f"/api/v1/webhooks/{endpoint.pk}/deliveries/?limit=0").status_code == 400


def test_a_deleted_endpoint_gets_nothing_more(
    alice: Any, bob: Any, transport: Transport, committed: Committed
) -> None:
    endpoint = register(alice)
    services.endpoint_delete(endpoint=endpoint)

    new_game(alice, bob, committed)

    assert transport.sent == [] and not Endpoint.objects.exists()


def test_a_game_created_event_reaches_the_invitees(
    alice: Any, bob: Any, charlie: Any, transport: Transport, committed: Committed, dns: FakeDNS
) -> None:
    bobs = register(bob, events=["game_created"])
    with committed():
        game_services.game_create(creator=alice, variant="base", seats=2, invited=[bob])

    assert [json.loads(s.body)["data"]["invited_ids"] for s in transport.to(bobs.url)] == [[bob.pk]]
