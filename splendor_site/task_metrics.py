"""Celery tasks' run time and failures (``splendor_task_duration_seconds`` and
``splendor_task_failures_total``, by task name), from Celery's signals. Imported
by the Celery app, so every worker and every process that runs tasks inline counts."""

from __future__ import annotations

import time
from typing import Any

from celery import current_app
from celery.signals import task_failure, task_postrun, task_prerun

from core import metrics

# When each running task started, by task id (a worker process runs one at a time
# with the prefork and solo pools; threads would each have their own ids).
_started: dict[str, float] = {}


def _task_series() -> list[tuple[str]]:
    """The site's own tasks (Celery's built-in ones aside), whose run time and
    failures are exported at 0 before their first run (core.metrics.series_declare)."""
    # The site's app, which imports this module: the current one once it is made.
    return [(name,) for name in sorted(current_app.tasks) if not name.startswith("celery.")]


metrics.series_declare(metrics.TASK_DURATION, _task_series)
metrics.series_declare(metrics.TASK_FAILURES, _task_series)


@task_prerun.connect(weak=False)
def _task_started(task_id: str | None = None, **kwargs: Any) -> None:
    if task_id is not None:
        _started[task_id] = time.perf_counter()


@task_postrun.connect(weak=False)
def _task_ended(task_id: str | None = None, task: Any = None, **kwargs: Any) -> None:
    started = _started.pop(task_id, None) if task_id is not None else None
    if started is not None:
        metrics.TASK_DURATION.labels(getattr(task, "name", None) or "unknown").observe(time.perf_counter() - started)


@task_failure.connect(weak=False)
def _task_failed(sender: Any = None, **kwargs: Any) -> None:
    metrics.TASK_FAILURES.labels(getattr(sender, "name", None) or "unknown").inc()
