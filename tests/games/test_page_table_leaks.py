"""The game page's table names no card its viewer cannot see: a card reserved
face down is, to everyone but its owner, a back with its level (``data-card-back``),
and its id is nowhere in the page (no attribute, script data, alt text or title).
Each data attribute of the table sits where the page's script looks for it."""

from __future__ import annotations

import re

import engine
import pytest
from django.test import Client

from games.models import Game, Move, Seat
from tests.games.board_helpers import deck_card_ids, first_take, play, seats
from tests.games.page_helpers import opened, page, public_game

pytestmark = pytest.mark.django_db


def attributes(html: str, name: str) -> list[str]:
    return re.findall(rf'\s{name}="([^"]*)"', html)


def arranged(variant: str, players: int) -> tuple[Game, Seat, str, Seat, str]:
    """A public game where one seat reserved blind from deck 1 and the next reserved a market card face up."""
    game = public_game(variant, players)
    blind_owner = Seat.objects.get(game=game, index=game.to_move)
    play(game, "reserve deck1")
    blind = Move.objects.get(game=game, ply=0).private_card
    open_owner = Seat.objects.get(game=game, index=game.to_move)
    state = engine.from_dict(game.state)
    face_up = next(card for card in state.market[1] if card is not None)
    play(game, f"reserve {face_up}")
    for _ in range(players):
        play(game, first_take(game))
    return game, blind_owner, blind, open_owner, face_up


@pytest.mark.parametrize("variant", ["base", "marvel"])
@pytest.mark.parametrize("players", [2, 4])
def test_a_card_reserved_face_down_is_only_a_back_to_everyone_but_its_owner(variant: str, players: int) -> None:
    game, blind_owner, blind, open_owner, face_up = arranged(variant, players)
    assert blind not in deck_card_ids(game)
    market = {card for row in engine.from_dict(game.state).market for card in row if card is not None}
    for seat in [*seats(game), None]:
        html = page(opened(seat) if seat is not None else Client(), game).content.decode()
        cards = attributes(html, "data-card")
        if seat == blind_owner:
            assert blind in html and blind in cards  # its owner sees it, face up
            assert attributes(html, "data-card-back") == []
        else:
            assert blind not in html, f"seat {seat and seat.index} sees the blind reserve"
            assert attributes(html, "data-card-back") == ["1"]
        # Face up: the market, and every card reserved face up (its owner's, and the open reserve).
        assert face_up in cards and set(cards) <= market | {face_up, blind}
        assert attributes(html, "data-seat") == [str(p.index) for p in sorted(
            seats(game), key=lambda p: (seat is None or p.index != seat.index, p.index))]
        assert attributes(html, "data-deck") == ["3", "2", "1"]
        tiles = attributes(html, "data-location" if variant == "marvel" else "data-noble")
        assert tiles and all(re.fullmatch(r"L\d[AB]|N\d\d", tile) for tile in tiles)
        to_move = seat is not None and seat.index == game.to_move
        moves = attributes(html, "data-move")
        assert bool(moves) == to_move  # moves only on the page of the seat to move
        assert ("data-confirm" in html) == to_move
        for element in re.findall(r"<[^>]*\sdata-move=[^>]*>", html):
            assert "data-card" not in element and element.startswith("<button")


def test_the_seat_to_move_is_offered_exactly_its_legal_moves_as_buttons() -> None:
    game, _, _, _, _ = arranged("base", 2)
    mover = Seat.objects.get(game=game, index=game.to_move)
    html = page(opened(mover), game).content.decode()
    legal = sorted(engine.format_move(m) for m in engine.legal_moves(engine.from_dict(game.state)))
    assert sorted(attributes(html, "data-move")) == legal
    bank = re.search(r'<section class="bank".*?</section>', html, re.S)
    assert bank is not None and attributes(bank.group(0), "data-token") == ["W", "U", "G", "R", "K", "J"]
