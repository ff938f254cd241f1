"""The calendar's secret address: `calendar_url` in GET /api/v1/me/ (and the
OpenAPI schema), replaced by POST /api/v1/me/calendar/rotate/ (a `play` token),
after which the old address answers 404 and the new one 200."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

import pytest
from django.test import Client
from rest_framework.test import APIClient

from accounts.models import CalendarFeed
from tests.games.game_helpers import client_for

pytestmark = pytest.mark.django_db


def _path(url: str) -> str:
    return urlsplit(url).path


def test_me_shows_the_absolute_calendar_address_on_the_site_url(alice: Any, settings: Any) -> None:
    settings.SITE_URL = "https://splendor.example"
    url = client_for(alice, ("read",)).get("/api/v1/me/").json()["calendar_url"]
    secret = CalendarFeed.objects.get(user=alice).secret
    assert url == f"https://splendor.example/calendar/{secret}.ics"
    assert len(secret) >= 43 and secret.replace("-", "").replace("_", "").isalnum()


def test_the_address_stays_the_same_until_rotated(alice: Any) -> None:
    client = client_for(alice, ("read",))
    assert client.get("/api/v1/me/").json()["calendar_url"] == client.get("/api/v1/me/").json()["calendar_url"]
    assert CalendarFeed.objects.filter(user=alice).count() == 1


def test_two_accounts_have_different_addresses(alice: Any, bob: Any) -> None:
    mine = client_for(alice, ("read",)).get("/api/v1/me/").json()["calendar_url"]
    theirs = client_for(bob, ("read",)).get("/api/v1/me/").json()["calendar_url"]
    assert mine != theirs


def test_rotation_gives_a_new_address_and_the_old_one_answers_404(alice: Any) -> None:
    client = client_for(alice, ("play",))
    old = client.get("/api/v1/me/").json()["calendar_url"]
    assert Client().get(_path(old)).status_code == 200
    answer = client.post("/api/v1/me/calendar/rotate/")
    assert answer.status_code == 200
    new = answer.json()["calendar_url"]
    assert new != old and client.get("/api/v1/me/").json()["calendar_url"] == new
    assert Client().get(_path(old)).status_code == 404
    assert Client().get(_path(new)).status_code == 200


def test_rotation_needs_a_play_token(alice: Any) -> None:
    before = client_for(alice, ("read",)).get("/api/v1/me/").json()["calendar_url"]
    answer = client_for(alice, ("read",)).post("/api/v1/me/calendar/rotate/")
    assert answer.status_code == 403 and answer.json()["code"] == "insufficient_scope"
    assert Client().get(_path(before)).status_code == 200


def test_rotation_without_a_token_is_401(alice: Any) -> None:
    assert APIClient().post("/api/v1/me/calendar/rotate/").status_code == 401


def test_rotating_one_account_leaves_anothers_address_alone(alice: Any, bob: Any) -> None:
    bobs = client_for(bob, ("read",)).get("/api/v1/me/").json()["calendar_url"]
    client_for(alice, ("play",)).post("/api/v1/me/calendar/rotate/")
    assert Client().get(_path(bobs)).status_code == 200


def test_the_schema_describes_calendar_url_and_the_rotation(client: Any) -> None:
    schema = client.get("/api/schema/", HTTP_ACCEPT="application/json").json()
    assert "calendar_url" in schema["components"]["schemas"]["Me"]["properties"]
    assert "calendar_url" in schema["components"]["schemas"]["Me"]["required"]
    rotate = schema["paths"]["/api/v1/me/calendar/rotate/"]["post"]
    assert rotate["operationId"] == "me_calendar_rotate" and "200" in rotate["responses"]


def test_two_first_requests_at_once_make_one_address(alice: Any) -> None:
    from django.contrib.auth import get_user_model

    from accounts.services import calendar_feed_get

    # Read before the other request made the row: this one believes there is none.
    late = get_user_model().objects.select_related("calendar_feed").get(pk=alice.pk)
    first = calendar_feed_get(user=get_user_model().objects.get(pk=alice.pk))
    second = calendar_feed_get(user=late)
    assert second.pk == first.pk and second.secret == first.secret
    assert CalendarFeed.objects.filter(user=alice).count() == 1
