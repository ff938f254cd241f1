"""Registering, listing, changing and deleting webhooks through the API."""

from __future__ import annotations

from typing import Any

import pytest

from tests.games.game_helpers import client_for
from tests.webhooks.webhook_helpers import FakeDNS, register
from webhooks.models import Endpoint

pytestmark = pytest.mark.django_db

URL = "https://hooks.alice.example/splendor"


def test_registering_a_webhook_shows_its_secret_once(alice: Any, dns: FakeDNS) -> None:
    client = client_for(alice)
    created = client.post("/api/v1/webhooks/", {"url": URL, "events": ["move_played"]}, format="json")

    assert created.status_code == 201, created.json()
    body = created.json()
    assert body["secret"].startswith("whsec_") and len(body["secret"]) > 40
    assert body["url"] == URL and body["events"] == ["move_played"] and body["is_active"] is True
    listed = client.get("/api/v1/webhooks/").json()
    shown = client.get(f"/api/v1/webhooks/{body['id']}/").json()
    assert [item["id"] for item in listed] == [body["id"]]
    assert "secret" not in listed[0] and "secret" not in shown
    assert body["secret"] not in str(listed) + str(shown)


def test_rotating_the_secret_shows_a_new_one_once_and_the_old_one_is_gone(alice: Any, dns: FakeDNS) -> None:
    endpoint = register(alice)
    old = endpoint.secret
    response = client_for(alice).post(f"/api/v1/webhooks/{endpoint.pk}/rotate-secret/")

    assert response.status_code == 200
    new = response.json()["secret"]
    assert new.startswith("whsec_") and new != old
    endpoint.refresh_from_db()
    assert endpoint.secret == new


def test_an_unknown_event_name_is_refused_with_the_names_there_are(alice: Any, dns: FakeDNS) -> None:
    response = client_for(alice).post("/api/v1/webhooks/", {"url": URL, "events": ["move_made"]}, format="json")

    assert response.status_code == 400
    body = response.json()
    assert body["code"] == "validation_error"
    assert "`move_made`" in body["errors"]["events"][0] and "`move_played`" in body["errors"]["events"][0]
    assert not Endpoint.objects.exists()


def test_the_clock_events_can_be_asked_for(alice: Any, dns: FakeDNS) -> None:
    events = ["turn_timed_out", "clock_paused", "clock_resumed"]
    response = client_for(alice).post("/api/v1/webhooks/", {"url": URL, "events": events}, format="json")

    assert response.status_code == 201, response.json()
    assert response.json()["events"] == sorted(events)


@pytest.mark.parametrize(
    "url",
    ["ftp://hooks.alice.example/x", "javascript:alert(1)", "hooks.alice.example/x", "https://", "https://a b.example/"],
)
def test_a_url_that_is_not_http_or_https_on_a_host_is_refused(alice: Any, dns: FakeDNS, url: str) -> None:
    response = client_for(alice).post("/api/v1/webhooks/", {"url": url}, format="json")

    assert response.status_code == 400
    assert response.json()["code"] == "webhook_url_refused"
    assert response.json()["errors"]["url"]


def test_a_player_may_have_only_so_many_webhooks(alice: Any, dns: FakeDNS, settings: Any) -> None:
    settings.WEBHOOKS_MAX_PER_USER = 2
    client = client_for(alice)
    codes = [client.post("/api/v1/webhooks/", {"url": URL}, format="json").status_code for _ in range(3)]

    assert codes == [201, 201, 409]
    refused = client.post("/api/v1/webhooks/", {"url": URL}, format="json").json()
    assert refused["code"] == "too_many_webhooks" and refused["max_webhooks"] == 2


def test_a_stray_field_or_a_url_that_is_not_text_is_refused(alice: Any, dns: FakeDNS) -> None:
    client = client_for(alice)
    stray = client.post("/api/v1/webhooks/", {"url": URL, "secret": "whsec_mine"}, format="json")
    number = client.post("/api/v1/webhooks/", {"url": 5}, format="json")

    assert stray.status_code == 400 and "secret" in stray.json()["errors"]
    assert number.status_code == 400 and "url" in number.json()["errors"]


