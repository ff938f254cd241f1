"""Celery tasks of the email work: thin adapters that take ids and call services.

- ``consume_event``: the outbox consumer "email" (settings.GAME_EVENT_CONSUMERS);
  claims the event for "email" and decides its notifications (notifications.email.game_events).
- ``send_notification``: renders and sends one notification, queued on commit by
  ``notify``.
- ``send_due`` (beat): sends queued notifications whose next try is due: retries
  after mail-server errors, and rows whose task never reached a worker.

Reminder and digest tasks live in notifications.reminders.tasks, play by
email's in notifications.inbound.tasks.

The task names are the ones these tasks had before notifications was grouped by
channel (``notifications.tasks.*``), kept because queued messages, the beat
schedule and settings.GAME_EVENT_CONSUMERS refer to tasks by name.
"""

from __future__ import annotations

from celery import shared_task

from games.services import game_event_consume, game_event_handler_register
from notifications.email import services
from notifications.email.game_events import event_handle


@shared_task(name="notifications.tasks.consume_event", acks_late=True, ignore_result=True)
def consume_event(event_id: int) -> bool:
    return game_event_consume(event_id=event_id, consumer="email", handle=event_handle)


# games.services.game_events_consume_all runs the handler itself, with the other consumers.
game_event_handler_register(task_name=consume_event.name, handle=event_handle)


@shared_task(name="notifications.tasks.send_notification", acks_late=True, ignore_result=True)
def send_notification(notification_id: int) -> str:
    return services.notification_send(notification_id=notification_id)


@shared_task(name="notifications.tasks.send_due", ignore_result=True)
def send_due() -> int:
    return services.notifications_send_due()
