"""The board in the turn email: moves counted the one way people count them
(move n is the API's ply n - 1), and the table drawn as tiles, piles and player
areas in inline-styled tables that carry a letter with every colour."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.core import mail
from tests.notifications.email_helpers import headline_of, html_of, mail_to, play, start_game, user_to_move

from games.models import Game, Move
from games.presentation import board_context
from tests.games.game_helpers import play_to_end

pytestmark = pytest.mark.usefixtures("clock")


def test_before_any_move_the_first_turn_email_asks_for_move_1(alice: Any, bob: Any, commit: Any) -> None:
    game = start_game(commit, alice, bob)
    body = mail_to(user_to_move(game))[-1].body
    assert "round 1, no move played yet" in body and "It is your turn: move 1." in body
    assert "LAST MOVES" not in body


def test_after_one_move_the_turn_email_asks_for_move_2_and_lists_the_first_as_move_1(
    alice: Any, bob: Any, commit: Any
) -> None:
    game = start_game(commit, alice, bob)
    mover = user_to_move(game)
    mail.outbox.clear()
    play(commit, game, "take WUG")
    message = mail_to(user_to_move(game))[0]
    assert "round 1, 1 move played" in message.body and "It is your turn: move 2." in message.body
    assert f"    1. {mover.player.display_name}: take white, blue and green" in message.body
    html = html_of(message)
    assert "round 1 &middot; 1 move played" in html and "It is your turn: move 2." in html
    assert re.search(r'<li>1\. [^<]*: <span title="take WUG">take white, blue and green</span>', html)


def test_the_board_counts_moves_from_1_and_the_api_ply_from_0(alice: Any, bob: Any, commit: Any) -> None:
    game = start_game(commit, alice, bob)
    for _ in range(3):
        play(commit, game)
    board = board_context(game=game, seat_index=0)
    assert (board["ply"], board["moves_played"], board["move_number"], board["round"]) == (3, 3, 4, 2)
    assert [(m["ply"], m["number"]) for m in board["last_moves"]] == [(0, 1), (1, 2), (2, 3)]
    assert [m["number"] for m in board["last_moves"]] == [
        move.ply + 1 for move in Move.objects.filter(game=game).order_by("ply")
    ]


def test_a_finished_game_says_how_many_moves_were_played(alice: Any, bob: Any, commit: Any) -> None:
    game = start_game(commit, alice, bob)
    with commit():
        play_to_end(game)
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    played = Move.objects.filter(game=game).count()
    board = board_context(game=game, seat_index=0)
    assert board["moves_played"] == played and board["last_moves"][-1]["number"] == played
    over = next(m for m in mail_to(alice) if headline_of(m).startswith(f"Game {game.pk} is over"))
    status_line = next(line for line in over.body.splitlines() if line.endswith(f", {played} moves played"))
    assert "round" not in status_line and "move " not in status_line  # no move is left to play


def test_the_turn_email_draws_cards_tiles_piles_and_players_as_tables(alice: Any, bob: Any, commit: Any) -> None:
    game = start_game(commit, alice, bob)
    play(commit, game, "take WUG")
    html = html_of(mail_to(user_to_move(game))[-1])
    board = board_context(game=game, seat_index=0)
    face_up = [card for row in board["market"] for card in row["cards"] if card]
    assert len(face_up) == 12 and all(f'data-card="{card["id"]}"' in html for card in face_up)
    assert all(f'data-tile="{tile["id"]}"' in html for tile in board["tiles"])
    assert all(f'data-pile="{letter}"' in html for letter in "WUGRKJ")
    assert html.count('width="21%"') >= 12  # four card cells per level, sharing the width
    assert "Bonuses" in html and "Tokens" in html and "Reserved: none" in html
    for forbidden in ("<style", "<script", "<link", "<img", "class="):
        assert forbidden not in html
    for card in face_up:  # the bonus colour never alone: its letter is on the card
        assert f'title="{card["color"]["name"]} bonus" style="text-decoration:none">{card["color"]["letter"]}<' in html


def test_each_players_area_puts_bonuses_beside_tokens_for_every_colour(alice: Any, bob: Any, commit: Any) -> None:
    game = start_game(commit, alice, bob)
    play(commit, game, "take WUG")
    board = board_context(game=game, seat_index=None)
    for player in board["players"]:
        stacks = {s["letter"]: (s["bonus"], s["tokens"]) for s in player["stacks"]}
        assert list(stacks) == ["W", "U", "G", "R", "K", "J"]  # the legend's order
        assert stacks["J"][0] is None  # no card has a gold bonus
        assert {c["letter"]: c["count"] for c in player["bonuses"]} == {k: v[0] for k, v in stacks.items() if k != "J"}
        assert {c["letter"]: c["count"] for c in player["tokens"]} == {k: v[1] for k, v in stacks.items() if v[1]}
    assert sum(s["tokens"] for p in board["players"] for s in p["stacks"]) == 3
