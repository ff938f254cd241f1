"""Personas and test doubles for the webhooks tests.

- alice creates games and registers webhooks: the owner whose endpoint is watched.
- bob plays against her (invited): the other player, whose endpoint must see
  only what he may see.
- charlie never plays in their games: his endpoint must receive nothing of them.

`dns` answers name lookups from a table (no test touches the network);
`transport` stands in for the HTTP request of a delivery and records what would
have been sent. Tests that need a real request start a server on 127.0.0.1.
"""

from __future__ import annotations

import socket
from typing import Any

import pytest

from tests.webhooks.webhook_helpers import PUBLIC_ADDRESS, Committed, FakeDNS, Transport
from webhooks import services


@pytest.fixture(autouse=True)
def _webhooks_only(settings: Any, game_extensions: Any) -> None:
    """Only this app consumes the outbox here, with the documented defaults."""
    game_extensions.hearing("webhooks")
    settings.WEBHOOKS_ALLOW_LOOPBACK = False
    settings.WEBHOOKS_RETRY_DELAYS_SECONDS = [5, 300, 1800, 7200, 18000, 36000, 36000]
    settings.WEBHOOKS_DISABLE_AFTER_FAILURES = 15
    settings.WEBHOOKS_DISABLE_AFTER_HOURS = 24
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {"anon": "100000/minute", "user": "100000/minute"},
    }





@pytest.fixture
def dns(monkeypatch: pytest.MonkeyPatch) -> FakeDNS:
    fake = FakeDNS({"hooks.alice.example": [PUBLIC_ADDRESS], "hooks.bob.example": [PUBLIC_ADDRESS]})
    fake.table["hooks.charlie.example"] = [PUBLIC_ADDRESS]
    monkeypatch.setattr(socket, "getaddrinfo", fake.getaddrinfo)
    return fake


@pytest.fixture
def transport(monkeypatch: pytest.MonkeyPatch, dns: FakeDNS) -> Transport:
    fake = Transport()
    monkeypatch.setattr(services, "http_post", fake.post)
    return fake


@pytest.fixture
def committed(django_capture_on_commit_callbacks: Any) -> Committed:
    """Run what the code inside queues on commit (the outbox consumers, the
    deliveries they queue), as a real commit would."""

    def run() -> Any:
        manager = django_capture_on_commit_callbacks(execute=True)
        return manager

    return run
