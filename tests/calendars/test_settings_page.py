"""The settings page shows the calendar's address in a field to copy and a
button that replaces it (a form with the CSRF token, for a signed-in player)."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from accounts.models import CalendarFeed
from tests.accounts.pages_helpers import logged_in_client

pytestmark = pytest.mark.django_db


def test_the_settings_page_shows_the_calendar_address_to_copy(alice: Any, settings: Any) -> None:
    settings.SITE_URL = "https://splendor.example"
    content = logged_in_client(alice).get("/accounts/settings/").content.decode()
    secret = CalendarFeed.objects.get(user=alice).secret
    url = f"https://splendor.example/calendar/{secret}.ics"
    assert f'<input type="text" id="calendar-url" value="{url}" readonly' in content
    assert '<label for="calendar-url">' in content
    assert f'href="webcal://splendor.example/calendar/{secret}.ics"' in content


def test_the_replace_button_gives_a_new_address_and_the_old_one_answers_404(alice: Any) -> None:
    browser = logged_in_client(alice)
    browser.get("/accounts/settings/")
    old = CalendarFeed.objects.get(user=alice).secret
    answer = browser.post("/accounts/calendar/rotate/")
    assert answer.status_code == 303 and answer["Location"] == "/accounts/settings/#calendar"
    new = CalendarFeed.objects.get(user=alice).secret
    assert new != old
    page = browser.get("/accounts/settings/").content.decode()
    assert new in page and old not in page and "new address" in page
    assert Client().get(f"/calendar/{old}.ics").status_code == 404
    assert Client().get(f"/calendar/{new}.ics").status_code == 200


def test_the_replace_button_needs_the_csrf_token(alice: Any) -> None:
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(alice, backend="accounts.backends.LockoutModelBackend")
    browser.get("/accounts/settings/")
    old = CalendarFeed.objects.get(user=alice).secret
    assert browser.post("/accounts/calendar/rotate/").status_code == 403
    assert CalendarFeed.objects.get(user=alice).secret == old


def test_replacing_needs_a_signed_in_player_and_a_post(alice: Any) -> None:
    answer = Client().post("/accounts/calendar/rotate/")
    assert answer.status_code == 302 and answer["Location"].startswith("/accounts/login/")
    assert logged_in_client(alice).get("/accounts/calendar/rotate/").status_code == 405
    assert not CalendarFeed.objects.filter(user=alice).exists()
