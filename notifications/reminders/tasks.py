"""Celery tasks for reminders and digests: thin adapters over notifications.reminders.services.

``schedule_for_event`` is the "reminders" consumer of the games outbox
(settings.GAME_EVENT_CONSUMERS); it takes one event id. The two sweeps run on
the beat schedule and take no arguments. All three are safe to run twice.

Their names are the ones they had before notifications was grouped by channel
(``notifications.reminder_tasks.*``): the beat schedule, settings.GAME_EVENT_CONSUMERS
and queued messages name them.
"""

from __future__ import annotations

from celery import shared_task

from games.models import GameEvent
from games.services import game_event_consume, game_event_handler_register
from notifications.reminders import services as reminders

CONSUMER = "reminders"


def _schedule(event: GameEvent) -> None:
    # Practice games and sandboxes have no clock and no reminders.
    if event.game.is_practice:
        return
    # The game's current turn, not the event's: a late or repeated event
    # reschedules what is true now.
    reminders.reminders_schedule_for_game(game_id=event.game_id)


@shared_task(name="notifications.reminder_tasks.schedule_for_event", ignore_result=True)
def schedule_for_event(event_id: int) -> bool:
    """Write the reminders of the turn that this event started (if it did)."""
    return game_event_consume(event_id=event_id, consumer=CONSUMER, handle=_schedule)


# games.services.game_events_consume_all runs the handler itself, with the other consumers.
game_event_handler_register(task_name=schedule_for_event.name, handle=_schedule)


@shared_task(name="notifications.reminder_tasks.send_due_reminders", ignore_result=True)
def send_due_reminders() -> int:
    """Send the reminders that are due; returns how many."""
    return reminders.reminders_send_due()


@shared_task(name="notifications.reminder_tasks.send_due_digests", ignore_result=True)
def send_due_digests() -> int:
    """Send the digests that are due; returns how many."""
    return reminders.digests_send_due()
