"""Helpers of the notes tests: a public two-player game a few moves in, and the
notes its players write on it."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import Permission

from games.models import Game
from tests.games.game_helpers import make_player, play_moves, start_two_player_game


def game_a_few_moves_in(alice: Any, bob: Any, *, public: bool = True, moves: int = 3) -> Game:
    game = start_two_player_game(alice, bob, public=public)
    play_moves(game, moves)
    game.refresh_from_db()
    return game


def moderator_named(username: str) -> Any:
    user = make_player(username)
    user.user_permissions.add(Permission.objects.get(codename="moderate_game"))
    return user


def notes_url(game: Game) -> str:
    return f"/api/v1/games/{game.pk}/notes/"
