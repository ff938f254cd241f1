"""The settings page: time zone, game email preferences and vacation, each
saved through its own service, with refusals shown in the form."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from django.utils import timezone

from accounts.models import Player
from games.models import Vacation
from notifications.models import Preferences
from tests.accounts.pages_helpers import logged_in_client, page_text
from tests.games.game_helpers import start_two_player_game


@pytest.fixture
def alices_browser(alice: Any) -> Client:
    return logged_in_client(alice)


def test_settings_need_a_login(db: None) -> None:
    for path in ("/accounts/settings/", "/accounts/vacation/"):
        answer = Client().get(path)
        assert answer.status_code == 302 and answer["Location"] == f"/accounts/login/?next={path}"


def test_the_settings_page_shows_every_setting_with_labels(alices_browser: Client) -> None:
    answer = alices_browser.get("/accounts/settings/")
    assert answer.status_code == 200
    assert answer["Referrer-Policy"] == "same-origin"
    content = answer.content.decode()
    for field in ("time_zone", "digest_hour", "reminder_hours", "days"):
        assert f'<label for="id_{field}">' in content
    assert 'value="Europe/Riga"' in content
    text = page_text(answer)
    assert "alice@example.com" in text and "0 of" in text


def test_the_time_zone_is_saved(alice: Any, alices_browser: Client) -> None:
    answer = alices_browser.post("/accounts/settings/", {"form": "time_zone", "time_zone": "Europe/Riga"})
    assert answer.status_code == 303
    assert Player.objects.get(user=alice).time_zone == "Europe/Riga"
    assert "Time zone saved: Europe/Riga." in page_text(alices_browser.get("/accounts/settings/"))


def test_an_unknown_time_zone_is_refused_in_the_form(alice: Any, alices_browser: Client) -> None:
    answer = alices_browser.post("/accounts/settings/", {"form": "time_zone", "time_zone": "Mars/Olympus"})
    assert answer.status_code == 200
    assert "Select a valid choice." in page_text(answer)
    assert Player.objects.get(user=alice).time_zone == "UTC"


def test_email_preferences_are_saved(alice: Any, alices_browser: Client) -> None:
    answer = alices_browser.post(
        "/accounts/settings/",
        {"form": "notifications", "mode": "digest", "digest_hour": "7", "reminder_hours": "2, 24"},
    )
    assert answer.status_code == 303
    saved = Preferences.objects.get(user=alice)
    assert (saved.mode, saved.digest_hour, saved.reminder_hours) == ("digest", 7, [24, 2])
    assert saved.next_digest_at is not None
    content = alices_browser.get("/accounts/settings/").content.decode()
    assert 'value="24, 2"' in content


def test_no_reminders_is_an_empty_field(alice: Any, alices_browser: Client) -> None:
    alices_browser.post("/accounts/settings/", {"form": "notifications", "mode": "off", "digest_hour": "8", "reminder_hours": ""})
    assert Preferences.objects.get(user=alice).reminder_hours == []


@pytest.mark.parametrize(
    "hours, says",
    [
        ("24, soon", "'soon' is not a whole number of hours."),
        ("500", "500 is not a number of hours from 1 to 168."),
        ("2, 2", "Each number of hours may appear once"),
        ("1, 2, 3, 4, 5, 6", "At most 5 reminders per turn"),
    ],
)
def test_bad_reminder_hours_are_explained_and_nothing_is_saved(
    alice: Any, alices_browser: Client, hours: str, says: str
) -> None:
    answer = alices_browser.post(
        "/accounts/settings/", {"form": "notifications", "mode": "digest", "digest_hour": "7", "reminder_hours": hours}
    )
    assert answer.status_code == 200
    assert says in page_text(answer)
    assert not Preferences.objects.filter(user=alice).exists()


def test_a_post_naming_no_form_saves_nothing_and_says_so(alices_browser: Client) -> None:
    answer = alices_browser.post("/accounts/settings/", {"form": "other"})
    assert answer.status_code == 200
    assert "Nothing was saved" in page_text(answer)


def test_vacation_is_taken_and_stops_the_clocks(alice: Any, bob: Any, alices_browser: Client, time_machine: Any) -> None:
    time_machine.move_to("2026-03-01 12:00:00+00:00", tick=False)
    game = start_two_player_game(alice, bob)

    answer = alices_browser.post("/accounts/vacation/", {"days": "3"})

    assert answer.status_code == 303 and answer["Location"] == "/accounts/vacation/"
    vacation = Vacation.objects.get(user=alice)
    assert vacation.days == 3
    game.refresh_from_db()
    assert game.clock_remaining is not None  # paused
    text = page_text(alices_browser.get("/accounts/vacation/"))
    assert "Vacation taken: your clocks stop in all your games until Wed 04 Mar 2026, 12:00 (UTC)." in text
    assert "you have used 3 of" in text
    assert "On vacation now, until Wed 04 Mar 2026, 12:00 (UTC)" in page_text(alices_browser.get("/accounts/settings/"))


def test_more_vacation_than_is_left_is_refused_in_the_form(alice: Any, alices_browser: Client, settings: Any) -> None:
    settings.VACATION_DAYS_PER_YEAR = 2
    answer = alices_browser.post("/accounts/vacation/", {"days": "5"})
    assert answer.status_code == 200
    assert "left" in page_text(answer)
    assert not Vacation.objects.filter(user=alice).exists()
    zero = alices_browser.post("/accounts/vacation/", {"days": "0"})
    assert zero.status_code == 200
    assert "Ensure this value is greater than or equal to 1." in page_text(zero)


def test_the_bounce_warning_is_on_the_settings_page(alice: Any, alices_browser: Client) -> None:
    Player.objects.filter(user=alice).update(email_undeliverable_at=timezone.now(), email_undeliverable_reason="550 no such user")
    text = page_text(alices_browser.get("/accounts/settings/"))
    assert "Mail to your address alice@example.com bounced" in text and "550 no such user" in text
