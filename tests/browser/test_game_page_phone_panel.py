"""On a phone the move panel, held at the bottom of the screen, never covers the
card just chosen or a noble (a location in Marvel): measured in a real browser at
390x844, with the card tapped where the panel, grown with the card's moves, would
have covered it (tests/browser/README.md)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.browser.conftest import SCREENSHOTS
from tests.browser.test_game_page_board import PHONE, _path, arranged
from tests.factories import seat_to_move

pytestmark = pytest.mark.django_db

# Boxes in the viewport's coordinates, each cut to the part that is on the screen
# (null when none is).
BOXES = """(card) => {
  const seen = (e) => {
    const r = e.getBoundingClientRect();
    const top = Math.max(r.top, 0), bottom = Math.min(r.bottom, window.innerHeight);
    return bottom > top ? {top, bottom, left: r.left, right: r.right, whole: r.top >= 0 && r.bottom <= window.innerHeight} : null;
  };
  return {
    panel: seen(document.querySelector('#moves')),
    card: seen(document.querySelector('[data-card="' + card + '"]')),
    tiles: Array.from(document.querySelectorAll('[data-noble], [data-location]')).map(seen),
  };
}"""


def _overlap(a: dict[str, float], b: dict[str, float]) -> bool:
    return a["top"] < b["bottom"] and b["top"] < a["bottom"] and a["left"] < b["right"] and b["left"] < a["right"]


@pytest.mark.parametrize("variant", ["base", "marvel"])
@pytest.mark.parametrize("level", [1, 3])
def test_the_move_panel_covers_neither_the_chosen_card_nor_a_noble_on_a_phone(
    live_server: Any, new_page: Any, variant: str, level: int
) -> None:
    game, _reserver, _hidden = arranged(variant, 4)
    phone = new_page(viewport=PHONE, is_mobile=True, has_touch=True)
    phone.goto(live_server.url + _path(seat_to_move(game)))
    card = phone.locator(f'.market-row[data-level="{level}"] [data-card]').first
    card_id = card.get_attribute("data-card")
    # The card just above the panel, as small as it is before a choice.
    phone.evaluate(
        """(card) => {
          const box = document.querySelector('[data-card="' + card + '"]').getBoundingClientRect();
          window.scrollBy(0, box.bottom - document.querySelector('#moves').getBoundingClientRect().top + 2);
        }""",
        card_id,
    )
    card.tap()

    assert card_id in phone.locator("#move-filter-label").inner_text()  # the panel offers its moves
    boxes = phone.evaluate(BOXES, card_id)
    panel, chosen = boxes["panel"], boxes["card"]
    assert panel is not None and chosen is not None and chosen["whole"], boxes
    assert not _overlap(panel, chosen), boxes
    assert boxes["tiles"] and all(tile is None or not _overlap(panel, tile) for tile in boxes["tiles"]), boxes
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    # The screen as the phone shows it (a full-page capture would misplace the held panel).
    phone.screenshot(path=str(SCREENSHOTS / f"game-page-{variant}-4p-phone-level-{level}-card-above-panel.png"))
