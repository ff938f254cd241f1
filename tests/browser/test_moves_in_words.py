"""A whole game between an Italian and a Latvian player, each on their own page:
neither page, and none of the emails either receives, shows an English move
verb or colour word in its visible text (the notation stays in the buttons'
``title``); one move is not clicked but typed back by email, as the Italian page
writes it, and plays. Screenshots: the Italian and the Latvian page mid-game,
and an Italian turn email (tests/browser/README.md)."""

from __future__ import annotations

import contextlib
import re
from typing import Any

import pytest
from django.core import mail

from games import services
from games.models import Game, Move, Seat
from notifications.models import InboundMessage
from tests.browser.drawn import wait_for_drawn
from tests.browser.game_page_line import SEEDS, greedy_line
from tests.browser.test_game_page_play import _path, click_on_board
from tests.games.game_helpers import make_player
from tests.notifications.email_helpers import headline_of
from tests.notifications.inbound.mail_helpers import receive, reply_bytes
from tests.notifications.inbound.sender_helpers import AUTHSERV_ID, FakeZone

pytestmark = pytest.mark.django_db(transaction=True)

# The English words of a move (engine.words), none of which an Italian or Latvian reader sees.
ENGLISH_MOVE_WORDS = re.compile(
    r"\b(take|buy|recruit|reserve|pass|return|paying|deck|noble|location|"
    r"white|blue|green|red|black|gold|yellow|orange|purple|grey)\b",
    re.IGNORECASE,
)


def english_words(text: str) -> list[str]:
    """The English move words in ``text``, links left out (a link's token is no word)."""
    return ENGLISH_MOVE_WORDS.findall(re.sub(r"https?://\S+", "", text))


def visible_text_of_html(new_page: Any, html: str) -> str:
    page = new_page(viewport={"width": 700, "height": 900})
    page.set_content(html)
    text: str = page.locator("body").inner_text()
    page.close()
    return text


@pytest.fixture
def game(monkeypatch: pytest.MonkeyPatch, settings: Any) -> Game:
    # Replies are believed when the trusted mail host vouches for the sender (docs/email.md).
    settings.INBOUND_AUTHSERV_ID = AUTHSERV_ID
    settings.INBOUND_REQUIRE_AUTHENTICATION = True
    settings.INBOUND_TRUSTED_RELAYS = []
    monkeypatch.setattr("notifications.inbound.receive.SystemResolver", FakeZone)
    monkeypatch.setattr("games.services.lifecycle.secrets.randbits", lambda bits: SEEDS["base"])
    marco, janis = make_player("marco"), make_player("janis")
    for user, language in ((marco, "it"), (janis, "lv")):
        user.player.language = language
        user.player.save(update_fields=["language"])
    created = services.game_create(creator=marco, variant="base", seats=2, invited=[janis])
    services.seat_join(game=created, user=janis)
    created.refresh_from_db()
    assert created.status == Game.Status.ACTIVE
    return created


def test_an_italian_and_a_latvian_player_see_every_move_in_their_own_words(
    live_server: Any, new_page: Any, screenshot: Any, game: Game, settings: Any
) -> None:
    settings.GAME_PAGE_POLL_SECONDS = 1
    line = greedy_line(SEEDS["base"])
    seats = {seat.index: seat for seat in Seat.objects.filter(game=game).select_related("user__player")}
    language = {index: seat.user.player.language for index, seat in seats.items()}
    assert sorted(language.values()) == ["it", "lv"]
    italian = next(index for index, code in language.items() if code == "it")
    pages = {}
    for index, seat in seats.items():
        page = new_page(viewport={"width": 1100, "height": 900})
        page.goto(live_server.url + _path(seat))
        assert page.evaluate("() => document.documentElement.lang") == language[index]
        pages[index] = page

    by_email = None
    for number, turn in enumerate(line):
        page = pages[turn.seat]
        wait_for_drawn(page, game.version + number)
        # What the page shows, and every move button's text, hidden ones too (the board filters them).
        buttons = page.eval_on_selector_all("#move-form button[data-move]", "bs => bs.map(b => b.textContent)")
        assert len(buttons) == len(turn.legal)
        shown = page.locator("main").inner_text() + "\n" + "\n".join(buttons)
        assert english_words(shown) == [], (language[turn.seat], number, english_words(shown))
        button = page.locator(f'#move-form [data-move="{turn.text}"]')
        words = button.get_attribute("data-words") or ""
        assert button.get_attribute("title") == turn.text and words and words in (button.text_content() or "")
        emailed = by_email is None and turn.seat == italian and turn.text.startswith("take ") and number > 2
        if emailed:
            # Typed back by email as the page writes it: the latest turn email to marco, answered.
            address = seats[italian].user.email
            turn_email = [m for m in mail.outbox if address in m.to][-1]
            inbound = receive(contextlib.nullcontext, reply_bytes(turn_email, sender=address, body=words))
            assert inbound is not None and inbound.status == InboundMessage.Status.APPLIED, inbound and inbound.outcome
            by_email = words
        else:
            # Chosen on the board, as a player does; the chosen move is shown in words.
            click_on_board(page, turn, lambda *args: None, {"gold", "return", "noble", "confirm"})
        assert Move.objects.get(game=game, ply=number).text == turn.text
        if not emailed:
            # The page drawn after the move: what it says was played, in words too.
            after = page.locator("main").inner_text()
            assert words in after and english_words(after) == [], (language[turn.seat], number, english_words(after))
        if number == len(line) // 2:
            for index, page_of in pages.items():
                screenshot(page_of, f"moves-in-words-{language[index]}")
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED and by_email is not None

    for index, seat in seats.items():
        theirs = [message for message in mail.outbox if seat.user.email in message.to]
        assert len(theirs) > len(line) // 2 - 2, "a turn email for (nearly) every turn, and the game over"
        for message in theirs:
            html = next(content for content, mime in message.alternatives if mime == "text/html")
            for text in (message.subject, message.body, visible_text_of_html(new_page, html)):
                assert english_words(text) == [], (language[index], headline_of(message), english_words(text))
    italian_turn = next(m for m in reversed(mail.outbox) if seats[italian].user.email in m.to and "Tocca a te" in m.body)
    page = new_page(viewport={"width": 700, "height": 900})
    page.set_content(next(content for content, mime in italian_turn.alternatives if mime == "text/html"))
    screenshot(page, "moves-in-words-it-turn-email")
