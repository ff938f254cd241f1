"""Helpers for the deadlines calendar's tests: an account's feed address, fetched
and parsed with the ``icalendar`` package as a calendar app would."""

from __future__ import annotations

from typing import Any

from django.test import Client
from icalendar import Calendar

from accounts.services import calendar_feed_get
from games.models import Game, Seat
from tests.games.board_helpers import first_take, play
from tests.games.game_helpers import start_two_player_game


def feed_path(user: Any) -> str:
    return f"/calendar/{calendar_feed_get(user=user).secret}.ics"


def fetch(user: Any, **headers: str) -> Any:
    return Client().get(feed_path(user), headers=headers)


def parsed(user: Any) -> Calendar:
    answer = fetch(user)
    assert answer.status_code == 200, answer.content
    return Calendar.from_ical(answer.content)


def events(calendar: Calendar) -> list[Any]:
    return list(calendar.walk("VEVENT"))


def turn_events(calendar: Calendar) -> list[Any]:
    return [event for event in events(calendar) if str(event["UID"]).startswith("turn-")]


def game_of(event: Any) -> str:
    """The game id an event names (its URL ends with /games/<id>/)."""
    return str(event["URL"]).rstrip("/").split("/")[-1]


def seat_to_move(game: Game) -> Seat:
    game.refresh_from_db()
    return Seat.objects.get(game=game, index=game.to_move)


def games_waiting_on(user: Any, *others: Any) -> list[Game]:
    """A game against each of ``others``, every one of them at ``user``'s turn."""
    games = []
    for other in others:
        game = start_two_player_game(user, other)
        if seat_to_move(game).user_id != user.pk:
            play(game, first_take(game))
        games.append(game)
    return games
