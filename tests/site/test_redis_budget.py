"""One time budget for Redis per request, one circuit per Redis server (core.redis_budget).

The servers here are a listener that takes connections and never answers (a hung
Redis, tests.e2e_support.processes.SilentListener) and port 1, where nothing
listens (a stopped one); the circuits' clock is a fake one the tests move on.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import redis

from core import redis_budget
from core.redis_budget import (
    RedisBudgetSpent,
    RedisCircuitOpen,
    connection_class_for,
    redis_budget_remaining,
    redis_circuit_allows,
    redis_circuit_failed,
    redis_circuit_is_open,
    redis_circuit_succeeded,
    redis_server_of,
)
from tests.e2e_support.processes import SilentListener

TIMEOUT = 0.5  # each client's own timeouts, as BROKER_TIMEOUT_SECONDS


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch, settings: Any) -> FakeClock:
    settings.REDIS_CIRCUIT_OPEN_SECONDS = 5.0
    fake = FakeClock()
    monkeypatch.setattr(redis_budget, "clock", fake)
    return fake


@pytest.fixture
def hung() -> Iterator[SilentListener]:
    listener = SilentListener()
    try:
        yield listener
    finally:
        listener.close()


@pytest.fixture
def connects(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The servers a budgeted connection opened a socket to, in order."""
    tried: list[str] = []
    real: Any = redis_budget.BudgetedConnection._connect

    def counting(connection: Any) -> Any:
        tried.append(connection._host_error())
        return real(connection)

    monkeypatch.setattr(redis_budget.BudgetedConnection, "_connect", counting)
    return tried


@pytest.fixture
def timeouts(monkeypatch: pytest.MonkeyPatch) -> list[tuple[float, float]]:
    """The (connect, read) timeouts of each socket a budgeted connection opened."""
    seen: list[tuple[float, float]] = []
    real: Any = redis_budget.BudgetedConnection._connect

    def recording(connection: Any) -> Any:
        seen.append((connection.socket_connect_timeout, connection.socket_timeout))
        return real(connection)

    monkeypatch.setattr(redis_budget.BudgetedConnection, "_connect", recording)
    return seen


def client(url: str) -> redis.Redis:
    return redis.Redis.from_url(
        url, socket_timeout=TIMEOUT, socket_connect_timeout=TIMEOUT, connection_class=connection_class_for(url)
    )


def failure(call: Any) -> type[BaseException]:
    with pytest.raises(redis.RedisError) as raised:
        call()
    return raised.type


# --- the budget --------------------------------------------------------------------


def test_outside_a_request_there_is_no_budget_and_a_call_waits_its_own_timeouts(
    hung: SilentListener, timeouts: list[tuple[float, float]]
) -> None:
    assert redis_budget_remaining() is None
    assert failure(lambda: client(hung.url()).publish("news", "1")) is redis.TimeoutError
    assert timeouts == [(TIMEOUT, TIMEOUT)]


def test_within_a_budget_a_call_waits_what_is_left_of_it_and_a_timeout_spends_it_all(
    hung: SilentListener, timeouts: list[tuple[float, float]]
) -> None:
    with redis_budget.redis_budget(0.15):
        assert failure(lambda: client(hung.url()).publish("news", "1")) is redis.TimeoutError
        assert redis_budget_remaining() == 0.0
    assert len(timeouts) == 1
    connect_timeout, read_timeout = timeouts[0]
    assert 0.1 < connect_timeout <= 0.15 and 0.1 < read_timeout <= 0.15


def test_two_hung_servers_in_one_request_share_one_budget(connects: list[str]) -> None:
    first, second = SilentListener(), SilentListener()
    try:
        with redis_budget.redis_budget(0.3):
            kind_one = failure(lambda: client(first.url()).publish("news", "1"))
            kind_two = failure(lambda: client(second.url()).publish("news", "1"))
    finally:
        first.close()
        second.close()
    # The first server took the whole budget; the second is not even tried.
    assert kind_one is redis.TimeoutError and kind_two is RedisBudgetSpent
    assert connects == [redis_server_of(first.url())]