def test_another_players_webhook_is_as_good_as_missing(alice: Any, bob: Any, dns: FakeDNS) -> None:
    endpoint = register(alice)
    client = client_for(bob)
    base = f"/api/v1/webhooks/{endpoint.pk}/"

    answers = [
        client.get(base),
        client.patch(base, {"events": []}, format="json"),
        client.post(base + "rotate-secret/"),
        client.get(base + "deliveries/"),
        client.delete(base),
    ]
    assert [answer.status_code for answer in answers] == [404] * 5
    assert {answer.json()["code"] for answer in answers} == {"webhook_not_found"}
    assert client.get("/api/v1/webhooks/").json() == []
    assert Endpoint.objects.filter(pk=endpoint.pk).exists()


def test_a_read_token_may_look_but_not_register(alice: Any, dns: FakeDNS) -> None:
    reader = client_for(alice, scopes=("read",))

    assert reader.get("/api/v1/webhooks/").status_code == 200
    refused = reader.post("/api/v1/webhooks/", {"url": URL}, format="json")
    assert refused.status_code == 403 and refused.json()["code"] == "insufficient_scope"


def test_without_a_token_nothing_is_shown(db: None) -> None:
    from rest_framework.test import APIClient

    assert APIClient().get("/api/v1/webhooks/").status_code == 401


def test_patch_changes_the_url_and_the_events(alice: Any, dns: FakeDNS) -> None:
    endpoint = register(alice)
    dns.table["new.alice.example"] = dns.table["hooks.alice.example"]
    response = client_for(alice).patch(
        f"/api/v1/webhooks/{endpoint.pk}/",
        {"url": "https://new.alice.example/hook", "events": ["game_finished", "game_started"]},
        format="json",
    )

    assert response.status_code == 200, response.json()
    assert response.json()["url"] == "https://new.alice.example/hook"
    assert response.json()["events"] == ["game_finished", "game_started"]


def test_patch_to_a_private_address_changes_nothing(alice: Any, dns: FakeDNS) -> None:
    endpoint = register(alice)
    response = client_for(alice).patch(
        f"/api/v1/webhooks/{endpoint.pk}/", {"url": "http://10.0.0.1/", "events": ["game_finished"]}, format="json"
    )

    assert response.status_code == 400 and response.json()["code"] == "webhook_url_refused"
    endpoint.refresh_from_db()
    assert endpoint.url == "https://hooks.alice.example/splendor" and endpoint.events == []


def test_patch_re_enables_a_disabled_webhook(alice: Any, dns: FakeDNS) -> None:
    endpoint = register(alice)
    Endpoint.objects.filter(pk=endpoint.pk).update(
        is_active=False, disabled_reason="A delivery failed 8 times in a row", consecutive_failures=8
    )
    client = client_for(alice)
    assert client.get(f"/api/v1/webhooks/{endpoint.pk}/").json()["disabled_reason"].startswith("A delivery failed")

    response = client.patch(f"/api/v1/webhooks/{endpoint.pk}/", {"is_active": True}, format="json")

    assert response.status_code == 200
    body = response.json()
    assert body["is_active"] is True and body["disabled_reason"] == "" and body["consecutive_failures"] == 0
    assert client.patch(f"/api/v1/webhooks/{endpoint.pk}/", {"is_active": "yes"}, format="json").status_code == 400


def test_deleting_a_webhook_removes_it(alice: Any, dns: FakeDNS) -> None:
    endpoint = register(alice)
    client = client_for(alice)

    assert client.delete(f"/api/v1/webhooks/{endpoint.pk}/").status_code == 204
    assert client.get(f"/api/v1/webhooks/{endpoint.pk}/").status_code == 404
    assert not Endpoint.objects.exists()
