"""The site around the game in a real browser, at desktop (1280 px) and phone
(390 px) widths: `/` for a visitor and for a player, sign-up, log-in, My games
(with its Next game button), the new-game form (with a refusal beside its
field) and the open games. Each page is saved as a screenshot (listed in
tests/browser/README.md, "Site") and checked with axe: no serious or critical
violation on `/`, sign-up, log-in and My games. A console error fails a test."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from games import services
from games.models import Game, Seat
from tests.games.game_helpers import make_player, play_to_end, start_two_player_game

PASSWORD = "a long and unusual passphrase"
WIDTHS = {"desktop": 1280, "phone": 390}


@pytest.fixture(params=list(WIDTHS))
def width(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def _open(new_page: Any, width: str) -> Any:
    pixels = WIDTHS[width]
    return new_page(viewport={"width": pixels, "height": 900 if pixels > 600 else 800}, is_mobile=pixels < 600)


def assert_accessible(page: Any) -> None:
    from axe_playwright_python.sync_playwright import Axe

    violations = Axe().run(page).response["violations"]
    serious = [f"{v['id']} ({v['impact']}): {[n['target'] for n in v['nodes']]}" for v in violations
               if v["impact"] in ("serious", "critical")]
    assert serious == [], "\n".join(serious)


def assert_fits(page: Any) -> None:
    """Nothing wider than the window: no sideways scrolling on a phone."""
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")


def _turn_of(game: Game, user: Any, hours: int) -> None:
    seat = Seat.objects.get(game=game, user=user)
    Game.objects.filter(pk=game.pk).update(to_move=seat.index, deadline_at=timezone.now() + timedelta(hours=hours))


def _alice_with_games() -> Any:
    alice = make_player("alice")
    alice.set_password(PASSWORD)
    alice.save()
    bob, carol, dora = make_player("bob"), make_player("carol"), make_player("dora")
    _turn_of(start_two_player_game(alice, bob), alice, 30)
    _turn_of(start_two_player_game(alice, carol), alice, 5)
    _turn_of(start_two_player_game(alice, dora), dora, 20)
    services.game_create(creator=carol, seats=3, invited=[alice])
    play_to_end(start_two_player_game(alice, bob, variant="marvel"))
    services.game_create(creator=dora, seats=4, public=True, variant="marvel")
    return alice


def _log_in(page: Any, base: str) -> None:
    page.goto(base + "/accounts/login/")
    page.get_by_label("Username").fill("alice")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url("**/accounts/games/")


def test_a_visitor_reads_what_this_is_and_finds_sign_up_and_log_in(
    live_server: Any, new_page: Any, screenshot: Any, width: str
) -> None:
    page = _open(new_page, width)
    page.goto(live_server.url + "/")
    assert page.get_by_role("heading", name="Slow games of Splendor, by email and on the web").is_visible()
    assert page.get_by_role("link", name="API documentation").is_visible()
    assert_fits(page)
    assert_accessible(page)
    screenshot(page, f"site-home-visitor-{width}")

    page.locator(".actions").get_by_role("link", name="Sign up").click()
    page.wait_for_url("**/accounts/signup/")
    assert_fits(page)
    assert_accessible(page)
    screenshot(page, f"site-signup-{width}")

    page.goto(live_server.url + "/")
    page.locator(".actions").get_by_role("link", name="Log in").click()
    page.wait_for_url("**/accounts/login/")
    assert_fits(page)
    assert_accessible(page)
    screenshot(page, f"site-login-{width}")


def test_a_player_finds_the_most_urgent_game_and_starts_a_new_one(
    live_server: Any, new_page: Any, screenshot: Any, width: str
) -> None:
    _alice_with_games()
    page = _open(new_page, width)
    _log_in(page, live_server.url)

    page.goto(live_server.url + "/")
    assert page.get_by_role("heading", name="Hello, Alice").is_visible()
    assert_fits(page)
    assert_accessible(page)
    screenshot(page, f"site-home-player-{width}")

    page.locator(".actions").get_by_role("link", name="My games").click()
    page.wait_for_url("**/accounts/games/")
    assert page.get_by_role("heading", name="Waiting for you").is_visible()
    assert page.get_by_role("button", name="Accept").is_visible()
    assert_fits(page)
    assert_accessible(page)
    screenshot(page, f"site-my-games-{width}")
    urgent = Game.objects.filter(seats__user__username="carol", status=Game.Status.ACTIVE).get()
    assert page.get_by_role("link", name="Next game").get_attribute("href").startswith(f"/games/{urgent.pk}/?seat=")

    page.locator(".actions").get_by_role("link", name="New game").click()
    page.wait_for_url("**/accounts/games/new/")
    page.get_by_label("Splendor: Marvel").check()
    page.get_by_label("Players").fill("3")
    page.get_by_label("Invite").fill("bob, nobody")
    page.get_by_role("button", name="Start the game").click()
    expect(page.get_by_text("There is no player with the username nobody.")).to_be_visible()
    assert_fits(page)
    assert_accessible(page)
    screenshot(page, f"site-new-game-refused-{width}")

    page.get_by_label("Invite").fill("bob, someone@elsewhere.example")
    page.get_by_role("button", name="Start the game").click()
    page.wait_for_url("**/accounts/games/")
    assert page.get_by_text("Your invitations are on the way.").is_visible()

    page.goto(live_server.url + "/accounts/games/open/")
    assert page.get_by_role("button", name="Join").count() == 1
    assert_fits(page)
    assert_accessible(page)
    screenshot(page, f"site-open-games-{width}")
