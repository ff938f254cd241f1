"""What only a real PostgreSQL or Redis can show. Left out (and reported) without them."""

import os
import re
import secrets
import subprocess
import sys
import threading
import time
from datetime import UTC, datetime
from pathlib import Path

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
    signup_start(username="hal", email="hal@example.com", password="a long and unusual passphrase", client="192.0.2.1")
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
def test_rate_limits_count_in_a_shared_redis_cache(client, settings, redis_cache):
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {"anon": "2/minute", "user": "9/minute"}}
    from django.core.cache import caches

    assert caches["default"] is redis_cache  # the throttles use this same default cache
    # Mid-minute and frozen, so that the three requests fall in one window.
    with time_machine.travel(datetime(2026, 3, 1, 12, 0, 30, tzinfo=UTC), tick=False):
        statuses = [client.get("/api/test/echo/").status_code for _ in range(3)]
        # One counter per fixed window, named by the window's number (minutes since the epoch).
        counted = redis_cache.get(f"throttle_anon_127.0.0.1_{int(time.time()) // 60}")
    assert statuses == [200, 200, 429]
    assert counted == 3  # the refused request is counted too


@pytest.mark.redis
def test_the_redis_tests_leave_every_key_they_did_not_write(tmp_path):
    """REDIS_URL may name a database that holds a broker's queue or a cache: the
    redis tests, run as anyone runs them, delete only their own keys. A key and a
    queued message written beside them are still there afterwards."""
    import redis

    url = os.environ["REDIS_URL"]
    other = redis.Redis.from_url(url)
    mark = secrets.token_hex(6)
    key, queue = f"bystander-{mark}", f"celery-bystander-{mark}"
    message = b'{"body": "a task waiting for a worker"}'
    other.set(key, b"kept")
    other.lpush(queue, message)
    try:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "DATABASE_URL"))}
        # On a SQLite test database of its own: a second run on this run's PostgreSQL
        # test database would destroy it.
        env["DATABASE_URL"] = f"sqlite:///{tmp_path / 'db.sqlite3'}"
        run = subprocess.run(
            [sys.executable, "-m", "pytest", "-n0", "-p", "no:cacheprovider", "-q", "-m", "redis",
             "-k", "not leave_every_key", str(Path(__file__))],
            cwd=Path(__file__).resolve().parents[2], env=env, capture_output=True, text=True, timeout=300,
        )  # fmt: skip
        assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
        assert re.search(r"\b2 passed\b", run.stdout), run.stdout[-3000:]
        assert other.get(key) == b"kept"
        assert other.lrange(queue, 0, -1) == [message]
    finally:
        other.delete(key, queue)
