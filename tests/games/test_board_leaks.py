"""The board shown on the game page and in emails never names another seat's blind
reservation, the order of the decks or the seed before the end."""

from __future__ import annotations

import re

import pytest
from django.template.loader import render_to_string
from django.test import Client

from games.models import Game, Seat
from games.presentation import board_context
from tests.games.board_helpers import blind_reserve_game, deck_card_ids, page_path, seats
from tests.games.game_helpers import play_to_end

pytestmark = pytest.mark.django_db

# A card id standing alone, so that dates like 2026-11-07 do not count as "1-07".
CARD_ID = re.compile(r"(?<![\w-])([123]-\d\d)(?![\w])")


def everything_shown_to(client: Client, game: Game, seat: Seat) -> str:
    """The page, and the HTML and text boards an email would carry, for one seat."""
    board = board_context(game=game, seat_index=seat.index)
    return "\n".join(
        [
            client.get(page_path(seat), follow=True).content.decode(),
            render_to_string("games/_board.html", {"board": board}),
            render_to_string("games/_board.txt", {"board": board}),
        ]
    )


@pytest.fixture(params=["base", "marvel"])
def game_with_a_blind_reserve(request: pytest.FixtureRequest) -> tuple[Game, Seat, str]:
    return blind_reserve_game(request.param)


def test_no_other_seat_sees_the_blind_reserved_card(
    client: Client, game_with_a_blind_reserve: tuple[Game, Seat, str]
) -> None:
    game, reserver, card = game_with_a_blind_reserve
    for seat in seats(game):
        shown = everything_shown_to(client, game, seat)
        if seat == reserver:
            assert card in CARD_ID.findall(shown)
            assert "only you see it" in shown
        else:
            assert card not in CARD_ID.findall(shown)
            assert "a level 1 card, reserved face down" in shown
    spectator = board_context(game=game, seat_index=None)
    assert card not in CARD_ID.findall(render_to_string("games/_board.html", {"board": spectator}))
    assert card not in CARD_ID.findall(render_to_string("games/_board.txt", {"board": spectator}))


def test_no_page_shows_the_deck_order_or_the_seed(
    client: Client, game_with_a_blind_reserve: tuple[Game, Seat, str]
) -> None:
    game, _, _ = game_with_a_blind_reserve
    in_decks = deck_card_ids(game)
    assert in_decks and game.seed
    for seat in seats(game):
        shown = everything_shown_to(client, game, seat)
        assert not in_decks.intersection(CARD_ID.findall(shown))
        assert game.seed not in shown


def test_the_blind_reserve_is_hidden_in_the_last_moves_too(
    game_with_a_blind_reserve: tuple[Game, Seat, str]
) -> None:
    game, reserver, card = game_with_a_blind_reserve
    assert card and len(seats(game)) == 3 and reserver in seats(game)  # the hidden card, and others to hide it from
    for seat in seats(game):
        moves = board_context(game=game, seat_index=seat.index)["last_moves"]
        reserve = next(m for m in moves if m["ply"] == 0)
        assert reserve["text"] == "reserve deck1"
        assert reserve["private_card"] == (card if seat == reserver else "")


def test_a_finished_game_shows_the_result(client: Client, active_game: Game) -> None:
    play_to_end(active_game)
    active_game.refresh_from_db()
    board = board_context(game=active_game, seat_index=0)
    assert board["over"] and board["result"] and board["result"]["winners"]
    assert "Game over:" in client.get(page_path(seats(active_game)[0]), follow=True).content.decode()