def test_a_spent_budget_refuses_at_once_and_leaves_the_server_s_circuit_closed(
    clock: FakeClock, connects: list[str]
) -> None:
    url = "redis://127.0.0.1:1/0"
    with redis_budget.redis_budget(0.0):
        assert failure(lambda: client(url).publish("news", "1")) is RedisBudgetSpent
    assert connects == []
    assert not redis_circuit_is_open(redis_server_of(url))


@pytest.mark.redis
def test_a_healthy_server_costs_the_budget_only_the_time_its_answers_took(settings: Any) -> None:
    with redis_budget.redis_budget(0.5):
        assert client(settings.REDIS_URL).ping() is True
        left = redis_budget_remaining()
    assert left is not None and 0.0 < left < 0.5


# --- the circuit -------------------------------------------------------------------


def test_a_refused_connection_opens_the_server_s_circuit_and_the_next_calls_fail_at_once(
    clock: FakeClock, connects: list[str]
) -> None:
    url = "redis://127.0.0.1:1/0"
    assert failure(lambda: client(url).publish("news", "1")) is redis.ConnectionError
    assert connects == ["127.0.0.1:1"]
    assert redis_circuit_is_open("127.0.0.1:1")

    # Another client, another database on the same server: the same circuit, no new try.
    assert failure(lambda: client("redis://127.0.0.1:1/3").incr("counter")) is RedisCircuitOpen
    assert connects == ["127.0.0.1:1"]


def test_a_hung_server_opens_its_circuit_for_every_use_in_the_process(
    clock: FakeClock, hung: SilentListener, connects: list[str]
) -> None:
    with redis_budget.redis_budget(0.5):
        assert failure(lambda: client(hung.url(0)).publish("news", "1")) is redis.TimeoutError
    assert redis_circuit_is_open(redis_server_of(hung.url())) and len(connects) == 1
    # Outside any request too, and on another database of the server: not tried.
    assert failure(lambda: client(hung.url(1)).get("key")) is RedisCircuitOpen
    assert len(connects) == 1


def test_the_circuit_of_one_server_leaves_the_others_alone(clock: FakeClock) -> None:
    redis_circuit_failed("cache.example:6379")
    assert not redis_circuit_allows("cache.example:6379")
    assert redis_circuit_allows("broker.example:6379")


def test_after_the_open_period_one_call_tries_the_server_and_the_others_still_wait(clock: FakeClock) -> None:
    redis_circuit_failed("cache.example:6379")
    clock.now += 4.9
    assert not redis_circuit_allows("cache.example:6379")
    clock.now += 0.2
    assert redis_circuit_allows("cache.example:6379")  # the trial
    assert not redis_circuit_allows("cache.example:6379")  # while it is out


def test_a_trial_that_succeeds_closes_the_circuit(clock: FakeClock) -> None:
    redis_circuit_failed("cache.example:6379")
    clock.now += 5.1
    assert redis_circuit_allows("cache.example:6379")
    redis_circuit_succeeded("cache.example:6379")
    assert not redis_circuit_is_open("cache.example:6379")
    assert redis_circuit_allows("cache.example:6379") and redis_circuit_allows("cache.example:6379")


def test_a_trial_that_fails_opens_the_circuit_for_another_period(clock: FakeClock) -> None:
    redis_circuit_failed("cache.example:6379")
    clock.now += 5.1
    assert redis_circuit_allows("cache.example:6379")
    redis_circuit_failed("cache.example:6379")
    clock.now += 4.9
    assert not redis_circuit_allows("cache.example:6379")
    clock.now += 0.2
    assert redis_circuit_allows("cache.example:6379")


def test_the_open_period_is_a_setting(clock: FakeClock, settings: Any) -> None:
    settings.REDIS_CIRCUIT_OPEN_SECONDS = 30.0
    redis_circuit_failed("cache.example:6379")
    clock.now += 29.0
    assert not redis_circuit_allows("cache.example:6379")
    clock.now += 1.1
    assert redis_circuit_allows("cache.example:6379")


