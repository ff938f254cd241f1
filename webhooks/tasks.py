"""Celery tasks of the webhooks app: thin adapters that take ids and call services.

``consume_event`` runs this app's outbox consumer (webhooks.extension) on one
event, for a message queued for it by name;
``deliver_due`` runs on the beat schedule (WEBHOOKS_SWEEP_SECONDS) and sends the
retries that are due: retries are a swept column, never long ETA tasks.
``deliver`` and ``deliver_due`` make HTTP requests that may take up to
WEBHOOKS_ATTEMPT_SECONDS each, so they go to the ``webhooks`` queue
(settings.CELERY_TASK_ROUTES), away from the workers that send game email.
"""

from __future__ import annotations

from celery import shared_task

from games.services import game_event_consume_by
from webhooks import services
from webhooks.extension import WebhooksExtension


@shared_task(name="webhooks.tasks.consume_event", ignore_result=True, acks_late=True)
def consume_event(event_id: int) -> bool:
    """Turn one game event into deliveries for its players' endpoints."""
    return game_event_consume_by(event_id=event_id, consumer=WebhooksExtension.name)


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
