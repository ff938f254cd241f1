"""The push API: the server's key, and a player's own subscriptions (checked,
listed by host only, at most PUSH_SUBSCRIPTIONS_PER_ACCOUNT, deleted), by token
or from a signed-in page with its session and CSRF token."""

from __future__ import annotations

from io import StringIO
from typing import Any

import pytest
from django.core.management import call_command
from rest_framework.test import APIClient

from notifications.models import PushSubscription
from notifications.push.keys import b64url_decode
from tests.games.game_helpers import client_for
from tests.notifications.push.push_helpers import Browser, b64url

pytestmark = pytest.mark.django_db

URL = "/api/v1/me/push-subscriptions/"
ENDPOINT = "http://127.0.0.1:9/push/v1/secret-browser-address"


def test_the_key_is_public_and_is_the_settings_public_key(settings: Any) -> None:
    answer = APIClient().get("/api/v1/push/key/")
    assert answer.status_code == 200
    assert answer.json() == {"public_key": settings.VAPID_PUBLIC_KEY}
    assert len(b64url_decode(answer.json()["public_key"])) == 65


def test_without_keys_the_key_endpoint_says_push_is_off(settings: Any) -> None:
    settings.VAPID_PRIVATE_KEY = settings.VAPID_PUBLIC_KEY = ""
    answer = APIClient().get("/api/v1/push/key/")
    assert answer.status_code == 404
    assert answer["Content-Type"].startswith("application/problem+json")
    assert answer.json()["code"] == "push_not_configured"


def test_a_subscription_is_saved_and_listed_by_its_host_only(alice: Any, browser: Browser) -> None:
    client = client_for(alice)
    answer = client.post(URL, browser.subscription(ENDPOINT), format="json")
    assert answer.status_code == 201, answer.content
    assert set(answer.json()) == {"id", "endpoint_host", "created_at"}
    listed = client.get(URL).json()
    assert [s["endpoint_host"] for s in listed] == ["127.0.0.1"]
    assert "secret-browser-address" not in str(listed)


def test_posting_the_same_endpoint_again_updates_it(alice: Any, browser: Browser) -> None:
    client = client_for(alice)
    first = client.post(URL, browser.subscription(ENDPOINT), format="json").json()
    newer = Browser()
    again = client.post(URL, newer.subscription(ENDPOINT), format="json")
    assert again.status_code == 200
    assert again.json()["id"] == first["id"]
    assert PushSubscription.objects.get().p256dh == b64url(newer.public_raw)


@pytest.mark.parametrize(
    "change, field",
    [
        ({"keys": {"p256dh": b64url(b"\x04" + b"\x01" * 64), "auth": b64url(b"a" * 16)}}, "keys.p256dh"),
        ({"keys": {"p256dh": "not base64 !", "auth": b64url(b"a" * 16)}}, "keys.p256dh"),
        ({"auth": b64url(b"a" * 15)}, "keys.auth"),
        ({"endpoint": "https://10.0.0.5/push"}, "endpoint"),
        ({"endpoint": "ftp://push.example/x"}, "endpoint"),
    ],
)
def test_keys_that_are_no_p256_point_or_16_byte_secret_and_unsafe_endpoints_are_refused(
    alice: Any, browser: Browser, change: dict[str, Any], field: str, settings: Any
) -> None:
    body = browser.subscription(ENDPOINT)
    if "auth" in change:
        body["keys"]["auth"] = change["auth"]
    else:
        body.update({k: v for k, v in change.items()})
    answer = client_for(alice).post(URL, body, format="json")
    assert answer.status_code == 400, answer.content
    assert answer.json()["code"] == "validation_error"
    assert field in answer.json()["errors"]
    assert not PushSubscription.objects.exists()


def test_loopback_endpoints_follow_webhooks_allow_loopback(alice: Any, browser: Browser, settings: Any) -> None:
    settings.WEBHOOKS_ALLOW_LOOPBACK = False
    answer = client_for(alice).post(URL, browser.subscription("https://127.0.0.1/push"), format="json")
    assert answer.status_code == 400
    assert "endpoint" in answer.json()["errors"]


def test_an_account_has_at_most_so_many_subscriptions(alice: Any, settings: Any) -> None:
    settings.PUSH_SUBSCRIPTIONS_PER_ACCOUNT = 2
    client = client_for(alice)
    for n in range(2):
        assert client.post(URL, Browser().subscription(f"{ENDPOINT}/{n}"), format="json").status_code == 201
    answer = client.post(URL, Browser().subscription(f"{ENDPOINT}/3"), format="json")
    assert answer.status_code == 409
    assert answer.json()["code"] == "too_many_push_subscriptions"
    assert answer.json()["max_push_subscriptions"] == 2
    assert answer.json()["type"].endswith("/problems/too_many_push_subscriptions/")


def test_delete_removes_ones_own_and_another_players_is_as_good_as_missing(
    alice: Any, bob: Any, browser: Browser
) -> None:
    created = client_for(alice).post(URL, browser.subscription(ENDPOINT), format="json").json()
    assert client_for(bob).get(URL).json() == []
    refused = client_for(bob).delete(f"{URL}{created['id']}/")
    assert refused.status_code == 404
    assert refused.json()["code"] == "push_subscription_not_found"
    assert client_for(alice).delete(f"{URL}{created['id']}/").status_code == 204
    assert not PushSubscription.objects.exists()


def test_a_read_token_may_look_but_not_subscribe_and_nobody_anonymous(alice: Any, browser: Browser) -> None:
    reader = client_for(alice, scopes=("read",))
    assert reader.get(URL).status_code == 200
    refused = reader.post(URL, browser.subscription(ENDPOINT), format="json")
    assert refused.status_code == 403
    assert refused.json()["code"] == "insufficient_scope"
    anonymous = APIClient().get(URL)
    assert anonymous.status_code == 401
    assert anonymous["WWW-Authenticate"].startswith("Bearer")


def test_a_signed_in_page_subscribes_with_its_session_and_csrf_token(alice: Any, browser: Browser) -> None:
    client = APIClient(enforce_csrf_checks=True)
    client.force_login(alice)
    without = client.post(URL, browser.subscription(ENDPOINT), format="json")
    assert without.status_code == 403
    client.get("/accounts/settings/")  # the page sets the CSRF cookie
    token = client.cookies["csrftoken"].value
    answer = client.post(URL, browser.subscription(ENDPOINT), format="json", HTTP_X_CSRFTOKEN=token)
    assert answer.status_code == 201, answer.content
    assert client.get(URL).json()[0]["id"] == answer.json()["id"]
    assert client.delete(f"{URL}{answer.json()['id']}/", HTTP_X_CSRFTOKEN=token).status_code == 204


def test_vapid_keys_prints_a_pair_the_settings_take() -> None:
    out = StringIO()
    call_command("vapid_keys", stdout=out)
    lines = dict(line.split("=", 1) for line in out.getvalue().split())
    assert len(b64url_decode(lines["VAPID_PRIVATE_KEY"])) == 32
    assert len(b64url_decode(lines["VAPID_PUBLIC_KEY"])) == 65
