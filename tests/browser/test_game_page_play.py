"""Two players play a whole game on the game page, each in a browser of their own,
by clicking the board: a card, a deck or token piles, then one of the moves the
page offers for it, then the button that confirms it (the greedy bot picks which
move), from fixed deals on which a buy paid with gold, a return of tokens and a
choice between nobles (Marvel: locations) all come up. Base at a phone's width,
Marvel on a desktop."""

from __future__ import annotations

from typing import Any

import pytest

from games import links, services
from games.models import Game, Seat
from tests.browser.drawn import wait_for_drawn
from tests.browser.game_page_line import SEEDS, Turn, greedy_line
from tests.games.game_helpers import make_player

# Lenient notation for the move typed instead of clicked.
WORDS = {"W": "white", "U": "blue", "G": "green", "R": "red", "K": "black"}


def _path(seat: Seat) -> str:
    url = links.seat_link_url(seat=seat)
    return url[url.index("/games/") :]


def _listed_moves(page: Any) -> list[str]:
    values: list[str] = page.eval_on_selector_all("[data-move]", "buttons => buttons.map(b => b.dataset.move)")
    return values


def _offered(page: Any) -> list[str]:
    """The moves the panel offers now (a forced pass is always listed)."""
    values: list[str] = page.eval_on_selector_all(
        "#move-form button[data-move]:not([hidden])", "buttons => buttons.map(b => b.dataset.move)"
    )
    return sorted(v for v in values if not v.startswith("pass"))


def click_on_board(page: Any, turn: Turn, screenshot: Any, seen: set[str]) -> None:
    """Chooses ``turn.text`` by clicking the board, checks what is offered on the way, confirms it."""
    words = turn.text.split()
    kind, target = words[0], words[1] if len(words) > 1 else ""
    if kind == "take":
        for letter in target if len(set(target)) > 1 else target[0]:
            page.click(f'#bank [data-token="{letter}"]')
        if len(set(target)) == 1:
            page.click(f'#bank [data-token="{target[0]}"]')  # the same pile again: two of it
        expected = sorted(t for t in turn.legal if t.split()[:2] == ["take", target])
    elif target.startswith("deck"):
        page.click(f'[data-deck="{target[4:]}"]')
        expected = sorted(t for t in turn.legal if t.split()[:2] == ["reserve", target])
    elif kind in ("buy", "reserve"):
        page.click(f'[data-card="{target}"]')
        expected = sorted(t for t in turn.legal if t.split()[1:2] == [target] and not t.startswith("take"))
    else:
        expected = []
    if expected:
        assert _offered(page) == expected, f"{turn.text}: the board offers exactly the legal moves with it"
    pays = page.locator(f'[data-move="{turn.text}"] .pays')
    if kind == "buy" and pays.count() and ("gold" in pays.inner_text() or "grey" in pays.inner_text()) and "gold" not in seen:
        screenshot(page, "game-page-buy-with-gold")
        seen.add("gold")
    if " return " in turn.text and "return" not in seen:
        screenshot(page, "game-page-return-tokens")
        seen.add("return")
    tile_word = "noble" if " noble " in turn.text else "location" if " location " in turn.text else None
    if tile_word is not None and len(expected) > 1:
        # The tile is chosen on the board: it narrows the offer to the one move, which is then chosen.
        tile = words[words.index(tile_word) + 1]
        page.click(f'[data-{tile_word}="{tile}"]')
        if "noble" not in seen:
            screenshot(page, "game-page-noble-choice")
            seen.add("noble")
    else:
        page.click(f'#move-form [data-move="{turn.text}"]')
    in_words = page.locator(f'#move-form [data-move="{turn.text}"]').get_attribute("data-words") or ""
    assert in_words and page.locator("#move-chosen").inner_text().startswith(in_words)  # shown in words first
    assert page.locator("[data-confirm]").get_attribute("value") == turn.text
    if "confirm" not in seen:
        screenshot(page, "game-page-confirm")
        seen.add("confirm")
    with page.expect_navigation():
        page.click("[data-confirm]")


def settled_content(page: Any) -> str:
    """The page's HTML once it has stopped navigating (a redraw the page's own poll
    started before the test's goto may still be landing)."""
    from playwright.sync_api import Error as PlaywrightError

    for _ in range(20):
        try:
            content: str = page.content()
            return content
        except PlaywrightError as error:
            if "navigating" not in str(error):
                raise
            page.wait_for_load_state("load")
    content = page.content()
    return content


