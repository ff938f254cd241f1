"""Webhooks reach public addresses only: at registration and again at each delivery."""

from __future__ import annotations

from typing import Any

import pytest
import urllib3.util.connection

from tests.games.game_helpers import client_for
from tests.webhooks.webhook_helpers import PUBLIC_ADDRESS, Committed, FakeDNS, new_game, register
from webhooks.models import Delivery, DeliveryAttempt

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    "url, reason",
    [
        ("http://127.0.0.1/hook", "loopback"),
        ("http://127.8.9.10:8080/hook", "loopback"),
        ("http://10.1.2.3/hook", "private"),
        ("http://192.168.0.10/hook", "private"),
        ("http://172.16.5.5/hook", "private"),
        ("http://169.254.169.254/latest/meta-data/", "link-local"),
        ("http://[::1]/hook", "loopback"),
        ("http://[::ffff:127.0.0.1]/hook", "loopback"),
        ("http://[fe80::1]/hook", "link-local"),
        ("http://0.0.0.0/hook", "unspecified"),
        ("http://224.0.0.1/hook", "multicast"),
        ("http://240.0.0.1/hook", "reserved"),
    ],
)
def test_a_url_on_an_address_that_is_not_public_is_refused(alice: Any, dns: FakeDNS, url: str, reason: str) -> None:
    response = client_for(alice).post("/api/v1/webhooks/", {"url": url}, format="json")

    assert response.status_code == 400
    body = response.json()
    assert body["code"] == "webhook_url_refused"
    assert reason in body["errors"]["url"][0]


def test_a_host_name_that_resolves_to_a_private_address_is_refused(alice: Any, dns: FakeDNS) -> None:
    dns.table["internal.example"] = ["10.0.0.5"]
    response = client_for(alice).post("/api/v1/webhooks/", {"url": "https://internal.example/x"}, format="json")

    assert response.status_code == 400
    assert "internal.example resolves to a private address" in response.json()["errors"]["url"][0]


def test_a_host_name_is_refused_when_any_of_its_addresses_is_private(alice: Any, dns: FakeDNS) -> None:
    dns.table["mixed.example"] = [PUBLIC_ADDRESS, "fd00::7"]
    response = client_for(alice).post("/api/v1/webhooks/", {"url": "https://mixed.example/x"}, format="json")

    assert response.status_code == 400 and response.json()["code"] == "webhook_url_refused"


def test_a_host_name_that_does_not_resolve_is_refused(alice: Any, dns: FakeDNS) -> None:
    response = client_for(alice).post("/api/v1/webhooks/", {"url": "https://nowhere.example/x"}, format="json")

    assert response.status_code == 400
    assert "does not resolve" in response.json()["errors"]["url"][0]


def test_loopback_is_allowed_only_when_the_setting_says_so_and_private_never(
    alice: Any, dns: FakeDNS, settings: Any
) -> None:
    settings.WEBHOOKS_ALLOW_LOOPBACK = True
    client = client_for(alice)

    assert client.post("/api/v1/webhooks/", {"url": "http://127.0.0.1:9/x"}, format="json").status_code == 201
    assert client.post("/api/v1/webhooks/", {"url": "http://10.0.0.1/x"}, format="json").status_code == 400


def test_a_host_that_moves_to_a_private_address_after_registration_is_not_connected_to(
    alice: Any, bob: Any, dns: FakeDNS, committed: Committed, monkeypatch: pytest.MonkeyPatch
) -> None:
    endpoint = register(alice)
    connections: list[Any] = []
    monkeypatch.setattr(urllib3.util.connection, "create_connection", lambda *a, **k: connections.append(a))
    dns.table["hooks.alice.example"] = ["10.9.8.7"]

    new_game(alice, bob, committed)

    assert connections == []
    attempts = list(DeliveryAttempt.objects.filter(delivery__endpoint=endpoint))
    assert attempts and all(a.status_code is None for a in attempts)
    assert "resolves to a private address (10.9.8.7)" in attempts[0].error
    assert set(Delivery.objects.filter(endpoint=endpoint).values_list("status", flat=True)) == {"pending"}
