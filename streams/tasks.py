"""The stream's periodic work: forgetting events older than STREAM_REPLAY_HOURS."""

from __future__ import annotations

from celery import shared_task

from streams import services


@shared_task(name="streams.tasks.prune_events", ignore_result=True)
def prune_events() -> int:
    return services.stream_events_prune()
