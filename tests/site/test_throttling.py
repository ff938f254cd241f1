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
