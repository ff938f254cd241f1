"""Helpers of the plan tests: a 2-player game and its two players, named by
their part in it (the seat that waits and stores a plan, the seat to move)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from games.models import Game, Seat
from tests.games.game_helpers import start_two_player_game


@dataclass
class Table:
    game: Game
    mover: Any  # the seat to move now
    planner: Any  # the seat that waits and stores a plan


def two_player_table(alice: Any, bob: Any, *, public: bool = False) -> Table:
    game = start_two_player_game(alice, bob, public=public)
    first = Seat.objects.get(game=game, index=game.to_move).user
    return Table(game=game, mover=first, planner=bob if first == alice else alice)


# Four lines, each the next of the one before: the planner's four moves while the
# mover reserves three times blind and then takes. None depends on the deal.
FOUR_DEEP = [
    {
        "if": "reserve deck1",
        "then": "take WUG",
        "next": [
            {
                "if": "reserve deck2",
                "then": "take white red black",
                "next": [
                    {
                        "if": "any",
                        "then": "take UGR",
                        "next": [{"if": "take WUG", "then": "reserve deck1"}],
                    }
                ],
            }
        ],
    }
]
MOVER_MOVES = ["reserve deck1", "reserve deck2", "reserve deck3", "take WUG"]
PLANNED = ["take WUG", "take WRK", "take UGR", "reserve deck1"]
