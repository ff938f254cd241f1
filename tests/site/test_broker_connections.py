"""The site's connections to the broker.

Publishing waits on the broker for BROKER_TIMEOUT_SECONDS at most, the
connection and every read alike, while the worker's consumer keeps its longer
read timeout: a hung Redis (here a listener that takes connections and never
answers) costs a request that queues a task half a second, not five. And a
worker's channel whose connection is gone fails with a connection error, which
Celery recovers from, not an AttributeError, which ends the worker."""

from __future__ import annotations

from typing import Any

import pytest
from kombu import Connection

from tests.e2e_support.processes import SilentListener
from tests.site.test_settings_from_environment import run_manage

BROKER_TIMEOUT = 0.5

SHOW_TIMEOUTS = (
    "from splendor_site.celery import app; "
    "w = app.connection_for_write().transport_options; r = app.connection_for_read().transport_options; "
    "print(w['socket_connect_timeout'], w['socket_timeout'], r['socket_timeout'])"
)

PUBLISH_ONCE = (
    "import time; from splendor_site.celery import app\n"
    "started = time.monotonic()\n"
    "try:\n"
    "    app.send_task('games.tasks.sweep_deadlines', retry=False)\n"
    "    outcome = 'sent'\n"
    "except Exception as exc:\n"
    "    outcome = type(exc).__name__\n"
    "print(outcome, round(time.monotonic() - started, 3))\n"
)


def _shell(code: str, broker_url: str) -> str:
    result = run_manage("shell", "-c", code, CELERY_BROKER_URL=broker_url, CELERY_TASK_ALWAYS_EAGER="false")
    assert result.returncode == 0, result.stderr
    return result.stdout.strip().splitlines()[-1]


def test_publishing_connections_wait_on_the_broker_no_longer_than_its_timeout_and_consumers_longer() -> None:
    assert _shell(SHOW_TIMEOUTS, "redis://127.0.0.1:6379/0") == "0.5 0.5 5.0"


def test_publishing_to_a_broker_that_never_answers_fails_within_its_timeout() -> None:
    listener = SilentListener()
    try:
        outcome, took = _shell(PUBLISH_ONCE, listener.url(0)).split()
    finally:
        listener.close()
    assert outcome == "OperationalError"
    assert float(took) < 3 * BROKER_TIMEOUT, took


def test_a_channel_whose_connection_was_collected_fails_with_a_connection_error_celery_recovers_from() -> None:
    from kombu.transport import redis as kombu_redis

    import splendor_site.celery  # noqa: F401  (importing the app puts the check in place)

    connection = Connection("redis://127.0.0.1:1/0")  # nothing is connected to
    channel: Any = object.__new__(kombu_redis.Channel)
    channel.connection = connection.transport
    channel.connection.client = None  # what the consumer's Connection.collect() leaves on a broker loss

    with pytest.raises(connection.connection_errors):
        channel._connparams()


def test_a_publishing_channel_sends_every_message_through_one_client_per_pool() -> None:
    import redis

    from splendor_site.celery import BudgetedRedisTransport

    # Nothing is connected to: building a client and a pool sends no command.
    channel: Any = object.__new__(BudgetedRedisTransport.Channel)
    channel.Client = redis.Redis
    channel._pool = redis.ConnectionPool(host="127.0.0.1", port=1)
    with channel.conn_or_acquire() as first, channel.conn_or_acquire() as second:
        assert first is second and first.connection_pool is channel._pool
    channel._pool = redis.ConnectionPool(host="127.0.0.1", port=1)  # its pools let go of and made anew
    with channel.conn_or_acquire() as third:
        assert third is not first and third.connection_pool is channel._pool
    given = redis.Redis(connection_pool=channel._pool)
    with channel.conn_or_acquire(given) as client:
        assert client is given
