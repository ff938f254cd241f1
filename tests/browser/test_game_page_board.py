"""The game page's table measured in a real browser: each market level on one row
at 1280 px, the market, the bank, the nobles (locations) and the viewer's own
area on the first screen at 1280x800, nothing wider than a 390 px phone (where
the viewer's area comes before the market and the move panel stays on screen),
no serious or critical axe-core violation; and screenshots of base and Marvel at
2 and 4 players, desktop and phone, and of the replay (tests/browser/README.md)."""

from __future__ import annotations

from typing import Any

import pytest

from games import links
from games.models import Game, Move, Seat
from games.words import move_in_words
from tests.browser.conftest import SCREENSHOTS
from tests.factories import seat_to_move
from tests.games.board_helpers import play, started_game
from tests.games.game_helpers import greedy, play_moves

pytestmark = pytest.mark.django_db

DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}


def _path(seat: Seat) -> str:
    url = links.seat_link_url(seat=seat)
    return url[url.index("/games/") :]


def arranged(variant: str, players: int) -> tuple[Game, Seat, str]:
    """A game some turns in, with a blind reservation held by a seat other than the one to move."""
    game = started_game(variant, players)
    reserver = Seat.objects.get(game=game, index=game.to_move)
    play(game, "reserve deck1")
    card = Move.objects.get(game=game, ply=0).private_card
    # Greedy play that keeps the blind reservation in the hand, hidden.
    play_moves(game, 3 * players - 2, lambda state, moves: greedy(state, [m for m in moves if card not in m]))
    game.refresh_from_db()
    return game, reserver, card


def _serious(page: Any) -> list[str]:
    from axe_playwright_python.sync_playwright import Axe

    results = Axe().run(page)
    return [
        f"{v['id']} ({v['impact']}): {v['help']} at {[n['target'] for n in v['nodes']][:3]}"
        for v in results.response["violations"]
        if v.get("impact") in ("serious", "critical")
    ]


ROWS = """() => Array.from(document.querySelectorAll('.market-row')).map(row =>
  Array.from(row.querySelectorAll('[data-card], .empty-slot, [data-deck]')).map(e => Math.round(e.getBoundingClientRect().top)))"""

BOTTOMS = """() => Object.fromEntries(['.market', '#bank', '.tiles', '.seat.you'].map(s => {
  const e = document.querySelector(s); return [s, e ? Math.round(e.getBoundingClientRect().bottom + window.scrollY) : null];
}))"""

WIDER = "() => document.documentElement.scrollWidth - window.innerWidth"


@pytest.mark.parametrize("variant", ["base", "marvel"])
@pytest.mark.parametrize("players", [2, 4])
def test_the_table_fits_a_desktop_and_a_phone(
    live_server: Any, new_page: Any, screenshot: Any, variant: str, players: int
) -> None:
    game, reserver, hidden = arranged(variant, players)
    viewer = seat_to_move(game)
    assert viewer != reserver

    page = new_page(viewport=DESKTOP)
    page.goto(live_server.url + _path(viewer))
    rows = page.evaluate(ROWS)
    assert len(rows) == 3 and all(len(set(row)) == 1 for row in rows), f"each level on one row: {rows}"
    bottoms = page.evaluate(BOTTOMS)
    assert all(bottom is not None and bottom <= DESKTOP["height"] for bottom in bottoms.values()), bottoms
    assert page.evaluate(WIDER) <= 0
    assert page.locator(f'[data-card="{hidden}"]').count() == 0 and hidden not in page.content()
    assert page.locator('[data-card-back="1"]').count() == 1
    assert _serious(page) == []
    screenshot(page, f"game-page-{variant}-{players}p-desktop")

    phone = new_page(viewport=PHONE, is_mobile=True, has_touch=True)
    phone.goto(live_server.url + _path(viewer))
    assert phone.evaluate(WIDER) <= 0, "nothing scrolls sideways at 390 px"
    you_top = phone.evaluate("() => document.querySelector('.seat.you').getBoundingClientRect().top")
    market_top = phone.evaluate("() => document.querySelector('.market').getBoundingClientRect().top")
    assert you_top < market_top, "the player's own area comes before the market"
    # Scrolled to the bottom row of the market, the move panel is still on the screen.
    phone.locator('.market-row[data-level="1"]').scroll_into_view_if_needed()
    panel = phone.locator("#moves").bounding_box()
    assert panel is not None and panel["y"] + panel["height"] <= PHONE["height"] + 1 and panel["y"] >= 0
    assert _serious(phone) == []
    # What a phone shows: the first screen, then the market with a card chosen and the
    # panel offering its moves (a full-page capture would misplace the sticky panel).
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    phone.evaluate("() => window.scrollTo(0, 0)")
    phone.screenshot(path=str(SCREENSHOTS / f"game-page-{variant}-{players}p-phone.png"))
    card = phone.locator('.market-row[data-level="1"] [data-card]').first
    card.click()
    phone.screenshot(path=str(SCREENSHOTS / f"game-page-{variant}-{players}p-phone-card.png"))


