"""The game page and its replay count moves one way (move n is the API's ply n - 1;
``?ply=n`` shows the board after n moves), the replay says which position it shows
and offers nothing to play, a spectator's page ends with no empty section, and the
page tells its script whether the player confirms moves."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from games.models import Move, Seat
from tests.games.board_helpers import first_take, play, seats
from tests.games.page_helpers import opened, page, public_game

pytestmark = pytest.mark.django_db


def test_the_replay_says_after_which_move_it_is_and_is_never_the_live_game() -> None:
    game = public_game()
    for _ in range(5):
        play(game, first_take(game))
    mover = Seat.objects.get(game=game, index=game.to_move)
    client = opened(mover)
    html = client.get(f"/games/{game.pk}/replay/?ply=3").content.decode()
    heading = re.search(r"<h1[^>]*>(.*?)</h1>", html, re.S)
    assert heading is not None and "after move 3 of 5" in heading.group(1)
    third = Move.objects.get(game=game, ply=2)  # move 3 is the API's ply 2
    assert "Move 3 was" in html and third.text in html
    assert re.search(r'<li aria-current="step"[^>]*><a href="\?ply=3">', html)
    assert "It is your turn" not in html and "data-move" not in html and "data-confirm" not in html
    assert f'data-version="{game.version}"' not in html and "moves played" not in html
    start = client.get(f"/games/{game.pk}/replay/?ply=0").content.decode()
    assert "the deal, before move 1 of 5" in start


def test_the_live_page_numbers_its_last_moves_as_the_replay_does() -> None:
    game = public_game()
    for _ in range(3):
        play(game, first_take(game))
    html = page(opened(seats(game)[0]), game).content.decode()
    last = Move.objects.get(game=game, ply=2)
    assert "3. " in html and last.text in html and "3 moves played" in html


def test_a_spectator_page_has_no_empty_more_section() -> None:
    game = public_game()
    play(game, first_take(game))
    html = Client().get(f"/games/{game.pk}/").content.decode()
    assert "Watching a game" in html
    assert 'id="more-heading"' not in html  # nothing to offer a spectator before the end


@pytest.mark.parametrize("confirm", [True, False])
def test_the_page_says_whether_the_player_confirms_moves(confirm: bool) -> None:
    game = public_game()
    mover = Seat.objects.get(game=game, index=game.to_move)
    player = mover.user.player
    player.confirm_moves = confirm
    player.save(update_fields=["confirm_moves"])
    html = page(opened(mover), game).content.decode()
    assert f'data-confirm-moves="{1 if confirm else 0}"' in html
    assert html.count("data-confirm ") + html.count("data-confirm>") == 1
