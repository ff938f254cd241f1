"""A worker keeps its database connections between tasks as a web process does
between requests: closed only when Django would close them (past CONN_MAX_AGE, or
failing their health check), not before and after every task as Celery's own
Django fixup does unless told how many tasks a connection may serve."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from splendor_site import celery as site_celery


def test_celery_is_told_to_reuse_connections() -> None:
    assert site_celery.app.conf.get("CELERY_DB_REUSE_MAX", 0) >= 1000


@pytest.mark.parametrize(("eager", "closed"), [(False, 1), (True, 0)])
def test_each_task_closes_only_the_connections_django_would(monkeypatch: Any, eager: bool, closed: int) -> None:
    calls: list[None] = []
    monkeypatch.setattr("django.db.close_old_connections", lambda: calls.append(None))
    task = SimpleNamespace(request=SimpleNamespace(is_eager=eager))
    site_celery._close_old_connections(task=task)
    assert len(calls) == closed
