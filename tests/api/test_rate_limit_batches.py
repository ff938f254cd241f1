"""Rate limits counted in each process and pushed to the shared counter in batches.

A throttle of a scope of its own is asked directly, at a clock the test sets. Each
simulated process is an ``api.rate_buckets.LocalBuckets`` of its own; all of them
push to one cache that records what it is asked.
"""

from __future__ import annotations

import random
import threading
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import pytest
from django.core.cache.backends.locmem import LocMemCache

from api import throttling
from api.rate_buckets import LocalBuckets, batch_size
from api.throttling import FixedWindowRateThrottle

# 12:00:30 UTC on 2026-03-01: mid-minute, in seconds since the epoch.
MID_MINUTE = 1_772_366_430.0


class SharedCache:
    """The one cache the processes share: a process-local cache that records each
    push that reached it (an ``incr`` that found the counter, an ``add`` that made it)."""

    def __init__(self) -> None:
        self.inner = LocMemCache(f"shared-{id(self)}", {})
        self.calls: list[str] = []
        self.pushes: list[int] = []

    def incr(self, key: str, delta: int = 1) -> int:
        self.calls.append("incr")
        value = int(self.inner.incr(key, delta))
        self.pushes.append(delta)
        return value

    def add(self, key: str, value: int, timeout: int) -> bool:
        self.calls.append("add")
        added = bool(self.inner.add(key, value, timeout=timeout))
        if added:
            self.pushes.append(value)
        return added

    def get(self, key: str) -> Any:
        return self.inner.get(key)

    def delete(self, key: str) -> None:
        self.inner.delete(key)


class Clock:
    now = MID_MINUTE


clock = Clock()


class BurstThrottle(FixedWindowRateThrottle):
    """One counter per caller, at the rate of the `burst` scope, on the test's clock."""

    scope = "burst"

    def get_cache_key(self, request: Any, view: Any) -> str:
        return f"throttle_burst_{request.caller}"

    def timer(self) -> float:
        return clock.now


