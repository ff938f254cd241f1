"""Celery tasks of the webhooks app: thin adapters that take ids and call services.

``consume_event`` is this app's outbox consumer (settings.GAME_EVENT_CONSUMERS);
``deliver_due`` runs on the beat schedule (WEBHOOKS_SWEEP_SECONDS) and sends the
retries that are due: retries are a swept column, never long ETA tasks.
``deliver`` and ``deliver_due`` make HTTP requests that may take up to
WEBHOOKS_ATTEMPT_SECONDS each, so they go to the ``webhooks`` queue
(settings.CELERY_TASK_ROUTES), away from the workers that send game email.
"""

from __future__ import annotations

from celery import shared_task

from games.models import GameEvent
from games.services import game_event_consume, game_event_handler_register
from webhooks import services


@shared_task(name="webhooks.tasks.consume_event", ignore_result=True, acks_late=True)
def consume_event(event_id: int) -> bool:
    """Turn one game event into deliveries for its players' endpoints."""
    return game_event_consume(event_id=event_id, consumer="webhooks", handle=_fan_out)


def _fan_out(event: GameEvent) -> None:
    # Practice games and sandboxes are nobody's news: no deliveries.
    if event.game.is_practice:
        return
    services.event_fan_out(event=event)


# games.services.game_events_consume_all runs the handler itself, with the other consumers.
game_event_handler_register(task_name=consume_event.name, handle=_fan_out)


@shared_task(name="webhooks.tasks.deliver", ignore_result=True, acks_late=True)
def deliver(delivery_id: int) -> bool:
    """Make the first (or a due) attempt of one delivery; a repeat does nothing."""
    return services.delivery_attempt(delivery_id=delivery_id)


@shared_task(name="webhooks.tasks.deliver_due", ignore_result=True)
def deliver_due() -> int:
    """Send the deliveries whose retry is due. Returns how many were attempted."""
    return services.deliveries_send_due()


@shared_task(name="webhooks.tasks.send_disabled_notice", ignore_result=True, acks_late=True)
def send_disabled_notice(endpoint_id: int) -> bool:
    """Tell an endpoint's owner it was disabled."""
    return services.endpoint_disabled_notice_send(endpoint_id=endpoint_id)
