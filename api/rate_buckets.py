"""Each process's share of the rate-limit counters, pushed to the shared counter in batches.

``api.throttling`` counts a throttle's requests in fixed windows in a counter that
every process shares (the cache). Adding each request to it costs a round trip to
the cache. Here a process counts its own requests for each key and window and adds
them to the shared counter only now and then, learning the shared count each time:

- every ``batch_size(limit)`` requests of that key (B = 1 + limit // 200: every
  request under a limit of 200 per window, so 30/minute, 120/minute and 5/hour stay
  exact; every 6th at 1,000/minute, every 501st at 100,000/minute);
- whenever its estimate (the shared count it last learnt, plus what it has counted
  since) is within B of the limit, so that near the limit every request is
  pushed and decided on the shared count: a request is never refused on the estimate;
- for the first request of each window (each process starts the window knowing the
  shared count).

A request that pushes is allowed when the shared count the push returned is within the
limit; one that does not push is allowed (its estimate is at least B below the limit).

**The bound.** In a window, the requests allowed are at most the limit plus
``P * (B - 1)``, where P is the number of processes serving that key: each process
holds at most B - 1 allowed requests that the shared count has not seen, and once a
push has shown it the limit passed, every later request of that process pushes. That
is on top of what fixed windows allow anyway (up to twice the limit around the turn
of a window), and holds while the shared counter is kept (a cache that loses it
restarts the count, as it always did). One process alone is exact. Under a limit of
200 per window B is 1 and every process is exact; above it, ``P * (B - 1)`` is at
most P * 0.5% of the limit.

The estimate is never above the true count (every process's requests of the window)
and lags behind it by what other processes counted since this one last pushed: the
RateLimit-Remaining of an allowed request is never below what is left, and is exact
when B is 1.

A process keeps one bucket per key (the current window's; a new window replaces
the old one, whose unpushed requests no longer matter) and at most ``MAX_BUCKETS``
of them: when full, buckets of windows that are over are dropped, and a key that
still finds no room is pushed on every request. The buckets are shared by the
threads of the process under one lock; the cache is never called under it.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

MAX_BUCKETS = 10_000
# B - 1 is this fraction of the limit, rounded down: each process may let through
# at most 0.5% of the limit more than the limit in a window (and none under 200).
BATCH_DIVISOR = 200


def batch_size(limit: int) -> int:
    """B for a limit of ``limit`` requests a window: a push every B requests."""
    return 1 + max(limit, 0) // BATCH_DIVISOR


@dataclass(slots=True)
class _Bucket:
    window: int
    window_end: float
    known: int = 0  # the shared count this process last learnt, this window
    pending: int = 0  # counted here, not yet pushed
    inflight: int = 0  # being pushed now (by other threads)
    fresh: bool = True  # no push begun yet this window


@dataclass(frozen=True, slots=True)
class Ticket:
    """What one request's count asks of the throttle.

    ``push`` requests (this one among them) are to be added to the shared counter,
    and ``settle`` called with the count that came back; 0: the request is
    counted here alone, its count is ``estimate``, and it is within the limit."""

    push: int
    estimate: int
    bucket: _Bucket | None


class LocalBuckets:
    def __init__(self, max_buckets: int = MAX_BUCKETS) -> None:
        self._max = max_buckets
        self._buckets: dict[tuple[str, int, int], _Bucket] = {}
        self._lock = threading.Lock()
        self._next_sweep = 0.0

    def __len__(self) -> int:
        return len(self._buckets)

    def count(self, key: str, *, limit: int, duration: int, now: float) -> Ticket:
        """Count one request of ``key`` (limit requests per duration seconds) at ``now``."""
        window = int(now // duration)
        batch = batch_size(limit)
        # The rate is part of the bucket's name: a key whose rate changes (settings
        # overridden) starts again rather than inherit counts made under another.
        name = (key, limit, duration)
        with self._lock:
            bucket = self._buckets.get(name)
            if bucket is None or bucket.window < window or bucket.window > window + 1:
                if bucket is None and len(self._buckets) >= self._max and not self._sweep(now):
                    return Ticket(push=1, estimate=0, bucket=None)
                bucket = _Bucket(window=window, window_end=(window + 1) * duration)
                self._buckets[name] = bucket
            elif bucket.window != window:
                # A request of the window just ended that arrives after another thread
                # began the next one: pushed to its own window's counter, no bucket.
                return Ticket(push=1, estimate=0, bucket=None)
            bucket.pending += 1
            estimate = bucket.known + bucket.inflight + bucket.pending
            if bucket.fresh or bucket.pending + bucket.inflight >= batch or estimate > limit - batch:
                push, bucket.pending, bucket.fresh = bucket.pending, 0, False
                bucket.inflight += push
                return Ticket(push=push, estimate=estimate, bucket=bucket)
            return Ticket(push=0, estimate=estimate, bucket=bucket)

    def settle(self, ticket: Ticket, shared: int | None) -> None:
        """The push of ``ticket`` is over: ``shared`` is the count it returned (None:
        it failed without one)."""
        bucket = ticket.bucket
        if bucket is None or ticket.push == 0:
            return
        with self._lock:
            bucket.inflight -= ticket.push
            # Pushes of one window may return out of order; the count only grows in a
            # window, so the highest is the latest.
            if shared is not None and shared > bucket.known:
                bucket.known = shared

    def clear(self) -> None:
        with self._lock:
            self._buckets.clear()

    def _sweep(self, now: float) -> bool:
        """Drop the buckets whose window is not the current one; whether room was made.
        (Called under the lock, when full, at most once per window that ends.)"""
        if now < self._next_sweep:
            return False
        self._buckets = {
            name: bucket
            for name, bucket in self._buckets.items()
            if bucket.window_end - name[2] <= now < bucket.window_end
        }
        soonest = min((bucket.window_end for bucket in self._buckets.values()), default=now)
        self._next_sweep = soonest if len(self._buckets) >= self._max else 0.0
        return len(self._buckets) < self._max
