"""What each outbox event sends, and to whom (the "email" consumer's handler).

Recipients are decided from the event's payload and the game row as it is when
the event is handled: a turn email goes only to a seat that is still to move
(if the game has moved on since, a later event tells the next player). Every
notification's key is ``event:<event id>:<kind>:<user id>``, so handling an
event twice sends nothing more. Kinds with no email here are handled by doing
nothing. ``game_adjudicated`` is one of them on purpose: ``game_finished``
follows it, and its game_over email says that a moderator decided the result.
So is ``tournament_finished``: the stream and webhooks tell of it. A round's start
(``tournament_round_started``) emails each player of the round, not the event's
game's seats (notifications.email.tournament_rounds).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from django.db import transaction

from games.models import Game, GameEvent, Move, Seat
from notifications.email.services import notify
from notifications.email.tournament_rounds import tournament_round_notify

Handler = Callable[[GameEvent], None]
_HANDLERS: dict[str, Handler] = {}


def _on(kind: str) -> Callable[[Handler], Handler]:
    def register(function: Handler) -> Handler:
        _HANDLERS[kind] = function
        return function

    return register


def event_handle(event: GameEvent) -> None:
    handler = _HANDLERS.get(event.kind)
    # Practice games' and sandboxes' events never reach it (games.extensions.hears).
    if handler is None:
        return
    with transaction.atomic():
        handler(event)


def _send(event: GameEvent, kind: str, user_ids: Iterable[int]) -> None:
    for user_id in dict.fromkeys(user_ids):  # each recipient once, in order
        notify(
            key=f"event:{event.pk}:{kind}:{user_id}",
            kind=kind,
            user_id=user_id,
            game_id=event.game_id,
            event_id=event.pk,
        )


def _seat_users(game: Game) -> list[int]:
    return [s.user_id for s in Seat.objects.filter(game=game, index__isnull=False)]


def _current_game(event: GameEvent) -> Game:
    return Game.objects.get(pk=event.game_id)


def _player_to_move(game: Game) -> int | None:
    """The user whose turn it is now, or None when nobody's is (over, or a seat that left)."""
    if game.status != Game.Status.ACTIVE or game.to_move is None:
        return None
    seat = Seat.objects.filter(game=game, index=game.to_move).first()
    if seat is None or seat.resigned:
        return None
    return seat.user_id


@_on(GameEvent.Kind.GAME_CREATED)
def _game_created(event: GameEvent) -> None:
    invited: list[Any] = list(event.payload.get("invited_ids") or [])
    # Only those still invited: one who declined before this ran gets nothing.
    still = set(
        Seat.objects.filter(game_id=event.game_id, user_id__in=invited, invited=True).values_list("user_id", flat=True)
    )
    _send(event, "invitation", [u for u in invited if u in still])


@_on(GameEvent.Kind.GAME_STARTED)
def _game_started(event: GameEvent) -> None:
    game = _current_game(event)
    if Move.objects.filter(game=game).exists():
        return  # the first player has moved already
    user_id = _player_to_move(game)
    if user_id is not None:
        _send(event, "your_turn", [user_id])


@_on(GameEvent.Kind.MOVE_PLAYED)
def _move_played(event: GameEvent) -> None:
    payload = event.payload
    game = _current_game(event)
    if payload.get("played_by") == "bot" and isinstance(payload.get("seat"), int):
        seat = Seat.objects.filter(game=game, index=payload["seat"]).first()
        if seat is not None:
            _send(event, "bot_played", [seat.user_id])
    ply = payload.get("ply")
    if not isinstance(ply, int) or Move.objects.filter(game=game, ply__gt=ply).exists():
        return  # the game has moved on: a later move_played tells the next player
    user_id = _player_to_move(game)
    if user_id is not None:
        _send(event, "your_turn", [user_id])


@_on(GameEvent.Kind.SEAT_RESIGNED)
def _seat_resigned(event: GameEvent) -> None:
    if event.payload.get("reason") == "timeout":
        _send(event, "forfeited", _seat_users(_current_game(event)))


@_on(GameEvent.Kind.GAME_FINISHED)
def _game_finished(event: GameEvent) -> None:
    _send(event, "game_over", _seat_users(_current_game(event)))


@_on(GameEvent.Kind.GAME_ABORTED)
def _game_aborted(event: GameEvent) -> None:
    by_user_id = event.payload.get("by_user_id")
    everyone = Seat.objects.filter(game_id=event.game_id).values_list("user_id", flat=True)
    _send(event, "cancelled", [u for u in everyone if u != by_user_id])


@_on("clock_paused")
def _clock_paused(event: GameEvent) -> None:
    payload = event.payload
    user_id = payload.get("user_id")
    if payload.get("reason") == "vacation" and payload.get("notice") is True and isinstance(user_id, int):
        _send(event, "vacation", [user_id])


@_on(GameEvent.Kind.DEADLINE_EXTENDED)
def _deadline_extended(event: GameEvent) -> None:
    """The player to move, if the extended turn is still theirs (a move since
    makes the news stale: the next turn has a deadline of its own)."""
    seat_index = event.payload.get("seat")
    game = _current_game(event)
    if not isinstance(seat_index, int) or game.to_move != seat_index:
        return
    user_id = _player_to_move(game)
    if user_id is not None:
        _send(event, "deadline_extended", [user_id])


@_on(GameEvent.Kind.SEAT_REPLACED)
def _seat_replaced(event: GameEvent) -> None:
    """The player who took the seat and the one who left it (one email each)."""
    payload = event.payload
    new_user_id, old_user_id = payload.get("new_user_id"), payload.get("old_user_id")
    recipients = [u for u in (new_user_id, old_user_id) if isinstance(u, int)]
    _send(event, "seat_replaced", recipients)


@_on(GameEvent.Kind.TOURNAMENT_ROUND_STARTED)
def _tournament_round_started(event: GameEvent) -> None:
    """Each player of the round: their game and opponents, or the bye
    (notifications.email.tournament_rounds). Followers get no email."""
    tournament_round_notify(event)
