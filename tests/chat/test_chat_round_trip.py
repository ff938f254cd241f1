"""Table talk from the game page to email, from an email reply back to the page:
the line one player writes on the page is in the other's next game email; their
``say`` in a reply to it is posted, confirmed, and shown on the first player's page
and in their next game email."""

from __future__ import annotations

import html
from typing import Any

import pytest

from chat.models import ChatMessage
from games.models import Game, Seat
from notifications.models import InboundMessage
from tests.chat.chat_helpers import game_of
from tests.games.page_helpers import opened
from tests.notifications.email_helpers import html_of, play
from tests.notifications.inbound.mail_helpers import answer, latest, receive, reply_bytes

pytestmark = pytest.mark.django_db


def _seat(game: Game, user: Any) -> Seat:
    return Seat.objects.select_related("user").get(game=game, user=user)


def test_a_line_goes_from_the_page_to_email_and_a_reply_comes_back_to_the_page(
    clock: Any, commit: Any, alice: Any, bob: Any
) -> None:
    game = game_of(commit, alice, bob)
    first = Seat.objects.select_related("user").get(game=game, index=game.to_move)
    second = Seat.objects.select_related("user").get(game=game, index=1 - game.to_move)
    writer, reader = first.user, second.user

    # The page: the player to move writes a line, then plays.
    browser = opened(first)
    with commit():
        posted = browser.post(f"/games/{game.pk}/chat/", {"action": "say", "thread": "players", "text": "Good luck! www.example.com"})
    assert posted.status_code == 302 and posted["Location"] == f"/games/{game.pk}/#chat"
    shown = browser.get(f"/games/{game.pk}/").content.decode()
    assert "Good luck! www.example.com" in html.unescape(shown)
    play(commit, game)

    # The other player's turn email carries the line: plain in the text part, no link in the HTML.
    turn_email = latest(reader, "Your turn")
    assert "Table talk since your last email:" in turn_email.body
    assert f"{writer.player.display_name}: Good luck! www.example.com" in turn_email.body
    page_html = html_of(turn_email)
    assert "Good luck!" in page_html and "www.example.com" not in page_html  # joined: no link made of it
    assert 'href="http://www.example.com' not in page_html

    # The reply: "say" and two lines, above the quoted email (which is not read).
    inbound = receive(commit, reply_bytes(turn_email, sender=reader.email, body="say Thanks, you too!\nMay the best gems win."))
    assert inbound is not None and inbound.status == InboundMessage.Status.APPLIED, inbound and inbound.outcome
    said = ChatMessage.objects.get(author=reader)
    assert said.text == "Thanks, you too!\nMay the best gems win."
    confirmation = answer(reader, "chat_said")
    assert "Your message is posted in game" in confirmation.body and "May the best gems win." in confirmation.body

    # Back on the first player's page, and in their next game email (once the other moves).
    again = html.unescape(browser.get(f"/games/{game.pk}/").content.decode())
    assert "Thanks, you too!" in again and "May the best gems win." in again
    play(commit, game)
    next_email = latest(writer, "Your turn")
    assert f"{reader.player.display_name}: Thanks, you too!" in next_email.body
    assert "Good luck!" not in next_email.body.split("Table talk since your last email:")[1]  # never one's own line


def test_lines_already_emailed_are_not_emailed_again(clock: Any, commit: Any, alice: Any, bob: Any) -> None:
    game = game_of(commit, alice, bob)
    mover = Seat.objects.select_related("user").get(game=game, index=game.to_move).user
    other = bob if mover == alice else alice
    from tests.chat.chat_helpers import say

    say(commit, game, mover, "opening words")
    play(commit, game)
    assert "opening words" in latest(other, "Your turn").body
    play(commit, game)  # the other moves
    say(commit, game, mover, "later words")
    play(commit, game)
    body = latest(other, "Your turn").body
    assert "later words" in body and "opening words" not in body


def test_a_say_with_nothing_after_it_is_refused(clock: Any, commit: Any, alice: Any, bob: Any) -> None:
    game = game_of(commit, alice, bob)
    player = Seat.objects.select_related("user").get(game=game, index=game.to_move).user
    turn_email = latest(player, "Your turn")
    inbound = receive(commit, reply_bytes(turn_email, sender=player.email, body="say"))
    assert inbound is not None and inbound.status == InboundMessage.Status.REFUSED
    assert not ChatMessage.objects.exists()


@pytest.mark.parametrize(("language", "word"), [("it", "di"), ("lv", "saki")])
def test_say_is_read_in_the_players_language(
    clock: Any, commit: Any, alice: Any, bob: Any, language: str, word: str
) -> None:
    game = game_of(commit, alice, bob)
    player = Seat.objects.select_related("user").get(game=game, index=game.to_move).user
    player.player.language = language
    player.player.save()
    turn_email = latest(player, "")
    inbound = receive(commit, reply_bytes(turn_email, sender=player.email, body=f"{word} ciao"))
    assert inbound is not None and inbound.status == InboundMessage.Status.APPLIED, inbound and inbound.outcome
    assert ChatMessage.objects.get().text == "ciao"
