"""GET /healthz: liveness and readiness in one answer, for load balancers and operators."""

from __future__ import annotations

import logging

from django.conf import settings
from django.db import connection
from django.http import HttpRequest, JsonResponse
from django.views.decorators.http import require_GET

logger = logging.getLogger(__name__)

BROKER_TIMEOUT_SECONDS = 2


def _check_database() -> str:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        cursor.fetchone()
    return "ok"


def _check_broker() -> str:
    url = settings.CELERY_BROKER_URL
    if url.startswith("memory://"):
        return "ok (in-process broker)"
    from kombu import Connection

    with Connection(url, connect_timeout=BROKER_TIMEOUT_SECONDS) as conn:
        conn.ensure_connection(max_retries=1, timeout=BROKER_TIMEOUT_SECONDS)
    return "ok"


CHECKS = {"database": _check_database, "broker": _check_broker}


@require_GET
def healthz(request: HttpRequest) -> JsonResponse:
    results: dict[str, str] = {}
    healthy = True
    for name, check in CHECKS.items():
        try:
            results[name] = check()
        except Exception as exc:  # any failure means "not ready"; say which kind
            logger.warning("Health check %s failed: %r", name, exc)
            results[name] = f"failed: {type(exc).__name__}"
            healthy = False
    return JsonResponse(
        {"status": "ok" if healthy else "unavailable", "checks": results},
        status=200 if healthy else 503,
        headers={"Cache-Control": "no-store"},
    )
