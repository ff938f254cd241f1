"""Queueing a Celery task by its name, from the services that need one run.

By name, so that a services module never imports its own app's tasks module
(which imports the services: a circle). A task registered in this process
honours CELERY_TASK_ALWAYS_EAGER (run inline, as in the tests); otherwise the
message goes to the broker by name. No retries here: a request must not wait on
a broker that is down; the caller decides what a refused message costs.
"""

from __future__ import annotations

from typing import Any

from celery import current_app


def task_send(task_name: str, *args: Any) -> None:
    """Queue ``task_name`` with ``args`` (ids, never secrets); raises when the
    broker does not take it."""
    task = current_app.tasks.get(task_name)
    if task is not None:
        task.apply_async(args=args, retry=False)
    else:
        current_app.send_task(task_name, args=args, retry=False)
