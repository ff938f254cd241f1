"""The game page's notes panel in a real browser: the seat's holder writes a note
on the game and one on a move, saves them (the form posts back to the page, no
script needed) and finds them there, and the replay shows the note under its
move; the other player's page has its own empty panel and nothing of these. No
axe-core violation at all, nothing wider than a 390 px phone, and
screenshots of the panel at a desktop's and a phone's width (tests/browser/README.md)."""

from __future__ import annotations

from typing import Any

import pytest

from games import links, services
from games.models import Game, Seat
from tests.browser.conftest import SCREENSHOTS
from tests.games.game_helpers import make_player, play_moves

pytestmark = pytest.mark.django_db

DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}

NOTE = "Go for the blue nobles.\nKeep two gold for the level 3 card — <b>not</b> markup."
MOVE_NOTE = "Too greedy? Bob can take the sapphires now."


def _path(seat: Seat) -> str:
    url = links.seat_link_url(seat=seat)
    return url[url.index("/games/") :]


def _game_a_few_moves_in() -> tuple[Game, Seat, Seat]:
    alice, bob = make_player("alice"), make_player("bob")
    game = services.game_create(creator=alice, variant="base", seats=2, invited=[bob])
    services.seat_join(game=game, user=bob)
    play_moves(game, 4)
    game.refresh_from_db()
    return game, Seat.objects.get(game=game, user=alice), Seat.objects.get(game=game, user=bob)


def _violations(page: Any) -> list[str]:
    """Every axe-core violation, whatever its impact."""
    from axe_playwright_python.sync_playwright import Axe

    results = Axe().run(page)
    return [
        f"{v['id']} ({v['impact']}): {v['help']} at {[n['target'] for n in v['nodes']][:3]}"
        for v in results.response["violations"]
    ]


def test_a_player_writes_notes_beside_the_board_at_a_desktops_and_a_phones_width(
    live_server: Any, new_page: Any, screenshot: Any
) -> None:
    game, alice, bob = _game_a_few_moves_in()
    page = new_page(viewport=DESKTOP)
    page.goto(live_server.url + _path(alice))
    page.fill("#notes-note", NOTE)
    page.select_option("#notes-ply", "1")
    page.fill("#notes-move-note", MOVE_NOTE)
    with page.expect_navigation():
        page.click("#notes-save")
    assert "Your notes are saved. Only you can see them." in page.locator("main").inner_text()
    assert page.input_value("#notes-note") == NOTE
    assert page.input_value("#notes-move-1") == MOVE_NOTE
    assert "Move 2," in page.locator("label[for=notes-move-1]").inner_text()
    assert Seat.objects.get(pk=alice.pk).move_notes == {"1": MOVE_NOTE}
    assert _violations(page) == []
    panel = page.locator("#notes")
    panel.scroll_into_view_if_needed()
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    panel.screenshot(path=str(SCREENSHOTS / "notes-panel-desktop.png"))
    screenshot(page, "notes-game-page-desktop")

    page.goto(live_server.url + f"/games/{game.pk}/replay/?ply=2")
    assert MOVE_NOTE in page.locator("ol").inner_text()
    assert _violations(page) == []
    page.locator("ol").scroll_into_view_if_needed()
    page.locator("ol").screenshot(path=str(SCREENSHOTS / "notes-replay-desktop.png"))

    phone = new_page(viewport=PHONE, is_mobile=True, has_touch=True)
    phone.goto(live_server.url + _path(alice))
    assert phone.evaluate("() => document.documentElement.scrollWidth - window.innerWidth") <= 0
    phone_panel = phone.locator("#notes")
    phone_panel.scroll_into_view_if_needed()
    assert phone_panel.bounding_box()["width"] <= PHONE["width"]  # type: ignore[index]
    assert phone.input_value("#notes-note") == NOTE
    assert _violations(phone) == []
    phone_panel.screenshot(path=str(SCREENSHOTS / "notes-panel-phone.png"))

    other = new_page(viewport=DESKTOP)
    other.goto(live_server.url + _path(bob))
    assert other.input_value("#notes-note") == ""
    assert "blue nobles" not in other.content() and "sapphires now" not in other.content()
    other.goto(live_server.url + f"/games/{game.pk}/replay/?ply=2")
    assert "sapphires now" not in other.content()


def test_a_refused_note_keeps_what_was_typed(live_server: Any, new_page: Any, page_errors: Any) -> None:
    game, alice, _ = _game_a_few_moves_in()
    page = new_page(viewport=DESKTOP)
    page.goto(live_server.url + _path(alice))
    page.fill("#notes-note", "x" * 1990)
    # maxlength stops typing at 2,000; a note pasted past it by hand is refused by the server.
    page.evaluate(
        "() => { const box = document.querySelector('#notes-note');"
        " box.removeAttribute('maxlength'); box.value += 'y'.repeat(20); }"
    )
    with page.expect_navigation():
        page.click("#notes-save")
    alert = page.locator("#page-error")
    assert "Notes not saved:" in alert.inner_text() and "this one has 2010" in alert.inner_text()
    assert page.input_value("#notes-note") == "x" * 1990 + "y" * 20
    assert Seat.objects.get(pk=alice.pk).note == ""
    # The refusal is drawn with its status, 400, which the browser reports as a failed load: that one is expected.
    expected = [message for message in page_errors.messages if "status of 400" in message]
    assert len(expected) == 1
    page_errors.messages.remove(expected[0])
