"""Settings and doubles for the push tests.

- alice and bob play a game; bob's browser subscribes, so his turns are pushed.
- charlie stands outside: his subscriptions must stay invisible to them and theirs to him.

VAPID keys are made for each test (notifications.push.keys.vapid_keys_new), and
push services are local (``PushService`` on 127.0.0.1, WEBHOOKS_ALLOW_LOOPBACK).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from notifications.push.keys import vapid_keys_new
from tests.notifications.push.push_helpers import Browser, PushService


@pytest.fixture(autouse=True)
def _push_settings(settings: Any, game_extensions: Any) -> None:
    game_extensions.hearing("email")
    private, public = vapid_keys_new()
    settings.VAPID_PRIVATE_KEY = private
    settings.VAPID_PUBLIC_KEY = public
    settings.VAPID_SUBJECT = "mailto:push@splendor.test"
    settings.WEBHOOKS_ALLOW_LOOPBACK = True
    settings.WEBHOOKS_RETRY_DELAYS_SECONDS = [5, 300]
    settings.PUSH_SUBSCRIPTIONS_PER_ACCOUNT = 10


@pytest.fixture
def push_service() -> Iterator[PushService]:
    service = PushService().start()
    yield service
    service.stop()


@pytest.fixture
def browser() -> Browser:
    return Browser()
