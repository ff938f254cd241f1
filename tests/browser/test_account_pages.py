"""The account pages in a real browser: a visitor signs up with the code from
the email, lands on "my games", logs out and logs in again; at phone width too."""

from __future__ import annotations

import re
from typing import Any

from django.core import mail
from playwright.sync_api import expect

from games import services
from games.models import Game
from tests.games.game_helpers import make_player

PASSWORD = "a long and unusual passphrase"


def code_from_the_email(address: str) -> str:
    sent = [message for message in mail.outbox if message.to == [address]]
    assert sent, f"no email to {address}"
    match = re.search(r"^\s+([2-9A-Z]{10})$", sent[-1].body, re.MULTILINE)
    assert match, sent[-1].body
    return match.group(1)


def test_a_visitor_signs_up_with_the_emailed_code_logs_out_and_logs_in_again(
    live_server: Any, new_page: Any, screenshot: Any
) -> None:
    page = new_page()
    page.goto(live_server.url + "/accounts/signup/")
    page.get_by_label("Username").fill("carol")
    page.get_by_label("Email").fill("carol@example.com")
    page.get_by_label("Display name").fill("Carol")
    page.get_by_label("Password").fill(PASSWORD)
    screenshot(page, "account-signup")
    page.get_by_role("button", name="Sign up").click()

    page.wait_for_url("**/accounts/signup/verify/")
    page.get_by_label("Code").fill(code_from_the_email("carol@example.com"))
    page.get_by_role("button", name="Verify").click()

    page.wait_for_url("**/accounts/games/")
    assert page.get_by_role("heading", name="My games").is_visible()
    assert page.get_by_text("you are logged in").is_visible()
    screenshot(page, "account-my-games-empty")

    page.get_by_role("button", name="Log out (carol)").click()
    page.wait_for_url("**/accounts/login/")
    assert page.get_by_role("heading", name="Log in").is_visible()

    page.get_by_label("Username").fill("carol")
    page.get_by_label("Password").fill("not the password")
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_text("The username or password is wrong")).to_be_visible()

    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url("**/accounts/games/")
    assert page.get_by_role("heading", name="My games").is_visible()


def test_an_invited_player_signs_up_and_lands_on_the_game_listed_in_my_games_at_phone_width(
    live_server: Any, new_page: Any, screenshot: Any
) -> None:
    alice = make_player("alice")
    game = services.game_create(creator=alice, variant="base", seats=2)
    page = new_page(viewport={"width": 375, "height": 740}, is_mobile=True)
    next_url = f"/accounts/games/?from={game.pk}"
    page.goto(f"{live_server.url}/accounts/signup/?next={next_url}")
    page.get_by_label("Username").fill("dora")
    page.get_by_label("Email").fill("dora@example.com")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign up").click()
    page.wait_for_url("**/accounts/signup/verify/")
    page.get_by_label("Code").fill(code_from_the_email("dora@example.com"))
    page.get_by_role("button", name="Verify").click()
    page.wait_for_url(f"**{next_url}")

    from django.contrib.auth import get_user_model

    dora = get_user_model().objects.get(username="dora")
    services.seat_join(game=Game.objects.get(pk=game.pk), user=dora)
    page.reload()
    row = page.locator(f'tr[data-game="{game.pk}"]')
    assert row.is_visible()
    assert "turn" in row.inner_text()
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 375, f"the page is {width}px wide at phone width"
    screenshot(page, "account-my-games-phone")

    page.get_by_role("link", name="Settings").click()
    page.wait_for_url("**/accounts/settings/")
    page.get_by_label("Time zone").select_option("Europe/Riga")
    page.get_by_role("button", name="Save the time zone").click()
    expect(page.get_by_text("Time zone saved: Europe/Riga.")).to_be_visible()
    screenshot(page, "account-settings-phone")


def test_an_italian_browser_signs_up_in_its_own_time_zone_and_finds_it_in_settings(
    live_server: Any, new_page: Any, screenshot: Any
) -> None:
    page = new_page(locale="it-IT", timezone_id="Europe/Rome")
    page.goto(live_server.url + "/accounts/signup/")
    assert page.locator("#id_time_zone").input_value() == "Europe/Rome"  # the page's script filled it
    page.locator("#id_username").fill("elena")
    page.locator("#id_email").fill("elena@example.com")
    page.locator("#id_password").fill(PASSWORD)
    page.locator("form[action$='/signup/'] button[type=submit]").click()

    page.wait_for_url("**/accounts/signup/verify/")
    page.locator("#id_code").fill(code_from_the_email("elena@example.com"))
    page.locator("form[action$='/signup/verify/'] button[type=submit]").click()
    page.wait_for_url("**/accounts/games/")

    page.goto(live_server.url + "/accounts/settings/")
    expect(page.get_by_role("heading", name="Fuso orario")).to_be_visible()
    assert page.locator("#id_time_zone").input_value() == "Europe/Rome"
    page.locator("#time-zone").scroll_into_view_if_needed()
    screenshot(page, "account-settings-time-zone-from-sign-up")
