"""The review on the replay page in a real browser (tests/browser/README.md,
"Reviews"): a player asks for it with the button (no JavaScript needed), and the
page comes back with the graph, the table behind it and the mistake marked with
the bot's move and Try this position; a point of the graph opens its position;
no axe-core violation at all, nothing wider than a 390 px phone.

The game is the greedy bot's with one bad move (tests.reviews.review_helpers,
game_with_a_noble_handed): alice hands bob a noble and the win at move 56."""

from __future__ import annotations

from typing import Any

import pytest

from django.conf import settings as django_settings
from django.test import Client

from reviews.models import GameReview
from tests.browser.conftest import SCREENSHOTS
from tests.games.game_helpers import make_player
from tests.reviews.review_helpers import NOBLE_HANDED_DEAL, game_with_a_noble_handed

pytestmark = pytest.mark.django_db

DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}


def _violations(page: Any) -> list[str]:
    """Every axe-core violation, whatever its impact."""
    from axe_playwright_python.sync_playwright import Axe

    results = Axe().run(page)
    return [
        f"{v['id']} ({v['impact']}): {v['help']} at {[n['target'] for n in v['nodes']][:3]}"
        for v in results.response["violations"]
    ]


def _signed_in(page: Any, base: str, user: Any) -> Any:
    """The page's browser signed in as ``user`` (a session made by the test client)."""
    client = Client()
    client.force_login(user)
    page.context.add_cookies(
        [{"name": django_settings.SESSION_COOKIE_NAME, "value": client.cookies[django_settings.SESSION_COOKIE_NAME].value, "url": base}]
    )
    return page


def test_a_player_asks_for_the_review_and_reads_it_at_a_desktops_and_a_phones_width(
    live_server: Any, new_page: Any, screenshot: Any, settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Half the default budget: a truer picture than the other tests' few playouts, in seconds.
    settings.REVIEW_PLAYOUTS = 200
    monkeypatch.setattr("games.services.lifecycle.secrets.randbits", lambda bits: NOBLE_HANDED_DEAL)
    alice, bob = make_player("alice"), make_player("bob")
    game, (ply, _) = game_with_a_noble_handed(alice, bob, public=True)
    replay = f"{live_server.url}/games/{game.pk}/replay/"

    page = _signed_in(new_page(viewport=DESKTOP), live_server.url, alice)
    page.goto(replay)
    assert page.locator("#review-start").inner_text() == "Review this game"
    with page.expect_navigation():
        page.click("#review-start")  # searched inline here (eager tasks), so it comes back done
    assert page.url.endswith("#review")
    assert GameReview.objects.get(game=game).status == GameReview.Status.DONE
    review = page.locator("#review")
    assert review.locator("svg.review-graph polyline").count() == 2
    mistake = page.locator(f"#review-move-{ply + 1}")
    assert "Mistake" in mistake.inner_text() and "The bot would have played:" in mistake.inner_text()
    assert mistake.get_by_role("button", name="Try this position").count() == 1
    page.click("#review-table summary")
    assert page.locator("#review-table tbody tr").count() == game.moves.count() + 1
    assert _violations(page) == []
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    review.screenshot(path=str(SCREENSHOTS / "review-panel-desktop.png"))
    screenshot(page, "review-replay-desktop")

    # A point of the graph opens its position of the replay.
    with page.expect_navigation():
        page.locator(f'svg.review-graph a[href$="?ply={ply}#board"] rect').click()
    assert page.url.endswith(f"/replay/?ply={ply}#board")
    assert f"after move {ply} of" in page.locator("h1").inner_text()

    phone = new_page(viewport=PHONE, is_mobile=True, has_touch=True)
    phone.goto(replay + "#review")
    assert phone.evaluate("() => document.documentElement.scrollWidth - window.innerWidth") <= 0
    phone_review = phone.locator("#review")
    phone_review.scroll_into_view_if_needed()
    assert phone_review.bounding_box()["width"] <= PHONE["width"]  # type: ignore[index]
    assert phone.locator("svg.review-graph").bounding_box()["width"] <= PHONE["width"]  # type: ignore[index]
    assert _violations(phone) == []
    phone_review.screenshot(path=str(SCREENSHOTS / "review-panel-phone.png"))
    screenshot(phone, "review-replay-phone")
