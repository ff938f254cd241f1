"""Personas and settings for the email tests.

- alice creates games and usually moves first once the seats are shuffled.
- bob is her opponent: the other seat, and the one we look at for leaks.
- charlie is invited to a game (a third seat) or stands outside alice's games.

Email goes to Django's locmem outbox, Celery runs eagerly, and the clock is
fixed so deadlines and retries are exact. ``commit`` runs a change the way a
request does: its on-commit callbacks (the outbox consumers, the sends) run when
it ends.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from datetime import datetime, timezone
from typing import Any

import pytest
import time_machine

NOW = datetime(2026, 3, 2, 9, 0, tzinfo=timezone.utc)


@pytest.fixture(autouse=True)
def _email_settings(settings: Any) -> None:
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    settings.CELERY_TASK_ALWAYS_EAGER = True
    settings.SITE_URL = "https://splendor.test"
    settings.EMAIL_REPLY_DOMAIN = "reply.splendor.test"
    settings.NOTIFICATION_MAX_ATTEMPTS = 3
    settings.NOTIFICATION_RETRY_SECONDS = 60
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {"anon": "100000/minute", "user": "100000/minute"},
    }


@pytest.fixture
def clock() -> Iterator[Any]:
    with time_machine.travel(NOW, tick=False) as traveller:
        yield traveller


@pytest.fixture
def commit(django_capture_on_commit_callbacks: Any) -> Callable[[], AbstractContextManager[Any]]:
    """``with commit(): ...``: what the block queues on commit runs when it ends."""

    def run() -> AbstractContextManager[Any]:
        return django_capture_on_commit_callbacks(execute=True)  # type: ignore[no-any-return]

    return run



