"""The game page opened from a seat's link, as a player opens it from their own
email, is in that player's language; a browser that chose another with the
language switch keeps its choice; a spectator's page follows Accept-Language."""

from __future__ import annotations

import pytest
from django.test import Client

from accounts.models import Player
from games.models import Seat
from tests.games.board_helpers import page_path, seats, started_game

pytestmark = pytest.mark.django_db


def _opened(seat: Seat, client: Client | None = None, **headers: str) -> tuple[Client, object]:
    browser = client or Client()
    answer = browser.get(page_path(seat), follow=True, **headers)
    assert answer.status_code == 200
    return browser, answer


@pytest.mark.parametrize("language", ["it", "lv"])
def test_a_seats_link_opens_the_page_in_its_players_language(language: str) -> None:
    game = started_game("base", 2)
    seat = seats(game)[0]
    Player.objects.filter(user=seat.user).update(language=language)
    _, answer = _opened(seat, HTTP_ACCEPT_LANGUAGE="en-GB")
    assert answer["Content-Language"] == language
    assert f'<html lang="{language}">' in answer.content.decode()


def test_the_other_seat_keeps_its_own_language() -> None:
    game = started_game("base", 2)
    mine, theirs = seats(game)
    Player.objects.filter(user=mine.user).update(language="it")
    Player.objects.filter(user=theirs.user).update(language="lv")
    assert _opened(mine)[1]["Content-Language"] == "it"
    assert _opened(theirs)[1]["Content-Language"] == "lv"


def test_the_switch_wins_over_the_players_language_in_that_browser() -> None:
    game = started_game("base", 2)
    seat = seats(game)[0]
    Player.objects.filter(user=seat.user).update(language="it")
    browser, answer = _opened(seat)
    assert answer["Content-Language"] == "it"
    browser.post("/i18n/setlang/", {"language": "lv", "next": "/"})
    _, again = _opened(seat, browser)
    assert again["Content-Language"] == "lv"
