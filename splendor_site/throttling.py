"""DRF throttles that also report their state for the RateLimit-* headers.

Rates come from REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"] (env API_THROTTLE_*),
read when a throttle is built rather than when this module is imported, so
`override_settings` works in tests. A view may add its own scope with
`ScopedRateThrottle` and a rate under that scope.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from rest_framework import throttling
from rest_framework.settings import api_settings


@dataclass(frozen=True)
class RateLimitState:
    limit: int
    remaining: int
    reset: int  # seconds until the window has room again


class RateLimitHeadersMixin:
    """Records, on the Django request, the tightest throttle that applied."""

    def get_rate(self) -> str | None:
        scope = getattr(self, "scope", None)
        rates = api_settings.DEFAULT_THROTTLE_RATES
        if scope not in rates:
            return super().get_rate()  # type: ignore[misc]  # raises the usual error
        return rates[scope]

    def allow_request(self, request, view) -> bool:  # type: ignore[no-untyped-def]
        allowed = super().allow_request(request, view)  # type: ignore[misc]
        if getattr(self, "key", None) is not None and self.rate is not None:  # type: ignore[attr-defined]
            self._record(request, allowed)
        return allowed

    def _record(self, request, allowed: bool) -> None:  # type: ignore[no-untyped-def]
        history: list[float] = self.history  # type: ignore[attr-defined]
        limit: int = self.num_requests  # type: ignore[attr-defined]
        duration: int = self.duration  # type: ignore[attr-defined]
        now: float = self.now  # type: ignore[attr-defined]
        remaining = max(0, limit - len(history))
        reset = math.ceil(duration - (now - history[-1])) if history else duration
        state = RateLimitState(limit=limit, remaining=remaining, reset=max(0, reset))
        django_request = getattr(request, "_request", request)
        current: RateLimitState | None = getattr(django_request, "rate_limit", None)
        if current is None or state.remaining < current.remaining:
            django_request.rate_limit = state


class AnonRateThrottle(RateLimitHeadersMixin, throttling.AnonRateThrottle):
    pass


class UserRateThrottle(RateLimitHeadersMixin, throttling.UserRateThrottle):
    pass


class ScopedRateThrottle(RateLimitHeadersMixin, throttling.ScopedRateThrottle):
    pass
