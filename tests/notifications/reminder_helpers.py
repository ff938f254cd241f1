"""Helpers for the reminder and digest tests: games started at a fixed time,
their outbox events handed to the reminders consumer as a worker would, and the
sweeps run with their on-commit sends.

Personas come from tests/notifications/conftest.py: alice and bob play each
other; charlie has no seat in their games.
"""

from __future__ import annotations

from typing import Any

from games import services
from games.models import Game, GameEvent, Move, Seat
from notifications.reminders.tasks import schedule_for_event
from tests.factories import StartedGameFactory, seat_to_move


def seat_user(game: Game, index: int | None) -> Any:
    return Seat.objects.select_related("user").get(game=game, index=index).user


def to_move(game: Game) -> Any:
    return seat_to_move(game).user


def waiting(game: Game) -> Any:
    """The player who is not to move, in a two-player game."""
    game.refresh_from_db()
    return Seat.objects.select_related("user").exclude(index=game.to_move).get(game=game).user


def deliver_events(game: Game) -> None:
    """Hand the game's outbox events to the reminders consumer, as the workers do
    after each commit (an event already handled is skipped by its claim)."""
    for event_id in GameEvent.objects.filter(game=game).order_by("id").values_list("id", flat=True):
        schedule_for_event(event_id)


def started_game(alice: Any, bob: Any) -> Game:
    """A private two-seat game of alice and bob (StartedGameFactory), its start's
    events handed to the reminders consumer."""
    game = StartedGameFactory.create(creator=alice, invited=[bob])
    deliver_events(game)
    game.refresh_from_db()
    return game


def play(game: Game, text: str) -> None:
    game.refresh_from_db()
    services.move_submit(game_id=game.pk, user=to_move(game), text=text, expected_version=game.version)


def reserve_blind(game: Game) -> tuple[Any, str]:
    """The player to move reserves the top card of deck 1, unseen by the other
    player. Returns that player and the card's id."""
    owner = to_move(game)
    play(game, "reserve deck1")
    card = Move.objects.filter(game=game).order_by("-ply").values_list("private_card", flat=True).first()
    assert card
    return owner, card
