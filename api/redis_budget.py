"""Each request's time budget for Redis (core.redis_budget), set around the whole
answer: the rate limits, the stream's publish and the outbox's queueing after
commit all pay from it."""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse

from core.redis_budget import redis_budget_end, redis_budget_start

GetResponse = Callable[[HttpRequest], HttpResponse]


class RedisBudgetMiddleware:
    """Gives each request REDIS_REQUEST_BUDGET_SECONDS to wait on Redis in all."""

    def __init__(self, get_response: GetResponse) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        token = redis_budget_start(settings.REDIS_REQUEST_BUDGET_SECONDS)
        try:
            return self.get_response(request)
        finally:
            redis_budget_end(token)
