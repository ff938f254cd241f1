"""Webhooks reach public addresses only: at registration and again at each delivery."""

from __future__ import annotations

import io
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


@pytest.mark.parametrize(
    "url, words",
    [
        # 6to4 around 127.0.0.1, 10.0.0.1, and a public address: a retired tunnel whatever it carries.
        ("http://[2002:7f00:1::]/hook", ["6to4", "loopback", "127.0.0.1"]),
        ("http://[2002:a00:1::]/hook", ["6to4", "private", "10.0.0.1"]),
        ("http://[2002:5db8:d70e::1]/hook", ["6to4"]),
        # NAT64 (RFC 6052 and the local-use prefix of RFC 8215).
        ("http://[64:ff9b::7f00:1]/hook", ["NAT64", "loopback", "127.0.0.1"]),
        ("http://[64:ff9b::a9fe:a9fe]/latest/meta-data/", ["NAT64", "link-local", "169.254.169.254"]),
        ("http://[64:ff9b::c0a8:1]/hook", ["NAT64", "private", "192.168.0.1"]),
        ("http://[64:ff9b:1::5db8:d70e]/hook", ["local-use NAT64"]),
        # Teredo, its client 127.0.0.1 (written inverted in the last 32 bits).
        ("http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/hook", ["Teredo", "loopback", "127.0.0.1"]),
        # IPv4-mapped, IPv4-compatible and IPv4-translated.
        ("http://[::ffff:10.0.0.1]/hook", ["private"]),
        ("http://[::ffff:169.254.169.254]/hook", ["link-local"]),
        ("http://[::127.0.0.1]/hook", ["IPv4-compatible", "loopback", "127.0.0.1"]),
        ("http://[::ffff:0:7f00:1]/hook", ["IPv4-translated", "loopback", "127.0.0.1"]),
    ],
)
def test_an_ipv6_address_that_carries_an_inside_ipv4_address_is_refused(
    alice: Any, dns: FakeDNS, url: str, words: list[str]
) -> None:
    response = client_for(alice).post("/api/v1/webhooks/", {"url": url}, format="json")

    assert response.status_code == 400, response.content
    assert response.json()["code"] == "webhook_url_refused"
    message = response.json()["errors"]["url"][0]
    assert all(word in message for word in words), message


def test_a_host_name_that_resolves_to_6to4_around_loopback_is_refused_even_with_loopback_allowed(
    alice: Any, dns: FakeDNS, settings: Any
) -> None:
    settings.WEBHOOKS_ALLOW_LOOPBACK = True  # loopback means this machine's ::1 and 127/8, not a tunnel's far end
    dns.table["sneaky.example"] = ["2002:7f00:1::"]
    response = client_for(alice).post("/api/v1/webhooks/", {"url": "https://sneaky.example/x"}, format="json")

    assert response.status_code == 400
    assert "sneaky.example resolves to a 6to4 address, carrying a loopback address" in response.json()["errors"]["url"][0]


def test_a_nat64_address_carrying_a_public_address_is_allowed(alice: Any, dns: FakeDNS) -> None:
    # What a DNS64 resolver answers for an IPv4-only host on an IPv6-only network.
    dns.table["v4only.example"] = ["64:ff9b::5db8:d70e"]  # 93.184.215.14
    response = client_for(alice).post("/api/v1/webhooks/", {"url": "https://v4only.example/x"}, format="json")

    assert response.status_code == 201, response.content


@pytest.mark.parametrize("url", ["https://hooks.alice.example:8443/x", "http://hooks.alice.example:25/x",
                                 "https://hooks.alice.example:6379/x", "http://93.184.215.14:8080/x"])  # fmt: skip
def test_a_url_on_a_port_outside_the_allowed_ones_is_refused(alice: Any, dns: FakeDNS, url: str) -> None:
    response = client_for(alice).post("/api/v1/webhooks/", {"url": url}, format="json")

    assert response.status_code == 400
    assert response.json()["code"] == "webhook_url_refused"
    assert "is not one webhooks are sent to (only 80 and 443)" in response.json()["errors"]["url"][0]


