"""GET /healthz: each dependency's state, for load balancers and operators.

The database is required: without it nothing can be read or played, so the
answer is 503. The cache only holds rate-limit counters (they fall back to a
count per process) and the broker only carries notifications (the outbox keeps
them until it is back), so either being down makes the answer "degraded" but
still 200: the service keeps taking moves. docs/operations.md says the same.
The beat is reported too, from the deadline sweep's last run (games.models.PeriodicRun):
"late" once it, and beat's own last start, are older than BEAT_STALE_SECONDS, which
makes the answer "degraded": missed deadlines wait until the beat and a worker run again.

The answer comes within half a second whatever Redis does: the cache and the
broker are checked side by side in threads of their own, and one that has not
answered within OPTIONAL_CHECKS_SECONDS is reported down ("Timeout") without
being waited for. (A hung Redis accepts connections and never answers: each
check's own timeouts end it later, in its thread.) The database is checked in
the request's thread, as Django's connections belong to the thread that opened them.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass

from django.conf import settings
from django.core.cache import cache
from django.db import connection
from django.http import HttpRequest, JsonResponse
from django.utils import timezone
from django.views.decorators.http import require_GET

from api import throttling
from core import metrics

logger = logging.getLogger(__name__)


def _check_database() -> str:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        cursor.fetchone()
    return "up"


def _check_cache() -> str:
    backend = settings.CACHES["default"]["BACKEND"]
    cache.set("healthz", "1", timeout=10)
    if cache.get("healthz") != "1":
        raise ConnectionError("the cache did not keep a value")
    return "up (in-process)" if backend.endswith("LocMemCache") else "up"


def _check_broker() -> str:
    url = settings.CELERY_BROKER_URL
    if url.startswith("memory://"):
        return "up (in-process)"
    from kombu import Connection

    timeout = min(settings.BROKER_TIMEOUT_SECONDS, OPTIONAL_CHECKS_SECONDS)
    options = {"socket_timeout": timeout, "socket_connect_timeout": timeout, "max_retries": 0}
    with Connection(url, connect_timeout=timeout, transport_options=options) as conn:
        # One try (the answer does not wait for a second). The stubs say int, after
        # kombu's docstring; kombu compares it with elapsed float seconds.
        conn.ensure_connection(max_retries=0, timeout=timeout)  # type: ignore[arg-type]
    return "up"


def _beat_state() -> dict[str, object]:
    """Whether the deadline sweep runs: "late" once its last run, and beat's own
    last start (core.metrics.BEAT_START), are both older than BEAT_STALE_SECONDS
    (deadlines are not being enforced: the beat or every worker is down). A beat
    just restarted is given that long for its first sweep, however old the last
    sweep of its run before. "never" before the first sweep of a site whose beat
    has not started, or started a moment ago."""
    try:
        runs = metrics.beat_last_runs()
    except Exception as exc:  # the database answered the check above; say so and go on
        logger.warning("Health check beat failed: %r", exc)
        return {"state": "unknown", "required": False, "error": type(exc).__name__}
    now = timezone.now()
    last, started = runs.get("deadline_sweep"), runs.get(metrics.BEAT_START)
    ages: dict[str, object] = {}
    if last is not None:
        ages["last_sweep_age_seconds"] = max(0, round((now - last).total_seconds()))
    if started is not None:
        ages["beat_started_age_seconds"] = max(0, round((now - started).total_seconds()))
    if last is None and started is None:
        return {"state": "never", "required": False}
    since = max(moment for moment in (last, started) if moment is not None)
    stale: int = settings.BEAT_STALE_SECONDS
    if (now - since).total_seconds() > stale:
        return {
            "state": "late", "required": False, **ages,
            "meanwhile": "missed deadlines wait: nobody times out until the beat and a worker run",
        }
    return {"state": "up" if last is not None else "never", "required": False, **ages}


@dataclass(frozen=True)
class Check:
    run: Callable[[], str]
    required: bool
    when_down: str  # what the service does without it


CHECKS = {
    "database": Check(_check_database, True, "nothing can be read or played"),
    "cache": Check(_check_cache, False, "rate limits are counted in each process"),
    "broker": Check(_check_broker, False, "notifications wait in the outbox and go out when it is back"),
}


# How long the answer waits for the cache and the broker, together.
OPTIONAL_CHECKS_SECONDS = 0.3
# Threads for those checks, shared by the requests of this process: a hung Redis
# holds each for its checks' own timeouts (at most a second), so a few suffice,
# and a burst of health checks queues here instead of starting threads without end.
_checker = ThreadPoolExecutor(max_workers=4, thread_name_prefix="healthz")


@require_GET
def healthz(request: HttpRequest) -> JsonResponse:
    results: dict[str, dict[str, object]] = {}
    required_down = optional_down = False
    started = time.monotonic()
    pending: dict[str, Future[str]] = {
        name: _checker.submit(check.run) for name, check in CHECKS.items() if not check.required
    }
    for name, check in CHECKS.items():
        try:
            if name in pending:
                left = OPTIONAL_CHECKS_SECONDS - (time.monotonic() - started)
                try:
                    state = pending[name].result(timeout=max(left, 0.0))
                except FutureTimeout:
                    raise TimeoutError(f"no answer within {OPTIONAL_CHECKS_SECONDS:g} s") from None
            else:
                state = check.run()
            results[name] = {"state": state, "required": check.required}
        except Exception as exc:  # any failure means "down"; say which kind, not the secrets in it
            logger.warning("Health check %s failed: %r", name, exc)
            results[name] = {
                "state": "down",
                "required": check.required,
                "error": type(exc).__name__,
                "meanwhile": check.when_down,
            }
            if check.required:
                required_down = True
            else:
                optional_down = True
    results["cache"]["rate_limit_fallbacks"] = throttling.cache_failures
    if not required_down:
        results["beat"] = _beat_state()
        optional_down = optional_down or results["beat"]["state"] == "late"
    status = "unavailable" if required_down else "degraded" if optional_down else "ok"
    return JsonResponse(
        {"status": status, "checks": results},
        status=503 if required_down else 200,
        headers={"Cache-Control": "no-store"},
    )
