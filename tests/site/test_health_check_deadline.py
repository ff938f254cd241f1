"""/healthz answers within half a second whatever Redis does: a Redis that takes
connections and never answers (here a listener that does just that, as both the
cache and the broker) is reported down without holding the answer."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest

from tests.e2e_support.processes import SilentListener

pytestmark = pytest.mark.django_db

HEALTH_DEADLINE = 0.5  # what docs/operations.md promises


@pytest.fixture
def hung_redis(settings: Any) -> Iterator[SilentListener]:
    listener = SilentListener()
    shared = settings.CACHES
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": listener.url(1),
            "OPTIONS": {"socket_connect_timeout": 0.25, "socket_timeout": 0.25, "retry_on_timeout": False},
        }
    }
    settings.CELERY_BROKER_URL = listener.url(0)
    try:
        yield listener
    finally:
        settings.CACHES = shared  # before the suite's cache teardown, which must not reach the listener
        listener.close()


def test_the_health_check_answers_within_its_deadline_when_redis_takes_connections_and_never_answers(
    client: Any, hung_redis: SilentListener, settings: Any
) -> None:
    # Publishing may be allowed to wait longer; the health check still may not.
    settings.BROKER_TIMEOUT_SECONDS = 2.0
    for _ in range(3):  # a second and third ask while the first one's checks may still be waiting
        started = time.monotonic()
        answer = client.get("/healthz")
        took = time.monotonic() - started

        assert answer.status_code == 200
        body = answer.json()
        assert body["status"] == "degraded"
        assert body["checks"]["database"]["state"] == "up"
        assert body["checks"]["cache"]["state"] == "down" and body["checks"]["broker"]["state"] == "down"
        assert took < 3 * HEALTH_DEADLINE, took
    assert hung_redis.held, "the checks never reached the listener"


def test_a_check_that_has_not_answered_in_time_is_reported_as_a_timeout(
    client: Any, settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from api import health

    never = health.Check(lambda: time.sleep(5) or "up", False, "nothing is lost")  # type: ignore[func-returns-value]
    monkeypatch.setitem(health.CHECKS, "broker", never)
    started = time.monotonic()
    body = client.get("/healthz").json()

    assert time.monotonic() - started < 3 * HEALTH_DEADLINE
    assert body["checks"]["broker"] == {
        "state": "down", "required": False, "error": "TimeoutError", "meanwhile": "nothing is lost",
    }  # fmt: skip
