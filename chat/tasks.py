"""Celery tasks of the chat app: thin adapters that take ids and call services.

``consume_event`` runs this app's outbox consumer "chat" (chat.extension: an
email for each new line to the players who asked for one, chat.emails) on one
event, for a message queued for it by name; the outbox itself runs the consumer
with the others (games.tasks.consume_events)."""

from __future__ import annotations

from celery import shared_task

from chat.extension import ChatExtension
from games.services import game_event_consume_by


@shared_task(name="chat.tasks.consume_event", ignore_result=True, acks_late=True)
def consume_event(event_id: int) -> bool:
    return game_event_consume_by(event_id=event_id, consumer=ChatExtension.name)
