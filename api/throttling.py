"""DRF throttles counted in fixed windows, reporting their state for the RateLimit-* headers.

DRF's own throttles keep the list of request times of the last window in the
cache and read it and write it back on every request: two cache round trips
and the whole list pickled each way. These count requests in fixed windows
(a minute for N/minute, aligned to the clock) in one counter per window in the
cache. A client may send up to twice the limit around the turn of a window; in
exchange the count costs the same however high the limit is.

Each process counts its own requests and adds them to the shared counter in
batches (``api.rate_buckets``): every B = 1 + limit // 200 requests of a key, near
the limit, and at the first request of each window, learning the shared count each
time; a request is refused only on a count that came back from the cache. So a
window lets through at most ``P * (B - 1)`` requests over the limit, P being the
number of processes serving that client: none under a limit of 200 per window (the
default 30/minute, 120/minute and 5/hour: every request is counted in the cache,
exactly as before), 0.5% of the limit per process above it (5 per process at
1,000/minute). A push is one round trip to Redis (INCRBY and EXPIRE in one
pipeline, where Django's ``incr`` took two: EXISTS, then INCRBY) or, with any
other cache, its ``incr``/``add``.

The cache is not needed to serve: when it is down or slow (its timeouts are a
fraction of a second, settings.CACHE_TIMEOUT_SECONDS, and no more than the
request has left of its Redis budget) the push goes to a cache private to the
process, a warning is logged (once a minute at most) and ``cache_failures`` counts
it for /healthz. Limits then hold per process. A cache that timed out is not asked
again for REDIS_CIRCUIT_OPEN_SECONDS (core.redis_budget): the pushes meanwhile
count in the process at once.

Anonymous callers are told apart by ``api.client_address``, which believes
X-Forwarded-For only from the proxies in settings.TRUSTED_PROXIES.

Rates come from REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"] (env API_THROTTLE_*),
read when a throttle is built rather than when this module is imported, so
`override_settings` works in tests. A view may add its own scope with
`ScopedRateThrottle` and a rate under that scope.
"""

from __future__ import annotations

import logging
import math
import time
import weakref
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from django.core.cache import DEFAULT_CACHE_ALIAS, caches
from django.core.cache import cache as default_cache
from django.core.cache.backends.base import BaseCache
from django.core.cache.backends.locmem import LocMemCache
from django.core.cache.backends.redis import RedisCache
from rest_framework import throttling
from rest_framework.settings import api_settings

from api.client_address import client_address
from api.rate_buckets import LocalBuckets

if TYPE_CHECKING:
    # Not at run time: rest_framework.views reads DEFAULT_THROTTLE_CLASSES, which
    # names the throttles in this module, as it is imported.
    from rest_framework.request import Request
    from rest_framework.views import APIView

logger = logging.getLogger(__name__)

# Counts in this process when the shared cache fails.
_fallback: BaseCache = LocMemCache("throttle-fallback", {"OPTIONS": {"MAX_ENTRIES": 10_000}})
cache_failures = 0  # since the process started; shown by /healthz
_last_warning = 0.0
# This process's requests not yet added to the shared counters (api.rate_buckets).
buckets = LocalBuckets()


def _cache_failed(exc: Exception) -> None:
    global cache_failures, _last_warning
    cache_failures += 1
    now = time.monotonic()
    if now - _last_warning >= 60:
        _last_warning = now
        logger.warning(
            "rate-limit cache unavailable (%s: %s); counting in this process instead", type(exc).__name__, exc
        )


@dataclass(frozen=True)
class RateLimitState:
    limit: int
    remaining: int
    reset: int  # seconds until the window has room again


