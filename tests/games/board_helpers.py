"""Helpers for the board and game page tests: games of any size and variant, and their links."""

from __future__ import annotations

from typing import Any

import engine

from games import links, services
from games.models import Game, Move, Seat
from tests.factories import StartedGameFactory
from tests.games.game_helpers import make_player, user_to_move

NAMES = ("alice", "bob", "dave", "erin")


def started_game(variant: str, players: int) -> Game:
    """A started game of ``players`` seats (StartedGameFactory) between the first
    ``players`` of NAMES; the creator invites the rest, who all accept."""
    users = [make_player(name) for name in NAMES[:players]]
    return StartedGameFactory.create(creator=users[0], invited=users[1:], seats=players, variant=variant)


def play(game: Game, text: str) -> None:
    game.refresh_from_db()
    services.move_submit(game_id=game.pk, user=user_to_move(game), text=text, expected_version=game.version)
    game.refresh_from_db()


def first_take(game: Game) -> str:
    game.refresh_from_db()
    state = engine.from_dict(game.state)
    return next(t for t in map(engine.format_move, engine.legal_moves(state)) if t.startswith("take "))


def page_path(seat: Seat) -> str:
    """The link's path and query, for the test client."""
    url = links.seat_link_url(seat=seat)
    return url[url.index("/games/") :]


def seats(game: Game) -> list[Seat]:
    return list(Seat.objects.filter(game=game).order_by("index"))


def deck_card_ids(game: Game) -> set[str]:
    game.refresh_from_db()
    data: Any = game.state
    state = engine.from_dict(data)
    return {card for deck in state.decks for card in deck}


def blind_reserve_game(variant: str) -> tuple[Game, Seat, str]:
    """A 3-seat game whose first player reserved blind from deck 1 and the others
    played on: the game, the reserving seat and the card only it may see."""
    game = started_game(variant, 3)
    reserver = Seat.objects.get(game=game, index=game.to_move)
    play(game, "reserve deck1")
    card = Move.objects.get(game=game, ply=0).private_card
    assert card
    for _ in range(2):
        play(game, first_take(game))  # the others play on; the card stays hidden in the reserve
    return game, reserver, card
