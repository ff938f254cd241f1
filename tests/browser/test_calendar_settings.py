"""The deadlines calendar from the settings page, in a real browser: the player
copies the address from its field, a calendar app (here ``icalendar``) reads the
three games waiting for them from it, and "Replace the address" gives a new one
while the old one answers 404. The page has no serious or critical axe-core
violation. Screenshot: `calendar-settings.png`."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.utils import timezone
from icalendar import Calendar
from playwright.sync_api import expect

from games.models import Game, Seat
from tests.browser.test_site_pages import assert_accessible
from tests.games.game_helpers import make_player, start_two_player_game

PASSWORD = "a long and unusual passphrase"


def _turn_of(game: Game, user: Any, hours: int) -> None:
    seat = Seat.objects.get(game=game, user=user)
    Game.objects.filter(pk=game.pk).update(to_move=seat.index, deadline_at=timezone.now() + timedelta(hours=hours))


def test_the_player_copies_the_calendar_address_reads_three_deadlines_and_replaces_it(
    live_server: Any, new_page: Any, screenshot: Any, settings: Any
) -> None:
    settings.SITE_URL = live_server.url
    alice = make_player("alice")
    alice.set_password(PASSWORD)
    alice.save()
    for name, hours in (("bob", 30), ("carol", 5), ("dora", 50)):
        _turn_of(start_two_player_game(alice, make_player(name)), alice, hours)

    page = new_page()
    page.goto(live_server.url + "/accounts/login/")
    page.get_by_label("Username").fill("alice")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url("**/accounts/games/")
    page.goto(live_server.url + "/accounts/settings/#calendar")

    field = page.get_by_label("Your calendar's address")
    expect(field).to_be_visible()
    old = field.input_value()
    assert old.startswith(live_server.url + "/calendar/") and old.endswith(".ics")
    page.locator("#calendar").scroll_into_view_if_needed()
    assert_accessible(page)
    screenshot(page, "calendar-settings")

    answer = page.request.get(old)
    assert answer.status == 200 and answer.headers["content-type"] == "text/calendar; charset=utf-8"
    summaries = sorted(str(event["SUMMARY"]) for event in Calendar.from_ical(answer.body()).walk("VEVENT"))
    assert summaries == [f"Your move in Splendor against {name}" for name in ("Bob", "Carol", "Dora")]

    page.get_by_role("button", name="Replace the address").click()
    expect(page.get_by_text("Your calendar has a new address")).to_be_visible()
    new = page.get_by_label("Your calendar's address").input_value()
    assert new != old
    assert page.request.get(old).status == 404
    assert page.request.get(new).status == 200