class FixedWindowRateThrottle(throttling.SimpleRateThrottle):
    """SimpleRateThrottle's rates, scopes and cache keys, counted in fixed windows."""

    count: int = 0
    window_end: float = 0.0
    # Set by SimpleRateThrottle.__init__ from parse_rate(): None exactly when
    # `rate` is. The stubs leave them out.
    num_requests: int | None
    duration: int | None

    def get_ident(self, request: Request) -> str:
        """The caller's address; X-Forwarded-For only from trusted proxies."""
        return client_address(request._request)

    def get_rate(self) -> str | None:
        scope: str | None = getattr(self, "scope", None)
        # The stubs call the rates numbers; DRF's rates are "N/period" strings.
        rates: Mapping[str, str | None] = api_settings.DEFAULT_THROTTLE_RATES  # type: ignore[assignment]
        if scope is None or scope not in rates:
            return super().get_rate()  # raises the usual error
        return rates[scope]

    def allow_request(self, request: Request, view: APIView) -> bool:
        if self.rate is None or self.num_requests is None or self.duration is None:
            return True
        self.key = self.get_cache_key(request, view)
        if self.key is None:
            return True
        self.now = self.timer()
        window = int(self.now // self.duration)
        self.window_end = (window + 1) * self.duration
        ticket = buckets.count(self.key, limit=self.num_requests, duration=self.duration, now=self.now)
        if not ticket.push:  # counted here; well within the limit
            self.count = ticket.estimate
            return True
        shared: int | None = None
        try:
            # The counter outlives its window by a second, so it never expires
            # while it is still counting.
            timeout = math.ceil(self.window_end - self.now) + 1
            shared = self._push(f"{self.key}_{window}", ticket.push, timeout=timeout)
        finally:
            buckets.settle(ticket, shared)
        self.count = shared
        return shared <= self.num_requests

    def _push(self, key: str, requests: int, *, timeout: int) -> int:
        """Add ``requests`` (this one among them) to the window's counter and return
        the new count.

        Refused requests count too; that changes nothing, as the window ends
        when it ends.
        """
        try:
            return _incr(self.cache, key, requests, timeout=timeout)
        except Exception as exc:  # any failure of the shared cache: count here instead
            _cache_failed(exc)
            return _incr(_fallback, key, requests, timeout=timeout)

    def wait(self) -> float:
        """Seconds until the window ends and the count starts again."""
        return max(self.window_end - self.now, 0.0)


def _incr(cache: BaseCache, key: str, delta: int, *, timeout: int) -> int:
    backend = caches[DEFAULT_CACHE_ALIAS] if cache is default_cache else cache
    if isinstance(backend, RedisCache):
        return _incr_redis(backend, key, delta, timeout=timeout)
    try:
        return int(cache.incr(key, delta))
    except ValueError:  # the window's first push here (or an unknown key)
        pass
    if cache.add(key, delta, timeout=timeout):
        return delta
    return int(cache.incr(key, delta))  # another process started the window first


# One redis.Redis per cache: Django's cache makes a new one for every call, and its
# table of reply callbacks (some 170 entries) with it, which cost more CPU than the
# round trip. The connection pool behind it is the cache's own.
_redis_clients: weakref.WeakKeyDictionary[Any, Any] = weakref.WeakKeyDictionary()


def _incr_redis(cache: RedisCache, key: str, delta: int, *, timeout: int) -> int:
    """INCRBY and EXPIRE in one round trip (Django's ``incr`` asks EXISTS first).
    The counter is a plain integer, as the cache itself stores one."""
    full_key = cache.make_and_validate_key(key)
    backend = cache._cache
    client = _redis_clients.get(backend)
    if client is None:
        client = _redis_clients[backend] = backend.get_client(full_key, write=True)
    pipeline = client.pipeline(transaction=False)
    pipeline.incrby(full_key, delta)
    pipeline.expire(full_key, timeout)
    count, _ = pipeline.execute()
    return int(count)


class RateLimitHeadersMixin(FixedWindowRateThrottle):
    """Records, on the Django request, the tightest throttle that applied.

    Listed first in each throttle below, so its class order stays: this, DRF's
    throttle (the cache key), FixedWindowRateThrottle (the counting)."""

    def allow_request(self, request: Request, view: APIView) -> bool:
        allowed = super().allow_request(request, view)
        if getattr(self, "key", None) is not None and self.rate is not None and self.num_requests is not None:
            self._record(request, limit=self.num_requests)
        return allowed

    def _record(self, request: Request, *, limit: int) -> None:
        count = self.count
        reset = math.ceil(self.window_end - self.now)
        state = RateLimitState(limit=limit, remaining=max(0, limit - count), reset=max(0, reset))
        django_request = getattr(request, "_request", request)
        current: RateLimitState | None = getattr(django_request, "rate_limit", None)
        if current is None or state.remaining < current.remaining:
            setattr(django_request, "rate_limit", state)  # read back by api.middleware


class AnonRateThrottle(RateLimitHeadersMixin, throttling.AnonRateThrottle, FixedWindowRateThrottle):
    pass


class UserRateThrottle(RateLimitHeadersMixin, throttling.UserRateThrottle, FixedWindowRateThrottle):
    pass


class ScopedRateThrottle(RateLimitHeadersMixin, throttling.ScopedRateThrottle, FixedWindowRateThrottle):
    pass
