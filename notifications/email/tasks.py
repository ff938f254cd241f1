"""Celery tasks of the email work: thin adapters that take ids and call services.

- ``consume_event``: runs the outbox consumer "email" (notifications.extension)
  on one event, for a message queued for it by name: claims the event for
  "email" and decides its notifications (notifications.email.game_events).
- ``send_notification``: renders and sends one notification, queued on commit by
  ``notify``.
- ``send_due`` (beat): sends queued notifications whose next try is due: retries
  after mail-server errors, and rows whose task never reached a worker.

Reminder and digest tasks live in notifications.reminders.tasks, play by
email's in notifications.inbound.tasks.

The task names are the ones these tasks had before notifications was grouped by
channel (``notifications.tasks.*``), kept because queued messages and the beat
schedule refer to tasks by name.
"""

from __future__ import annotations

from celery import shared_task

from games.services import game_event_consume_by
from notifications.email import services
from notifications.extension import EmailExtension


@shared_task(name="notifications.tasks.consume_event", acks_late=True, ignore_result=True)
def consume_event(event_id: int) -> bool:
    return game_event_consume_by(event_id=event_id, consumer=EmailExtension.name)


@shared_task(name="notifications.tasks.send_notification", acks_late=True, ignore_result=True)
def send_notification(notification_id: int) -> str:
    return services.notification_send(notification_id=notification_id)


@shared_task(name="notifications.tasks.send_due", ignore_result=True)
def send_due() -> int:
    return services.notifications_send_due()
