"""Celery tasks of the leagues app: thin adapters.

``consume_event`` runs the outbox consumer "ratings" (leagues.extension) on one
event under its claim (games.services.game_event_consume_by): for a finished
rated game, the ratings are applied once (leagues.services.ratings_apply_game is
idempotent, so a repeated delivery changes nothing).
"""

from __future__ import annotations

from celery import shared_task

from games.services import game_event_consume_by
from leagues.extension import RatingsExtension

CONSUMER = RatingsExtension.name


@shared_task(name="leagues.tasks.consume_event", acks_late=True, ignore_result=True)
def consume_event(event_id: int) -> bool:
    return game_event_consume_by(event_id=event_id, consumer=CONSUMER)
