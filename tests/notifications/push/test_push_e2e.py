"""Web Push with real processes: gunicorn takes the subscription and the move, a
Celery worker (on a private redis-server) encrypts and sends the push to a push
service in this test, and a "browser" made here with its own P-256 keys decrypts
it (RFC 8291) to the documented JSON. A 410 from the push service deletes the
subscription. The time from the move's answer to the push is printed: the
figure is docs/benchmarks.md's "Web Push"."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from notifications.push.keys import vapid_keys_new
from tests.e2e_support.processes import Stack, start_stack, wait_for
from tests.notifications.push.push_helpers import Browser, PushService, vapid_claims

pytestmark = [pytest.mark.e2e, pytest.mark.postgres]

PAYLOAD_KEYS = {"kind", "game_id", "version", "title", "body", "url"}
PRIVATE, PUBLIC = vapid_keys_new()


@pytest.fixture
def push_service() -> Iterator[PushService]:
    service = PushService().start()
    try:
        yield service
    finally:
        service.stop()


@pytest.fixture
def stack(tmp_path: Path) -> Iterator[Stack]:
    running = start_stack(
        tmp_path, players=("alice", "bob"), workers=1, beat=False,
        VAPID_PRIVATE_KEY=PRIVATE, VAPID_PUBLIC_KEY=PUBLIC, VAPID_SUBJECT="mailto:ops@splendor.test",
        WEBHOOKS_ALLOW_LOOPBACK="true",
    )  # fmt: skip
    try:
        yield running
    finally:
        running.stop()


def test_a_move_reaches_the_waiting_players_browser_encrypted_and_a_410_unsubscribes(
    stack: Stack, push_service: PushService
) -> None:
    api = stack.api
    assert api.call("bob", "GET", "/api/v1/push/key/") == {"public_key": PUBLIC}
    game = api.new_game("alice", ["bob"])
    mover = api.to_move(game)
    waiting = "bob" if mover == "alice" else "alice"
    browser = Browser()
    subscribed = api.call(waiting, "POST", "/api/v1/me/push-subscriptions/", browser.subscription(push_service.endpoint()))
    assert subscribed["endpoint_host"] == "127.0.0.1"

    played_at = time.monotonic()
    api.play(game, mover)
    wait_for(lambda: push_service.received, timeout=60, what="the push of the move", explain=stack.explain)
    request = push_service.received[0]
    print(f"\npush delivered {request.at - played_at:.2f} s after the move's answer")
    assert request.headers["content-encoding"] == "aes128gcm"
    assert vapid_claims(request.headers, PUBLIC)["aud"] == push_service.origin
    payload = json.loads(browser.decrypt(request.body))
    assert set(payload) == PAYLOAD_KEYS
    assert payload["kind"] == "your_turn" and payload["game_id"] == game
    assert payload["version"] == api.game(waiting, game)["version"]
    assert payload["url"] == f"/games/{game}/" and game in payload["title"]

    # The browser has gone: the push service answers 410, and the subscription is deleted.
    push_service.answers = [410]
    api.play(game, waiting)
    api.play(game, mover)
    wait_for(lambda: len(push_service.received) >= 2, timeout=60, what="the second push", explain=stack.explain)
    wait_for(lambda: api.call(waiting, "GET", "/api/v1/me/push-subscriptions/") == [], timeout=60,
             what="the subscription deleted after the 410", explain=stack.explain)  # fmt: skip
