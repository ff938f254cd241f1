"""The outbox consumer "ratings" (settings.GAME_EVENT_CONSUMERS): a thin adapter.

It claims each event for itself (games.services.game_event_consume) and, for a
finished rated game, applies the ratings once (leagues.services.ratings_apply_game
is idempotent, so a repeated delivery changes nothing).
"""

from __future__ import annotations

from celery import shared_task

from games.models import GameEvent
from games.services import game_event_consume, game_event_handler_register
from leagues import services

CONSUMER = "ratings"


def event_handle(event: GameEvent) -> None:
    # Practice games and sandboxes count in no rating.
    if event.kind == GameEvent.Kind.GAME_FINISHED and not event.game.is_practice:
        services.ratings_apply_game(game_id=event.game_id)


@shared_task(name="leagues.tasks.consume_event", acks_late=True, ignore_result=True)
def consume_event(event_id: int) -> bool:
    return game_event_consume(event_id=event_id, consumer=CONSUMER, handle=event_handle)


# games.services.game_events_consume_all runs the handler itself, with the other consumers.
game_event_handler_register(task_name=consume_event.name, handle=event_handle)
