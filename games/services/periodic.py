"""The beat's jobs say when they ran (``games.models.PeriodicRun``): what
``/healthz`` and ``/metrics`` read to tell an operator whether the clocks are
enforced and the outbox is redelivered."""

from __future__ import annotations

from datetime import datetime

from django.utils import timezone

from games.models import PeriodicRun


def periodic_run_mark(job: str, *, now: datetime | None = None) -> None:
    """Record that ``job`` (one of core.metrics.BEAT_JOBS) has just run: one statement."""
    PeriodicRun.objects.bulk_create(
        [PeriodicRun(job=job, last_run_at=now or timezone.now())],
        update_conflicts=True,
        unique_fields=["job"],
        update_fields=["last_run_at"],
    )
