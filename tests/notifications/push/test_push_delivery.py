"""A move is pushed to the next player's browser: for real over HTTP to a local
push service, encrypted per RFC 8291 and decrypted here by the test's own
browser, signed with a VAPID JWT for the endpoint's origin; a push service that
answers 410 has the subscription deleted; other failures are retried."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
from django.conf import settings

from core import metrics
from games.models import Game, Seat
from notifications.models import Preferences, PushMessage, PushSubscription
from notifications.push import services
from tests.games.game_helpers import client_for
from tests.notifications.push.push_helpers import Browser, PushService, vapid_claims

pytestmark = pytest.mark.django_db(transaction=False)

PAYLOAD_KEYS = {"kind", "game_id", "version", "title", "body", "url"}


def _mover_and_other(game: Game) -> tuple[Any, Any]:
    game.refresh_from_db()
    mover = Seat.objects.get(game=game, index=game.to_move).user
    other = Seat.objects.exclude(user=mover).get(game=game).user
    return mover, other


def _move(game: Game, mover: Any, commit: Any) -> None:
    game.refresh_from_db()
    moves = client_for(mover).get(f"/api/v1/games/{game.pk}/legal-moves/").json()
    texts = [m["move"] if isinstance(m, dict) else m for m in moves.get("moves", moves)]
    text = next(t for t in texts if t.startswith("take ") and " return " not in t)
    with commit():
        answer = client_for(mover).post(
            f"/api/v1/games/{game.pk}/moves/", {"move": text, "expected_version": game.version}, format="json"
        )
    assert answer.status_code == 201, answer.content


def _subscribe(user: Any, browser: Browser, endpoint: str) -> None:
    answer = client_for(user).post("/api/v1/me/push-subscriptions/", browser.subscription(endpoint), format="json")
    assert answer.status_code == 201, answer.content


def test_a_move_pushes_the_next_player_a_payload_their_browser_decrypts(
    active_game: Game, push_service: PushService, browser: Browser, commit: Any
) -> None:
    mover, other = _mover_and_other(active_game)
    _subscribe(other, browser, push_service.endpoint())

    _move(active_game, mover, commit)

    assert len(push_service.received) == 1
    request = push_service.received[0]
    assert request.path == "/push/v1/browser-1"
    assert request.headers["content-encoding"] == "aes128gcm"
    assert int(request.headers["ttl"]) == settings.PUSH_TTL_SECONDS
    claims = vapid_claims(request.headers, settings.VAPID_PUBLIC_KEY)
    assert claims["aud"] == push_service.origin
    assert claims["sub"] == "mailto:push@splendor.test"
    assert claims["exp"] > time.time()

    payload = json.loads(browser.decrypt(request.body))
    active_game.refresh_from_db()
    assert set(payload) == PAYLOAD_KEYS
    assert payload["kind"] == "your_turn"
    assert payload["game_id"] == active_game.pk
    assert payload["version"] == active_game.version
    assert payload["url"] == f"/games/{active_game.pk}/"
    assert active_game.pk in payload["title"]
    assert payload["body"].startswith(f"Your turn in game {active_game.pk}: ")
    assert "takes" in payload["body"] or "took" in payload["body"] or "take" in payload["body"]
    assert "Play by " in payload["body"] and "(UTC)" in payload["body"]
    assert PushMessage.objects.get().status == PushMessage.Status.SENT


def test_a_push_service_that_answers_410_has_the_subscription_deleted(
    active_game: Game, push_service: PushService, browser: Browser, commit: Any
) -> None:
    mover, other = _mover_and_other(active_game)
    _subscribe(other, browser, push_service.endpoint())
    _subscribe(mover, Browser(), push_service.endpoint("browser-2"))
    _move(active_game, mover, commit)
    assert len(push_service.received) == 1
    before = metrics.PUSH.labels("your_turn", "gone")._value.get()

    push_service.answers = [410]
    _move(active_game, other, commit)

    assert len(push_service.received) == 2
    assert not PushSubscription.objects.filter(endpoint__endswith="browser-2").exists()
    assert PushSubscription.objects.filter(endpoint__endswith="browser-1").exists()
    assert metrics.PUSH.labels("your_turn", "gone")._value.get() == before + 1


def test_a_failure_is_tried_again_after_the_webhooks_delays_then_given_up(
    active_game: Game, push_service: PushService, browser: Browser, commit: Any, time_machine: Any
) -> None:
    mover, other = _mover_and_other(active_game)
    _subscribe(other, browser, push_service.endpoint())
    push_service.answers = [500, 503, 502]
    _move(active_game, mover, commit)
    message = PushMessage.objects.get()
    assert (message.status, message.attempts, message.last_error) == ("queued", 1, "HTTP 500")

    assert services.push_messages_send_due() == 0  # not due yet: 5 s later
    time_machine.move_to(message.next_attempt_at, tick=False)
    assert services.push_messages_send_due() == 1
    message.refresh_from_db()
    assert (message.status, message.attempts) == ("queued", 2)
    time_machine.move_to(message.next_attempt_at, tick=False)
    assert services.push_messages_send_due() == 1
    message.refresh_from_db()
    assert (message.status, message.attempts) == ("failed", 3)
    assert len(push_service.received) == 3
    assert PushSubscription.objects.filter(user=other).exists()  # only 404 and 410 delete it


def test_the_player_who_turned_push_off_for_turns_gets_none(
    active_game: Game, push_service: PushService, browser: Browser, commit: Any
) -> None:
    mover, other = _mover_and_other(active_game)
    _subscribe(other, browser, push_service.endpoint())
    Preferences.objects.create(user=other, push_your_turn=False)
    _move(active_game, mover, commit)
    assert push_service.received == []
    assert not PushMessage.objects.exists()


def test_email_turned_off_leaves_push_on(
    active_game: Game, push_service: PushService, browser: Browser, commit: Any
) -> None:
    mover, other = _mover_and_other(active_game)
    _subscribe(other, browser, push_service.endpoint())
    Preferences.objects.create(user=other, mode=Preferences.Mode.OFF)
    _move(active_game, mover, commit)
    assert len(push_service.received) == 1


def test_without_vapid_keys_nothing_is_pushed(
    active_game: Game, push_service: PushService, browser: Browser, commit: Any, settings: Any
) -> None:
    mover, other = _mover_and_other(active_game)
    _subscribe(other, browser, push_service.endpoint())
    settings.VAPID_PRIVATE_KEY = settings.VAPID_PUBLIC_KEY = ""
    _move(active_game, mover, commit)
    assert push_service.received == []
