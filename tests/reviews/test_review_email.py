"""The game-over email links the review: its text and its HTML, through the
player's own link, which opens the replay as their seat (the review is at
``#review``), in the player's language.

Personas: alice wins when bob resigns; bob reads his email in Italian."""

from __future__ import annotations

import re
from html import unescape
from typing import Any
from urllib.parse import urlsplit

import pytest
from django.core import mail
from django.test import Client

from games import services
from notifications.email.render import review_url
from tests.factories import StartedGameFactory
from tests.notifications.email_helpers import html_of

pytestmark = pytest.mark.django_db


def game_over_to(user: Any) -> Any:
    """The one email ``user`` was sent: the game is over."""
    found = [message for message in mail.outbox if user.email in message.to]
    assert len(found) == 1, [message.subject for message in found]
    return found[0]


@pytest.fixture
def over(alice: Any, bob: Any, django_capture_on_commit_callbacks: Any) -> Any:
    bob.player.language = "it"
    bob.player.save(update_fields=["language"])
    game = StartedGameFactory.create(creator=alice, invited=[bob])
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        services.game_resign(game=game, user=bob)
    game.refresh_from_db()
    return game


def test_the_game_over_email_links_the_review_in_its_text_and_its_html(over: Any, alice: Any) -> None:
    message = game_over_to(alice)
    seat = over.seats.get(user=alice)
    link = review_url(over, seat)
    assert link.endswith("&to=replay#review") and "?seat=" in link
    assert f"The search bot's review of it, move by move: {link}" in message.body
    html = html_of(message)
    assert f'href="{link.replace("&", "&amp;")}"' in html
    assert "The search bot's review, move by move" in unescape(html)


def test_the_link_opens_the_replay_as_the_players_seat(over: Any, alice: Any) -> None:
    link = review_url(over, over.seats.get(user=alice))
    parts = urlsplit(link)
    browser = Client()
    answer = browser.get(f"{parts.path}?{parts.query}")
    assert answer.status_code == 303 and answer["Location"] == f"/games/{over.pk}/replay/"
    page = browser.get(answer["Location"]).content.decode()
    assert 'id="review"' in page and "Review this game" in page


def test_the_link_is_in_the_players_language(over: Any, bob: Any) -> None:
    message = game_over_to(bob)
    assert re.search(r"L'analisi della partita del bot di ricerca, mossa per mossa: \S+&to=replay#review", message.body)
    assert "L'analisi del bot di ricerca, mossa per mossa" in unescape(html_of(message))
