"""Celery tasks for reminders and digests: thin adapters over notifications.reminders.services.

``schedule_for_event`` runs the "reminders" consumer of the games outbox
(notifications.extension) on one event id, for a message queued for it by name.
The two sweeps run on the beat schedule and take no arguments. All three are
safe to run twice.

Their names are the ones they had before notifications was grouped by channel
(``notifications.reminder_tasks.*``): the beat schedule and queued messages name them.
"""

from __future__ import annotations

from celery import shared_task

from games.services import game_event_consume_by
from notifications.extension import RemindersExtension
from notifications.reminders import services as reminders

CONSUMER = RemindersExtension.name


@shared_task(name="notifications.reminder_tasks.schedule_for_event", ignore_result=True)
def schedule_for_event(event_id: int) -> bool:
    """Write the reminders of the turn that this event started (if it did)."""
    return game_event_consume_by(event_id=event_id, consumer=CONSUMER)


@shared_task(name="notifications.reminder_tasks.send_due_reminders", ignore_result=True)
def send_due_reminders() -> int:
    """Send the reminders that are due; returns how many."""
    return reminders.reminders_send_due()


@shared_task(name="notifications.reminder_tasks.send_due_digests", ignore_result=True)
def send_due_digests() -> int:
    """Send the digests that are due; returns how many."""
    return reminders.digests_send_due()