class Process:
    """One web process: its own buckets, the shared cache."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.buckets = LocalBuckets()
        self._monkeypatch = monkeypatch

    def ask(self, caller: str = "alice") -> tuple[bool, int]:
        """One request: whether it is allowed, and the count it was told (the
        RateLimit-Remaining it gets is the limit minus that)."""
        self._monkeypatch.setattr(throttling, "buckets", self.buckets)
        throttle = BurstThrottle()
        allowed = throttle.allow_request(SimpleNamespace(caller=caller), None)
        return allowed, throttle.count


@pytest.fixture
def shared(monkeypatch: pytest.MonkeyPatch) -> SharedCache:
    cache = SharedCache()
    monkeypatch.setattr(BurstThrottle, "cache", cache)
    return cache


@pytest.fixture
def rate(settings: Any) -> Iterator[Any]:
    def set_rate(value: str) -> None:
        settings.REST_FRAMEWORK = {
            **settings.REST_FRAMEWORK,
            "DEFAULT_THROTTLE_RATES": {**settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "burst": value},
        }

    clock.now = MID_MINUTE
    yield set_rate
    clock.now = MID_MINUTE


def counter(shared: SharedCache, caller: str = "alice") -> Any:
    return shared.get(f"throttle_burst_{caller}_{int(clock.now // 60)}")


def test_the_batch_grows_with_the_limit_and_is_one_under_two_hundred_a_window() -> None:
    assert [batch_size(limit) for limit in (1, 5, 30, 120, 199)] == [1, 1, 1, 1, 1]
    assert [batch_size(limit) for limit in (200, 1_000, 100_000, 1_000_000)] == [2, 6, 501, 5_001]


def test_a_burst_under_a_large_limit_reaches_the_cache_once_a_batch(shared, rate, monkeypatch) -> None:
    rate("10000/minute")
    b = batch_size(10_000)  # 51
    process = Process(monkeypatch)
    answers = [process.ask() for _ in range(10 * b)]

    assert all(allowed for allowed, _ in answers)
    # The window's first request, then every B-th: 10 pushes for 510 requests, not 510.
    assert len(shared.pushes) == 1 + (10 * b - 1) // b == 10
    assert shared.pushes == [1] + [b] * 9
    assert counter(shared) == sum(shared.pushes) == 10 * b - (b - 1)
    # One process alone counts exactly: each answer's count is its place in the window.
    assert [count for _, count in answers] == list(range(1, 10 * b + 1))


def test_under_two_hundred_a_window_every_request_is_pushed(shared, rate, monkeypatch) -> None:
    rate("120/minute")
    process = Process(monkeypatch)
    answers = [process.ask() for _ in range(121)]
    assert shared.pushes == [1] * 121
    assert [allowed for allowed, _ in answers] == [True] * 120 + [False]


def test_near_the_limit_every_request_is_pushed(shared, rate, monkeypatch) -> None:
    rate("1000/minute")
    b = batch_size(1_000)  # 6
    process = Process(monkeypatch)
    for _ in range(1_000 - b):
        process.ask()
    pushes_before = len(shared.pushes)
    answers = [process.ask() for _ in range(b + 2)]
    assert len(shared.pushes) == pushes_before + b + 2
    assert [allowed for allowed, _ in answers] == [True] * b + [False, False]
    assert [count for _, count in answers] == list(range(1_001 - b, 1_003))


def _overshoot_bound_holds(shared: SharedCache, processes: list[Process], schedule: list[int], limit: int) -> int:
    allowed = sum(processes[p].ask()[0] for p in schedule)
    b = batch_size(limit)
    assert limit <= allowed <= limit + len(processes) * (b - 1)
    return allowed


def test_two_processes_sharing_one_counter_let_through_at_most_p_times_b_minus_one_more(
    shared, rate, monkeypatch
) -> None:
    rate("1000/minute")
    b = batch_size(1_000)
    for seed in range(20):
        shared.inner.clear()
        processes = [Process(monkeypatch), Process(monkeypatch)]
        chooser = random.Random(seed)
        schedule = [chooser.choice((0, 1)) for _ in range(1_400)]
        _overshoot_bound_holds(shared, processes, schedule, 1_000)

    # The worst order for the bound: A holds B - 1 unpushed requests while B fills the
    # counter; A's requests then land over the limit.
    shared.inner.clear()
    a, other = Process(monkeypatch), Process(monkeypatch)
    schedule = [0] * b + [1] * 1_100 + [0] * 10
    allowed = _overshoot_bound_holds(shared, [a, other], schedule, 1_000)
    assert allowed == 1_000 + (b - 1)  # the overshoot is real, and within the bound


def test_a_refusal_is_decided_on_the_count_the_cache_returned(shared, rate, monkeypatch) -> None:
    rate("1000/minute")
    a, other = Process(monkeypatch), Process(monkeypatch)
    a.ask()  # a knows the count is 1
    for _ in range(1_000):
        other.ask()
    # a's estimate is 2, far below the limit; the counter is past it. a goes on
    # counting alone until its batch is full, then pushes and refuses.
    pushes = len(shared.pushes)
    answers = [a.ask() for _ in range(batch_size(1_000))]
    assert [allowed for allowed, _ in answers[:-1]] == [True] * (batch_size(1_000) - 1)
    assert answers[-1][0] is False and answers[-1][1] > 1_000
    assert len(shared.pushes) == pushes + 1

    # And the other way round: a process whose estimate is over the limit asks the
    # cache before refusing (here the counter was lost, so the request is allowed).
    shared.inner.clear()
    assert a.ask() == (True, 1)
    assert len(shared.pushes) == pushes + 2


def test_every_refused_request_pushed_first(shared, rate, monkeypatch) -> None:
    rate("400/minute")
    processes = [Process(monkeypatch), Process(monkeypatch), Process(monkeypatch)]
    chooser = random.Random(7)
    refused = []
    for _ in range(600):
        pushes = len(shared.pushes)
        allowed, count = processes[chooser.randrange(3)].ask()
        if not allowed:
            refused.append((len(shared.pushes) - pushes, count))
    assert len(refused) >= 600 - 400 - 3 * 2  # past the limit and its overshoot, every request is refused
    assert all(pushed == 1 and count > 400 for pushed, count in refused), refused


def test_a_new_window_starts_with_a_push_that_learns_what_the_other_processes_counted(
    shared, rate, monkeypatch
) -> None:
    rate("10000/minute")
    a, other = Process(monkeypatch), Process(monkeypatch)
    for _ in range(5):
        a.ask()  # one push, then four counted in a only
    assert counter(shared) == 1

    clock.now += 60  # the next window
    for _ in range(7):
        other.ask()
    assert counter(shared) == 1  # other pushed its first request, and holds 6
    pushes = len(shared.pushes)
    allowed, count = a.ask()
    # a's four unpushed requests of the old window are dropped, not carried over; its
    # first request of the new window is pushed and told the shared count.
    assert allowed and count == 2 and counter(shared) == 2
    assert shared.pushes[pushes:] == [1]


def test_a_failing_cache_counts_the_batches_in_the_process(rate, monkeypatch) -> None:
    class DownCache:
        calls = 0

        def incr(self, *args: Any, **kwargs: Any) -> int:
            DownCache.calls += 1
            raise ConnectionError("Error 111 connecting to 127.0.0.1:6390. Connection refused.")

        add = incr

    rate("1000/minute")
    monkeypatch.setattr(BurstThrottle, "cache", DownCache())
    failures = throttling.cache_failures
    process = Process(monkeypatch)
    fallback_key = f"throttle_burst_carol_{int(clock.now // 60)}"
    throttling._fallback.delete(fallback_key)
    try:
        answers = [process.ask("carol") for _ in range(1_010)]
    finally:
        throttling._fallback.delete(fallback_key)
    # Counted in the process: the limit holds there, and only a push tries the cache
    # (once each: the first window push, then one per batch, then each request near the limit).
    assert [allowed for allowed, _ in answers] == [True] * 1_000 + [False] * 10
    assert DownCache.calls == throttling.cache_failures - failures < 1_010 // 2


def test_the_buckets_are_bounded_and_ended_windows_make_room() -> None:
    buckets = LocalBuckets(max_buckets=3)
    for caller in "abc":
        buckets.count(caller, limit=10_000, duration=60, now=MID_MINUTE)
    assert len(buckets) == 3
    # Full, and every bucket is of this window: a fourth caller is pushed each time.
    late = buckets.count("d", limit=10_000, duration=60, now=MID_MINUTE)
    assert late.push == 1 and late.bucket is None and len(buckets) == 3
    # In the next window the old buckets are dropped to make room.
    ticket = buckets.count("d", limit=10_000, duration=60, now=MID_MINUTE + 60)
    assert ticket.bucket is not None and len(buckets) == 1


def test_threads_counting_one_key_lose_no_request() -> None:
    buckets = LocalBuckets()
    shared = [0]
    lock = threading.Lock()
    start = threading.Barrier(8)

    def serve() -> None:
        start.wait()
        for _ in range(500):
            ticket = buckets.count("k", limit=10_000, duration=60, now=MID_MINUTE)
            if ticket.push:
                with lock:
                    shared[0] += ticket.push
                    count = shared[0]
                buckets.settle(ticket, count)

    threads = [threading.Thread(target=serve) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    bucket = buckets._buckets[("k", 10_000, 60)]
    # Every request is either in the shared count or waiting in the bucket; nothing
    # is left in flight, and the bucket learnt the highest count pushed.
    assert shared[0] + bucket.pending == 8 * 500
    assert bucket.inflight == 0 and bucket.pending < batch_size(10_000)
    assert bucket.known == shared[0]


def test_while_a_batch_is_on_its_way_the_key_s_other_requests_are_pushed_too() -> None:
    # Threads of one process: what one of them is pushing has not been seen by the
    # shared count yet, so it counts against the B - 1 a process may hold unseen.
    buckets = LocalBuckets()
    b = batch_size(10_000)
    first = buckets.count("k", limit=10_000, duration=60, now=MID_MINUTE)
    buckets.settle(first, 1)
    tickets = [buckets.count("k", limit=10_000, duration=60, now=MID_MINUTE) for _ in range(b)]
    assert [ticket.push for ticket in tickets] == [0] * (b - 1) + [b]
    during = buckets.count("k", limit=10_000, duration=60, now=MID_MINUTE)  # tickets[-1] not settled yet
    assert during.push == 1 and during.estimate == 1 + b + 1
    buckets.settle(tickets[-1], 1 + b)
    after = buckets.count("k", limit=10_000, duration=60, now=MID_MINUTE)
    assert after.push == 0


def test_pushes_that_come_back_out_of_order_leave_the_highest_count() -> None:
    buckets = LocalBuckets()
    ticket = buckets.count("k", limit=100, duration=60, now=MID_MINUTE)
    later = buckets.count("k", limit=100, duration=60, now=MID_MINUTE)  # B is 1: pushed too
    assert ticket.push == 1 and later.push == 1
    buckets.settle(later, 2)
    buckets.settle(ticket, 1)  # the older push's answer arrives last
    assert buckets.count("k", limit=100, duration=60, now=MID_MINUTE).estimate == 3


@pytest.mark.redis
def test_on_redis_a_push_is_one_round_trip_and_the_counter_ends_a_second_after_its_window(
    redis_cache, rate, monkeypatch
) -> None:
    import redis

    rate("5/minute")
    monkeypatch.setattr(BurstThrottle, "cache", redis_cache)
    process = Process(monkeypatch)
    process.ask("warm-up")  # the connection is made (and greets the server) here
    sent: list[Any] = []
    original = redis.connection.AbstractConnection.send_packed_command

    def counted(self: Any, command: Any, check_health: bool = True) -> None:
        sent.append(command)
        original(self, command, check_health)

    monkeypatch.setattr(redis.connection.AbstractConnection, "send_packed_command", counted)
    answers = [process.ask("dave") for _ in range(6)]

    assert [allowed for allowed, _ in answers] == [True] * 5 + [False]
    assert len(sent) == 6  # INCRBY and EXPIRE sent together, once per request (B is 1)
    key = redis_cache.make_key(f"throttle_burst_dave_{int(clock.now // 60)}")
    client = redis_cache._cache.get_client(key)
    assert counter(redis_cache, "dave") == 6  # a plain integer, as the cache reads it
    assert 0 < client.ttl(key) <= 30 + 1  # 12:00:30 on the clock: the window ends in 30 s