def _typed_form(turn: Turn) -> str | None:
    """The move in words when it is a plain take of three colours (nothing to return)."""
    kind, _, rest = turn.text.partition(" ")
    if kind != "take" or " " in rest or len(rest) != 3 or not set(rest) <= set(WORDS):
        return None
    return "take " + " ".join(WORDS[letter] for letter in rest)


# (variant, viewport): base at a phone's width, Marvel on a desktop, so that both
# variants and both widths are played through (a game takes about a minute here;
# all four pairs passed as well, in 4.5 minutes). The layout at each width, for each
# variant, is measured by test_game_page_board.py.
PLAYS = [
    ("base", {"width": 420, "height": 900}),
    ("marvel", {"width": 1280, "height": 800}),
]


@pytest.fixture(params=PLAYS, ids=lambda play: f"{play[0]}-{play[1]['width']}")
def play(request: pytest.FixtureRequest) -> tuple[str, dict[str, int]]:
    variant, viewport = request.param
    return variant, viewport


@pytest.fixture
def game(monkeypatch: pytest.MonkeyPatch, play: tuple[str, dict[str, int]]) -> Game:
    variant = play[0]
    monkeypatch.setattr("games.services.lifecycle.secrets.randbits", lambda bits: SEEDS[variant])
    alice, bob = make_player("alice"), make_player("bob")
    created = services.game_create(creator=alice, variant=variant, seats=2, invited=[bob])
    services.seat_join(game=created, user=bob)
    created.refresh_from_db()
    assert created.status == Game.Status.ACTIVE
    return created


def test_two_players_play_a_whole_game_by_clicking_on_their_pages(
    live_server: Any, new_page: Any, screenshot: Any, game: Game, settings: Any, play: tuple[str, dict[str, int]]
) -> None:
    variant, viewport = play
    settings.GAME_PAGE_POLL_SECONDS = 1  # each page redraws itself when the other player has moved
    line = greedy_line(SEEDS[variant], variant=variant)
    assert any(t.returns_tokens for t in line) and any(t.chooses_noble for t in line)
    # The phone-width base game keeps the plain names (tests/browser/README.md); the others say which.
    suffix = "" if (variant, viewport["width"]) == ("base", 420) else f"-{variant}-{viewport['width']}"

    def shot(page: Any, name: str) -> None:
        screenshot(page, name + suffix)

    base = live_server.url
    page_url = f"{base}/games/{game.pk}/"
    pages = {}
    for index in (0, 1):
        page = new_page(viewport=viewport)
        page.goto(base + _path(Seat.objects.get(game=game, index=index)))
        assert page.url == page_url  # the token is not kept in the address
        pages[index] = page
    shot(pages[line[0].seat], "game-page-start")

    first_version = game.version
    typed = stale_checked = False
    seen: set[str] = set()
    for number, turn in enumerate(line):
        page = pages[turn.seat]
        version = first_version + number  # one move, one version (two players, nobody resigned)
        # The page redraws itself (it polls the version) once the other player has moved.
        wait_for_drawn(page, version)
        assert sorted(_listed_moves(page)) == sorted(turn.legal), f"move {number + 1}: the page has the legal moves"

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
            click_on_board(page, turn, shot, seen)
        assert page.locator("#page-error").count() == 0, page.locator("#page-error").inner_text()
        drawn = int(page.locator("#game").get_attribute("data-version") or 0)
        assert drawn == version + 1 or (number == len(line) - 1 and drawn > version)  # the end is news too

        if number == 2:
            # Without JavaScript each move is a button that plays it.
            with stale.expect_navigation():
                stale.click(f'[data-move="{turn.legal[0]}"]')
            assert "The game moved on since this page was drawn" in stale.locator("#page-error").inner_text()
            assert stale.locator("#game").get_attribute("data-version") == str(version + 1)  # drawn again
        if number == len(line) // 2:
            shot(page, "game-page-mid-game")

    assert (typed or variant == "marvel") and stale_checked, (typed, stale_checked)
    assert seen >= {"gold", "return", "noble", "confirm"}, seen
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    for page in pages.values():
        # The page that did not play the last move redraws itself when its poll sees it
        # (window.location.replace); wait for that first, or the two navigations collide.
        wait_for_drawn(page, game.version)
        page.goto(page_url)
        assert "Game over:" in settled_content(page)
    shot(pages[0], "game-page-end")
    with pages[0].expect_navigation():
        pages[0].click("text=Replay the game move by move")
    # The new document may be committed before its body is parsed (content() is then
    # ""), so wait for the replay's own text rather than read the page at once.
    pages[0].wait_for_selector("text=Seed:", timeout=15_000)
    assert "/replay/" in pages[0].url
    assert "Seed:" in settled_content(pages[0])
    shot(pages[0], "game-page-replay")
