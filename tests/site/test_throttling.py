"""Rate limits count requests in fixed windows with one cache incr per request."""

from datetime import UTC, datetime, timedelta
from unittest import mock

import pytest
import time_machine
from django.core.cache import cache

from api.throttling import FixedWindowRateThrottle

pytestmark = [pytest.mark.urls("tests.site.urls"), pytest.mark.django_db]

THREE_PER_MINUTE = {"anon": "3/minute", "user": "10/minute"}
# 12:00:45 UTC: 15 seconds before the minute's window ends.
LATE_IN_A_MINUTE = datetime(2026, 3, 1, 12, 0, 45, tzinfo=UTC)


@pytest.fixture
def three_per_minute(settings):
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": THREE_PER_MINUTE}


def test_the_reset_and_retry_after_are_the_seconds_left_in_the_window(client, three_per_minute):
    with time_machine.travel(LATE_IN_A_MINUTE, tick=False):
        answers = [client.get("/api/test/echo/") for _ in range(4)]
    assert [a.status_code for a in answers] == [200, 200, 200, 429]
    assert [a["RateLimit-Remaining"] for a in answers] == ["2", "1", "0", "0"]
    assert {a["RateLimit-Reset"] for a in answers} == {"15"}
    assert answers[-1]["Retry-After"] == "15"
    assert answers[-1].json()["retry_after"] == 15


def test_a_new_window_starts_a_new_count(client, three_per_minute):
    with time_machine.travel(LATE_IN_A_MINUTE, tick=False) as traveller:
        for _ in range(3):
            client.get("/api/test/echo/")
        assert client.get("/api/test/echo/").status_code == 429
        traveller.shift(timedelta(seconds=15))
        fresh = client.get("/api/test/echo/")
    assert fresh.status_code == 200
    assert fresh["RateLimit-Remaining"] == "2" and fresh["RateLimit-Reset"] == "60"


def test_each_throttle_costs_one_cache_incr_per_request_once_its_window_has_begun(client, three_per_minute):
    with time_machine.travel(LATE_IN_A_MINUTE, tick=False):
        client.get("/api/test/echo/")  # begins the windows (incr finds no counter, add makes it)
        with mock.patch.object(FixedWindowRateThrottle, "cache", wraps=cache) as counted:
            client.get("/api/test/echo/")
    # An anonymous caller is counted by the user throttle too (by address, as in DRF).
    assert [call[0] for call in counted.method_calls] == ["incr", "incr"]


class _BrokenCache:
    """A cache whose server has gone away."""

    def incr(self, *args, **kwargs):
        raise ConnectionError("Error 111 connecting to 127.0.0.1:6390. Connection refused.")

    add = incr


def test_a_cache_that_fails_counts_in_the_process_and_never_fails_the_request(client, three_per_minute, caplog):
    from api import throttling

    before = throttling.cache_failures
    throttling._last_warning = 0.0  # the warning is logged at most once a minute per process
    with time_machine.travel(LATE_IN_A_MINUTE, tick=False):
        with mock.patch.object(FixedWindowRateThrottle, "cache", _BrokenCache()):
            answers = [client.get("/api/test/echo/") for _ in range(4)]
    # The limit still holds, counted in this process instead.
    assert [a.status_code for a in answers] == [200, 200, 200, 429]
    assert throttling.cache_failures > before
    assert "counting in this process instead" in caplog.text


def test_x_forwarded_for_from_a_client_does_not_choose_its_rate_limit_bucket(client, three_per_minute):
    with time_machine.travel(LATE_IN_A_MINUTE, tick=False):
        answers = [client.get("/api/test/echo/", HTTP_X_FORWARDED_FOR=f"198.51.100.{i}") for i in range(4)]
    assert [a.status_code for a in answers] == [200, 200, 200, 429]


def test_behind_one_trusted_proxy_the_address_it_saw_is_the_client(client, three_per_minute, settings):
    settings.TRUSTED_PROXIES = 1
    with time_machine.travel(LATE_IN_A_MINUTE, tick=False):
        answers = [client.get("/api/test/echo/", HTTP_X_FORWARDED_FOR=f"198.51.100.{i}") for i in range(4)]
        # A forged hop in front of the proxy's own does not help.
        forged = [
            client.get("/api/test/echo/", HTTP_X_FORWARDED_FOR=f"203.0.113.{i}, 198.51.100.7") for i in range(4)
        ]
    assert [a.status_code for a in answers] == [200, 200, 200, 200]
    assert [a.status_code for a in forged] == [200, 200, 200, 429]
