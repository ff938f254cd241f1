"""Helpers for the table-talk tests: games, API clients and lines posted as a request would."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any

from django.contrib.auth.models import Permission
from rest_framework.test import APIClient

from chat import services
from chat.models import ChatMessage
from games import services as game_services
from games.models import Game
from tests.games.game_helpers import client_for

Commit = Callable[[], AbstractContextManager[Any]]


def game_of(commit: Commit, alice: Any, bob: Any, *, public: bool = False) -> Game:
    with commit():
        game = game_services.game_create(creator=alice, variant="base", seats=2, invited=[bob], public=public)
    with commit():
        game_services.seat_join(game=game, user=bob)
    game.refresh_from_db()
    return game


def say(commit: Commit, game: Game, user: Any, text: str, *, thread: str = "players") -> ChatMessage:
    with commit():
        return services.chat_message_post(game_id=game.pk, user=user, text=text, thread=thread)


def api(user: Any) -> APIClient:
    return client_for(user, scopes=("read", "play"))


def chat_url(game: Game, thread: str | None = None) -> str:
    return f"/api/v1/games/{game.pk}/chat/" + (f"?thread={thread}" if thread else "")


def make_moderator(user: Any) -> Any:
    user.is_staff = True
    user.save()
    user.user_permissions.add(Permission.objects.get(codename="moderate_game", content_type__app_label="games"))
    return type(user).objects.get(pk=user.pk)  # permissions are cached per instance
