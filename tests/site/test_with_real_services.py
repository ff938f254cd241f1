"""What only a real PostgreSQL or Redis can show. Left out (and reported) without them."""

import os
import re
import threading
import time
from datetime import UTC, datetime

import pytest
import time_machine
from django.core import mail
from django.db import connection, connections

from accounts.services import signup_start, signup_verify


@pytest.mark.postgres
@pytest.mark.django_db
def test_the_suite_really_runs_on_postgresql_when_asked():
    assert connection.vendor == "postgresql"


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_two_concurrent_verifications_with_one_code_activate_once(settings):
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    signup_start(username="hal", email="hal@example.com", password="a long and unusual passphrase")
    code = re.search(r"^\s+([2-9A-Z]{10})$", mail.outbox[-1].body, re.MULTILINE).group(1)
    barrier = threading.Barrier(2)
    outcomes: list[str] = []

    def attempt() -> None:
        try:
            barrier.wait()
            signup_verify(username="hal", code=code)
            outcomes.append("ok")
        except Exception as exc:  # the loser's error is the point of the test
            outcomes.append(type(exc).__name__)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=attempt) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert sorted(outcomes) == ["VerificationError", "ok"]


@pytest.mark.redis
@pytest.mark.django_db
def test_healthz_checks_a_real_redis_broker(client, settings):
    settings.CELERY_BROKER_URL = os.environ["REDIS_URL"]
    response = client.get("/healthz")
    assert response.status_code == 200, response.json()
    assert response.json()["checks"]["broker"] == {"state": "up", "required": False}


@pytest.mark.redis
@pytest.mark.django_db
@pytest.mark.urls("tests.site.urls")
def test_rate_limits_count_in_a_shared_redis_cache(client, settings):
    from django.core.cache import caches

    settings.CACHES = {
        "default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": os.environ["REDIS_URL"]}
    }
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {"anon": "2/minute", "user": "9/minute"}}
    cache = caches["default"]
    assert cache.__class__.__name__ == "RedisCache"  # the throttles use this same default cache
    cache.clear()
    # Mid-minute and frozen, so that the three requests fall in one window.
    try:
        with time_machine.travel(datetime(2026, 3, 1, 12, 0, 30, tzinfo=UTC), tick=False):
            statuses = [client.get("/api/test/echo/").status_code for _ in range(3)]
            # One counter per fixed window, named by the window's number (minutes since the epoch).
            counted = cache.get(f"throttle_anon_127.0.0.1_{int(time.time()) // 60}")
    finally:
        cache.clear()
    assert statuses == [200, 200, 429]
    assert counted == 3  # the refused request is counted too