def test_the_replay_says_which_position_it_shows(live_server: Any, new_page: Any, screenshot: Any) -> None:
    game, _, _ = arranged("base", 2)
    viewer = seat_to_move(game)
    page = new_page(viewport=DESKTOP)
    page.goto(live_server.url + _path(viewer))
    page.goto(f"{live_server.url}/games/{game.pk}/replay/?ply=3")
    heading = page.locator("h1").inner_text()
    assert "after move 3 of" in heading
    text = page.locator("main").inner_text()
    assert "It is your turn" not in text and "version" not in text.lower()
    assert page.locator("[data-move], [data-confirm]").count() == 0
    assert page.evaluate(WIDER) <= 0
    assert _serious(page) == []
    screenshot(page, "game-page-replay-desktop")


def test_a_move_is_chosen_and_confirmed_with_the_keyboard(live_server: Any, new_page: Any) -> None:
    game, _, _ = arranged("base", 2)
    viewer = seat_to_move(game)
    page = new_page(viewport=DESKTOP)
    page.goto(live_server.url + _path(viewer))
    card = page.locator('.market-row[data-level="1"] [data-card]').first
    card_id = card.get_attribute("data-card")
    card.focus()
    page.keyboard.press("Enter")  # a card is a button
    offered = page.locator("#move-form button[data-move]:not([hidden])")
    assert offered.count() >= 1
    text = offered.first.get_attribute("data-move")
    assert text is not None and card_id in text
    offered.first.focus()
    page.keyboard.press("Enter")
    assert page.evaluate("() => document.activeElement.hasAttribute('data-confirm')")  # the focus moves to it
    assert page.locator("#move-chosen").inner_text().startswith(text)
    page.keyboard.press("Escape")  # changing one's mind
    assert page.locator("#move-choice").is_hidden()
    offered.first.focus()
    page.keyboard.press("Enter")
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert f"You played: {move_in_words(text, game.variant, 'en')}" in page.content()
    assert Move.objects.filter(game=game).order_by("-ply").first().text == text  # type: ignore[union-attr]


def test_without_confirmation_a_chosen_move_is_played_at_once(live_server: Any, new_page: Any) -> None:
    game, _, _ = arranged("base", 2)
    viewer = seat_to_move(game)
    player = viewer.user.player
    player.confirm_moves = False
    player.save(update_fields=["confirm_moves"])
    page = new_page(viewport=DESKTOP)
    page.goto(live_server.url + _path(viewer))
    page.click('[data-deck="2"]')
    with page.expect_navigation():
        page.click('#move-form [data-move^="reserve deck2"]')
    assert Move.objects.filter(game=game).order_by("-ply").first().text.startswith("reserve deck2")  # type: ignore[union-attr]
