"""Two players play a whole game on the game page, each in a browser of their own,
by clicking the moves their page lists (the greedy bot picks which), from a
fixed deal on which a return of tokens and a choice between nobles both come up."""

from __future__ import annotations

from typing import Any

import pytest

from games import links, services
from games.models import Game, Seat
from tests.browser.game_page_line import SEED, Turn, greedy_line
from tests.games.game_helpers import make_player

# Lenient notation for the move typed instead of clicked.
WORDS = {"W": "white", "U": "blue", "G": "green", "R": "red", "K": "black"}


def _path(seat: Seat) -> str:
    url = links.seat_link_url(seat=seat)
    return url[url.index("/games/") :]


def _listed_moves(page: Any) -> list[str]:
    values: list[str] = page.eval_on_selector_all('input[name="move"]', "inputs => inputs.map(i => i.value)")
    return values


def _typed_form(turn: Turn) -> str | None:
    """The move in words when it is a plain take of three colours (nothing to return)."""
    kind, _, rest = turn.text.partition(" ")
    if kind != "take" or " " in rest or len(rest) != 3:
        return None
    return "take " + " ".join(WORDS[letter] for letter in rest)


@pytest.fixture
def game(monkeypatch: pytest.MonkeyPatch) -> Game:
    monkeypatch.setattr("games.services.lifecycle.secrets.randbits", lambda bits: SEED)
    alice, bob = make_player("alice"), make_player("bob")
    created = services.game_create(creator=alice, seats=2, invited=[bob])
    services.seat_join(game=created, user=bob)
    created.refresh_from_db()
    assert created.status == Game.Status.ACTIVE
    return created


def test_two_players_play_a_whole_game_by_clicking_on_their_pages(
    live_server: Any, new_page: Any, screenshot: Any, game: Game, settings: Any
) -> None:
    settings.GAME_PAGE_POLL_SECONDS = 1  # each page redraws itself when the other player has moved
    line = greedy_line(SEED)
    assert any(t.returns_tokens for t in line) and any(t.chooses_noble for t in line)
    base = live_server.url
    page_url = f"{base}/games/{game.pk}/"
    pages = {}
    for index in (0, 1):
        page = new_page(viewport={"width": 420, "height": 900})  # a phone's width
        page.goto(base + _path(Seat.objects.get(game=game, index=index)))
        assert page.url == page_url  # the token is not kept in the address
        pages[index] = page
    screenshot(pages[line[0].seat], "game-page-start")

    first_version = game.version
    typed = returned = chose_noble = stale_checked = False
    for number, turn in enumerate(line):
        page = pages[turn.seat]
        version = first_version + number  # one move, one version (two players, nobody resigned)
        # The page redraws itself (it polls the version) once the other player has moved.
        page.wait_for_selector(f'#game[data-version="{version}"]', timeout=15_000)
        assert sorted(_listed_moves(page)) == sorted(turn.legal), f"move {number + 1}: the page lists the legal moves"

        if number == 1:
            # Tapping a card on the board lists only the moves with that card.
            card = next(t.split()[1] for t in turn.legal if t.startswith("reserve ") and "deck" not in t)
            page.click(f'#board [data-card="{card}"]')
            visible = page.eval_on_selector_all(
                '#move-form .move:not([hidden]) input[name="move"]', "inputs => inputs.map(i => i.value)"
            )
            assert visible and all(card in text for text in visible)
            page.click("#move-filter-clear")
            assert page.locator('#move-form .move[hidden]').count() == 0
        if number == 2 and not stale_checked:
            # A second window of the same player, without JavaScript, drawn now and used after the move.
            stale = new_page(java_script_enabled=False)
            stale.context.add_cookies(page.context.cookies())
            stale.goto(page_url)
            stale_checked = True
        words = _typed_form(turn) if not typed else None
        if words is not None:
            page.fill("#move-text", words)
            with page.expect_navigation():
                page.click("#play-typed")
            typed = True
        else:
            page.get_by_label(turn.text, exact=True).check()
            if turn.returns_tokens and not returned:
                screenshot(page, "game-page-return-tokens")
                returned = True
            if turn.chooses_noble and not chose_noble:
                screenshot(page, "game-page-noble-choice")
                chose_noble = True
            with page.expect_navigation():
                page.click("#play-chosen")
        assert page.locator("#page-error").count() == 0, page.locator("#page-error").inner_text()
        drawn = int(page.locator("#game").get_attribute("data-version") or 0)
        assert drawn == version + 1 or (number == len(line) - 1 and drawn > version)  # the end is news too

        if number == 2:
            stale.get_by_label(turn.legal[0], exact=True).check()
            with stale.expect_navigation():
                stale.click("#play-chosen")
            assert "The game moved on since this page was drawn" in stale.locator("#page-error").inner_text()
            assert stale.locator("#game").get_attribute("data-version") == str(version + 1)  # drawn again
        if number == len(line) // 2:
            screenshot(page, "game-page-mid-game")

    assert typed and returned and chose_noble and stale_checked
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    for page in pages.values():
        page.goto(page_url)
        assert "Game over:" in page.content()
    screenshot(pages[0], "game-page-end")
    pages[0].click("text=Replay the game move by move")
    assert "Seed:" in pages[0].content()
    screenshot(pages[0], "game-page-replay")
