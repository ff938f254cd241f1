"""No event of any account's stream names another seat's blind reservation, a card
still in a deck, or the seed before the end (the leak tests of the board, extended
to the stream: every event kind, your_turn's view included)."""

from __future__ import annotations

import json
import re

import pytest

from games.models import Game, Seat
from streams.models import StreamEvent
from tests.games.board_helpers import blind_reserve_game, deck_card_ids, seats
from tests.games.game_helpers import play_to_end

pytestmark = pytest.mark.django_db

CARD_ID = re.compile(r"(?<![\w-])([123]-\d\d)(?![\w])")


def shown_to(seat: Seat) -> str:
    return json.dumps(list(StreamEvent.objects.filter(user=seat.user).order_by("seq").values_list("kind", "data")))


@pytest.fixture(params=["base", "marvel"])
def game_with_a_blind_reserve(request: pytest.FixtureRequest) -> tuple[Game, Seat, str]:
    return blind_reserve_game(request.param)


def test_no_other_seat_is_streamed_the_blind_reserved_card(game_with_a_blind_reserve: tuple[Game, Seat, str]) -> None:
    game, reserver, card = game_with_a_blind_reserve
    assert card and len(seats(game)) == 3 and reserver in seats(game)  # the hidden card, and others to hide it from
    for seat in seats(game):
        shown = shown_to(seat)
        assert '"reserve deck1"' in shown  # the move itself is streamed to everyone, as text with no card
        if seat == reserver:
            # Its own view (your_turn, on its next turn) shows it the card it drew.
            assert card in CARD_ID.findall(shown)
        else:
            assert card not in CARD_ID.findall(shown)


def test_no_stream_names_a_card_in_a_deck_or_the_seed(game_with_a_blind_reserve: tuple[Game, Seat, str]) -> None:
    game, _, _ = game_with_a_blind_reserve
    in_decks = deck_card_ids(game)
    assert in_decks and game.seed
    for seat in seats(game):
        shown = shown_to(seat)
        assert "your_turn" in shown and "game_started" in shown
        assert not in_decks.intersection(CARD_ID.findall(shown))
        assert game.seed not in shown


def test_the_seed_is_streamed_to_nobody_even_at_the_end(game_with_a_blind_reserve: tuple[Game, Seat, str]) -> None:
    game, _, _ = game_with_a_blind_reserve
    play_to_end(game)
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    for seat in seats(game):
        shown = shown_to(seat)
        assert "game_finished" in shown
        assert game.seed not in shown  # it is in the game's answer once over, never in an event