@pytest.mark.redis
def test_a_server_that_answers_again_is_used_again_after_the_open_period(clock: FakeClock, settings: Any) -> None:
    server = redis_server_of(settings.REDIS_URL)
    redis_circuit_failed(server)
    with pytest.raises(RedisCircuitOpen):
        client(settings.REDIS_URL).ping()
    clock.now += 5.1
    assert client(settings.REDIS_URL).ping() is True
    assert not redis_circuit_is_open(server)


def test_a_server_is_named_by_host_and_port_whatever_the_database() -> None:
    assert redis_server_of("redis://127.0.0.1:6380/2") == "127.0.0.1:6380"
    assert redis_server_of("rediss://:secret@cache.example/0") == "cache.example:6379"
    assert redis_server_of("unix:///run/redis.sock?db=1") == "/run/redis.sock"


# --- settings and wiring -----------------------------------------------------------


def test_the_budget_and_the_open_period_come_from_the_environment() -> None:
    from tests.site.test_settings_from_environment import settings_of

    names = ("REDIS_REQUEST_BUDGET_SECONDS", "REDIS_CIRCUIT_OPEN_SECONDS")
    assert settings_of(*names) == {"REDIS_REQUEST_BUDGET_SECONDS": 0.5, "REDIS_CIRCUIT_OPEN_SECONDS": 5.0}
    found = settings_of(*names, REDIS_REQUEST_BUDGET_SECONDS="1.5", REDIS_CIRCUIT_OPEN_SECONDS="20")
    assert found == {"REDIS_REQUEST_BUDGET_SECONDS": 1.5, "REDIS_CIRCUIT_OPEN_SECONDS": 20.0}


@pytest.mark.parametrize("value", ["soon", "0", "-1", "31"])
def test_start_up_stops_on_a_budget_that_is_no_number_of_seconds_up_to_thirty(value: str) -> None:
    from tests.site.test_settings_from_environment import run_manage

    result = run_manage("check", REDIS_REQUEST_BUDGET_SECONDS=value)
    assert result.returncode != 0
    assert f"REDIS_REQUEST_BUDGET_SECONDS={value!r}" in result.stderr


@pytest.mark.django_db
def test_every_request_is_given_the_budget_and_nothing_outside_one(settings: Any, monkeypatch: Any) -> None:
    from django.core.cache import cache

    from tests.games.game_helpers import client_for, make_player

    seen: list[float | None] = []
    def counted(*args: Any, **kwargs: Any) -> int:
        seen.append(redis_budget_remaining())
        return 1

    monkeypatch.setattr(cache, "incr", counted)
    settings.REDIS_REQUEST_BUDGET_SECONDS = 0.4
    assert client_for(make_player("alice")).get("/api/v1/me/").status_code == 200
    assert seen and seen[0] == 0.4  # the rate limit counted within the request's budget
    assert redis_budget_remaining() is None


def test_the_cache_the_stream_and_the_broker_publish_through_budgeted_connections() -> None:
    from splendor_site.celery import BudgetedRedisTransport, app
    from streams import bus
    from tests.site.test_settings_from_environment import run_manage

    shown = run_manage(
        "shell", "-c",
        "from django.conf import settings; print(settings.CACHES['default']['OPTIONS']['connection_class'].__name__)",
        CACHE_URL="redis://cache.example:6379/1",
    )  # fmt: skip
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.strip().splitlines()[-1] == "BudgetedConnection"
    assert connection_class_for("rediss://cache.example/1") is redis_budget.BudgetedSSLConnection

    publisher = bus._client("redis://stream.example:6379/0")
    assert publisher.connection_pool.connection_class is redis_budget.BudgetedConnection

    writing: Any = app.connection_for_write("redis://broker.example:6379/0").transport_cls
    assert writing is BudgetedRedisTransport
    assert BudgetedRedisTransport.Channel.connection_class is redis_budget.BudgetedConnection
    # The worker's consumer waits on the broker by design: no budget and no circuit there.
    reading: Any = app.connection_for_read("redis://broker.example:6379/0").transport_cls
    assert reading == "redis"
