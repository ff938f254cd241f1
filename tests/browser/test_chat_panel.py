"""The game page's table-talk panel in a real browser: a player writes a line and
it is there once the form comes back (no JavaScript needed), a spectators' thread
beside it with a line hidden by a moderator, the report buttons and the toggles;
nothing wider than a 390 px phone, no serious or critical axe-core violation; and
screenshots of the panel at a desktop's and a phone's width (tests/browser/README.md)."""

from __future__ import annotations

from typing import Any

import pytest

from django.core import mail

from chat import services
from games import links, services as game_services
from games.models import Game, Seat
from tests.browser.conftest import SCREENSHOTS
from tests.games.game_helpers import make_player, play_moves
from tests.notifications.email_helpers import headline_of

pytestmark = pytest.mark.django_db

DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}


def _path(seat: Seat) -> str:
    url = links.seat_link_url(seat=seat)
    return url[url.index("/games/") :]


def _talking_game() -> tuple[Game, Seat]:
    """A public game a few moves in, with lines in both threads, one of them hidden."""
    alice, bob, charlie, dave = (make_player(name) for name in ("alice", "bob", "charlie", "dave"))
    game = game_services.game_create(creator=alice, variant="base", seats=2, invited=[bob], public=True)
    game_services.seat_join(game=game, user=bob)
    play_moves(game, 4)
    services.chat_message_post(game_id=game.pk, user=alice, text="Good luck! Mind the nobles.")
    services.chat_message_post(game_id=game.pk, user=bob, text="You too.\nThat sapphire is mine.")
    services.chat_message_post(game_id=game.pk, user=charlie, text="Bold opening, Bob.", thread="spectators")
    spam = services.chat_message_post(game_id=game.pk, user=charlie, text="cheap gems at www.spam.example", thread="spectators")
    dave.is_superuser = dave.is_staff = True
    dave.save()
    services.chat_message_hide(message_id=spam.pk, by_user=dave, reason="Spam")
    return game, Seat.objects.get(game=game, user=alice)


def _serious(page: Any) -> list[str]:
    from axe_playwright_python.sync_playwright import Axe

    results = Axe().run(page)
    return [
        f"{v['id']} ({v['impact']}): {v['help']} at {[n['target'] for n in v['nodes']][:3]}"
        for v in results.response["violations"]
        if v.get("impact") in ("serious", "critical")
    ]


def test_a_player_writes_in_the_panel_and_it_fits_a_desktop_and_a_phone(
    live_server: Any, new_page: Any, screenshot: Any
) -> None:
    game, seat = _talking_game()
    page = new_page(viewport=DESKTOP)
    page.goto(live_server.url + _path(seat))
    panel = page.locator("#chat")
    assert "Mind the nobles." in panel.inner_text() and "hidden by a moderator" in panel.inner_text()
    assert "spam.example" not in page.content()
    page.fill("#chat-text-players", "Thanks! <b>Not bold</b>, just text.")
    page.click("#chat-players .chat-send")
    page.wait_for_selector("text=Not bold")
    assert "<b>Not bold</b>, just text." in panel.inner_text()  # shown as typed, never as markup
    assert _serious(page) == []
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    panel.screenshot(path=str(SCREENSHOTS / "chat-panel-desktop.png"))
    screenshot(page, "chat-game-page-desktop")

    phone = new_page(viewport=PHONE, is_mobile=True, has_touch=True)
    phone.goto(live_server.url + _path(seat))
    assert phone.evaluate("() => document.documentElement.scrollWidth - window.innerWidth") <= 0
    phone_panel = phone.locator("#chat")
    phone_panel.scroll_into_view_if_needed()
    assert phone_panel.bounding_box()["width"] <= PHONE["width"]  # type: ignore[index]
    phone_panel.screenshot(path=str(SCREENSHOTS / "chat-panel-phone.png"))


def test_a_refused_line_keeps_its_text_and_says_why(live_server: Any, new_page: Any, settings: Any) -> None:
    game, seat = _talking_game()
    settings.CHAT_MESSAGES_PER_MINUTE = 2  # alice wrote one line already
    page = new_page(viewport=DESKTOP)
    page.goto(live_server.url + _path(seat))
    page.fill("#chat-text-players", "second")
    page.click("#chat-players .chat-send")
    page.wait_for_selector("text=second")
    page.fill("#chat-text-players", "third, too fast")
    page.click("#chat-players .chat-send")
    alert = page.wait_for_selector("#chat [role=alert]")
    assert alert is not None and "chat messages a minute" in alert.inner_text()
    assert page.input_value("#chat-text-players") == "third, too fast"
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.locator("#chat").screenshot(path=str(SCREENSHOTS / "chat-panel-refused-desktop.png"))


def test_the_next_turn_email_shows_the_table_talk_without_links(
    new_page: Any, screenshot: Any, django_capture_on_commit_callbacks: Any
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        game, seat = _talking_game()
    game.refresh_from_db()
    mover = Seat.objects.get(game=game, index=game.to_move)
    other = Seat.objects.select_related("user").get(game=game, index=1 - game.to_move)
    with django_capture_on_commit_callbacks(execute=True):
        services.chat_message_post(game_id=game.pk, user=mover.user, text="Read https://rules.example/nobles first!")
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        play_moves(game, 1)
    turn = next(m for m in mail.outbox if other.user.email in m.to and headline_of(m).startswith("Your turn"))
    html = next(content for content, mime in turn.alternatives if mime == "text/html")
    page = new_page(viewport={"width": 600, "height": 900})
    page.set_content(html)
    screenshot(page, "email-your-turn-with-table-talk")
    text = str(page.locator("body").inner_text())
    assert "Table talk since your last email:" in text and "nobles first!" in text
    assert "spam.example" not in html  # the line a moderator hid
    assert page.locator("a[href*='rules.example']").count() == 0  # no line made a link