@pytest.mark.parametrize("url", ["https://hooks.alice.example/x", "https://hooks.alice.example:443/x",
                                 "http://hooks.alice.example:80/x"])  # fmt: skip
def test_the_standard_web_ports_are_allowed(alice: Any, dns: FakeDNS, url: str) -> None:
    assert client_for(alice).post("/api/v1/webhooks/", {"url": url}, format="json").status_code == 201


def test_the_operator_chooses_the_allowed_ports(alice: Any, dns: FakeDNS, settings: Any) -> None:
    settings.WEBHOOKS_ALLOWED_PORTS = [443, 8443]
    client = client_for(alice)

    assert client.post("/api/v1/webhooks/", {"url": "https://hooks.alice.example:8443/x"}, format="json").status_code == 201
    assert client.post("/api/v1/webhooks/", {"url": "http://hooks.alice.example/x"}, format="json").status_code == 400


def test_allowing_loopback_opens_any_port_of_loopback_only(alice: Any, dns: FakeDNS, settings: Any) -> None:
    settings.WEBHOOKS_ALLOW_LOOPBACK = True
    dns.table["localhost"] = ["127.0.0.1", "::1"]
    client = client_for(alice)

    assert client.post("/api/v1/webhooks/", {"url": "http://localhost:8025/x"}, format="json").status_code == 201
    assert client.post("/api/v1/webhooks/", {"url": "http://[::1]:9000/x"}, format="json").status_code == 201
    assert client.post("/api/v1/webhooks/", {"url": "https://hooks.alice.example:8443/x"}, format="json").status_code == 400


def _registered_on_port_8080(alice: Any, settings: Any) -> Any:
    """An endpoint registered while 8080 was allowed, before the operator restricted the ports."""
    settings.WEBHOOKS_ALLOWED_PORTS = [80, 443, 8080]
    endpoint = register(alice, url="https://hooks.alice.example:8080/splendor")
    settings.WEBHOOKS_ALLOWED_PORTS = [80, 443]
    return endpoint


def test_a_delivery_to_a_port_no_longer_allowed_disables_its_endpoint_at_once_and_tells_the_owner(
    alice: Any, bob: Any, dns: FakeDNS, committed: Committed, settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from django.core import mail

    endpoint = _registered_on_port_8080(alice, settings)
    connections: list[Any] = []
    monkeypatch.setattr(urllib3.util.connection, "create_connection", lambda *a, **k: connections.append(a))

    new_game(alice, bob, committed)

    assert connections == []
    endpoint.refresh_from_db()
    assert not endpoint.is_active and "port 8080" in endpoint.disabled_reason
    assert DeliveryAttempt.objects.filter(delivery__endpoint=endpoint).count() == 1  # not seven retries
    assert set(Delivery.objects.filter(endpoint=endpoint).values_list("status", flat=True)) == {"failed"}
    [notice] = mail.outbox
    assert notice.to == ["alice@example.com"] and "port 8080" in notice.body and endpoint.url in notice.body


def test_the_release_command_disables_the_endpoints_on_ports_no_longer_allowed_and_tells_their_owners(
    alice: Any, bob: Any, charlie: Any, dns: FakeDNS, settings: Any, committed: Committed
) -> None:
    from django.core import mail
    from django.core.management import call_command

    refused = _registered_on_port_8080(alice, settings)
    kept = register(bob, url="https://hooks.bob.example:443/splendor")
    settings.WEBHOOKS_ALLOW_LOOPBACK = True
    local = register(charlie, url="http://127.0.0.1:9000/splendor")  # a developer's receiver keeps its port

    with committed():
        call_command("webhooks_disable_refused_ports", stdout=io.StringIO())
    with committed():
        call_command("webhooks_disable_refused_ports", stdout=io.StringIO())  # a second run changes nothing

    refused.refresh_from_db(), kept.refresh_from_db(), local.refresh_from_db()
    assert (refused.is_active, kept.is_active, local.is_active) == (False, True, True)
    assert "port 8080 is not one webhooks are sent to (only 80 and 443)" in refused.disabled_reason
    [notice] = mail.outbox
    assert notice.to == ["alice@example.com"] and refused.url in notice.body and "port 8080" in notice.body
