"""Celery tasks of the chat app: thin adapters that take ids and call services.

``consume_event`` is this app's outbox consumer (settings.GAME_EVENT_CONSUMERS):
an email for each new line to the players who asked for one (chat.emails)."""

from __future__ import annotations

from celery import shared_task

from chat import services
from games.models import GameEvent
from games.services import game_event_consume, game_event_handler_register


@shared_task(name="chat.tasks.consume_event", ignore_result=True, acks_late=True)
def consume_event(event_id: int) -> bool:
    return game_event_consume(event_id=event_id, consumer="chat", handle=_handle)


def _handle(event: GameEvent) -> None:
    if event.kind != GameEvent.Kind.CHAT or event.game.is_practice:
        return
    services.chat_line_emails_send(event=event)


# games.services.game_events_consume_all runs the handler itself, with the other consumers.
game_event_handler_register(task_name=consume_event.name, handle=_handle)
