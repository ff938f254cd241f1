"""The game page in each language, in a real browser: opened from a seat's link it
speaks the seat's player's language (html lang, the board's words), the language
switch at its foot changes it, and screenshots of base and Marvel at desktop and
phone width in English, Italian and Latvian (tests/browser/README.md)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.browser.conftest import SCREENSHOTS
from tests.browser.test_game_page_board import DESKTOP, PHONE, WIDER, _path, _serious, arranged
from tests.factories import seat_to_move

pytestmark = pytest.mark.django_db

# Words the board shows in each language (games/locale), and English ones it must not.
SHOWN = {
    "en": ("It is your turn", "Market", "Level 1", "Try this position"),
    "it": ("Tocca a te", "Tavolo", "Livello 1", "Prova questa posizione"),
    "lv": ("Tavs gājiens", "Tirgus", "1. līmenis", "Izmēģini šo pozīciju"),
}


@pytest.mark.parametrize("variant", ["base", "marvel"])
@pytest.mark.parametrize("language", ["en", "it", "lv"])
def test_the_board_speaks_the_players_language(
    live_server: Any, new_page: Any, screenshot: Any, variant: str, language: str
) -> None:
    game, _, _ = arranged(variant, 2)
    viewer = seat_to_move(game)
    viewer.user.player.language = language
    viewer.user.player.save(update_fields=["language"])

    page = new_page(viewport=DESKTOP, locale="en-GB")  # the browser asks for English: the player's language wins
    page.goto(live_server.url + _path(viewer))
    assert page.evaluate("() => document.documentElement.lang") == language
    text = page.locator("main").inner_text()
    for words in SHOWN[language]:
        assert words in text, (language, words)
    if language != "en":
        for words in SHOWN["en"]:
            assert words not in text, (language, words)
    assert page.evaluate(WIDER) <= 0
    assert _serious(page) == []
    screenshot(page, f"game-page-{variant}-2p-desktop-{language}")

    phone = new_page(viewport=PHONE, is_mobile=True, has_touch=True, locale="en-GB")
    phone.goto(live_server.url + _path(viewer))
    assert phone.evaluate(WIDER) <= 0, "no word too long for a 390 px phone in any language"
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    phone.screenshot(path=str(SCREENSHOTS / f"game-page-{variant}-2p-phone-{language}.png"))


def test_the_switch_at_the_foot_of_the_page_changes_its_language(live_server: Any, new_page: Any) -> None:
    game, _, _ = arranged("base", 2)
    viewer = seat_to_move(game)
    page = new_page(viewport=DESKTOP)
    page.goto(live_server.url + _path(viewer))
    assert page.evaluate("() => document.documentElement.lang") == "en"
    with page.expect_navigation():
        page.click('form.language-switch button[value="lv"]')
    assert page.evaluate("() => document.documentElement.lang") == "lv"
    assert "Tavs gājiens" in page.locator("main").inner_text()
    with page.expect_navigation():
        page.click('form.language-switch button[value="it"]')
    assert "Tocca a te" in page.locator("main").inner_text()
