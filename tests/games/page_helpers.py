"""Helpers for the game page tests: a browser (test client) opened on a seat's link."""

from __future__ import annotations

import re
from typing import Any

from django.test import Client

from games import services
from games.models import Game, Seat
from tests.games.board_helpers import page_path
from tests.games.game_helpers import make_player


def opened(seat: Seat, *, csrf: bool = False) -> Client:
    """A browser that opened ``seat``'s link (and so holds a session for that seat)."""
    client = Client(enforce_csrf_checks=csrf)
    response = client.get(page_path(seat))
    assert response.status_code == 303, response.status_code
    return client


def page(client: Client, game: Game) -> Any:
    return client.get(f"/games/{game.pk}/")


def to_move(game: Game) -> Seat:
    game.refresh_from_db()
    return Seat.objects.get(game=game, index=game.to_move)


def other_than(game: Game, seat: Seat) -> Seat:
    return Seat.objects.filter(game=game).exclude(pk=seat.pk).order_by("index").first()  # type: ignore[return-value]


# Other players than board_helpers.NAMES, so that a test can have both kinds of game.
PUBLIC_NAMES = ("pat", "quinn", "ruth", "sam")


def public_game(variant: str = "base", players: int = 2) -> Game:
    """A started game anyone may watch."""
    users = [make_player(name) for name in PUBLIC_NAMES[:players]]
    game = services.game_create(creator=users[0], variant=variant, seats=players, invited=users[1:], public=True)
    for user in users[1:]:
        services.seat_join(game=game, user=user)
    game.refresh_from_db()
    return game


def post_move(client: Client, game: Game, *, move: str = "", text: str = "", version: int | None = None) -> Any:
    game.refresh_from_db()
    data = {"action": "move", "version": str(game.version if version is None else version)}
    if move:
        data["move"] = move
    if text:
        data["text"] = text
    return client.post(f"/games/{game.pk}/", data)


_CSRF_VALUE = re.compile(r'(name="csrfmiddlewaretoken" value=")[^"]*(")')


def without_csrf_tokens(html: str) -> str:
    """``html`` with each form's CSRF token blanked: Django masks the token anew in
    every answer (the language switch's form is on every page), so two answers that
    say the same compare equal only without them."""
    return _CSRF_VALUE.sub(r"\1\2", html)
