"""Celery tasks of push: thin adapters that take ids and call services. They make
HTTP requests to push services outside, so they run on the webhooks queue
(settings.CELERY_TASK_ROUTES), away from the workers that send game email."""

from __future__ import annotations

from celery import shared_task

from notifications.push import services


@shared_task(name="notifications.push.tasks.send", acks_late=True, ignore_result=True)
def send(message_id: int) -> str:
    return services.push_message_send(message_id=message_id)


@shared_task(name="notifications.push.tasks.send_due", ignore_result=True)
def send_due() -> int:
    return services.push_messages_send_due()
