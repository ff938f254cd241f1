"""GET /metrics (Prometheus text format), for the operator's scraper only, and the
HTTP metrics of every request.

Who may read it: a caller that sends ``Authorization: Bearer <METRICS_TOKEN>``, or
one whose connection comes from METRICS_ALLOWED_NETWORKS (REMOTE_ADDR itself:
X-Forwarded-For is never believed here, so a client behind the same proxy cannot
pass for it). A connection from one of TRUSTED_PROXIES is opened by the token
only, never by the networks: whatever the proxy passes on comes from that
address, whoever sent it. With neither setting, nobody may (loopback included).
Anyone else gets the same 404 problem as a page that does not exist: the route is
not advertised.
"""

from __future__ import annotations

import hmac
import ipaddress
import time
from collections.abc import Callable, Iterable

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.views.decorators.http import require_GET
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest
from prometheus_client.metrics_core import Metric
from prometheus_client.multiprocess import MultiProcessCollector
from prometheus_client.registry import REGISTRY, Collector

from api.client_address import from_trusted_proxy
from api.problems import problem_response
from core import metrics


def _token_sent(request: HttpRequest) -> bool:
    token: str = settings.METRICS_TOKEN
    header = request.headers.get("Authorization", "")
    if not token or not header.startswith("Bearer "):
        return False
    return hmac.compare_digest(header[len("Bearer "):].strip().encode(), token.encode())


def _allowed(request: HttpRequest) -> bool:
    if _token_sent(request):
        return True
    remote_addr = request.META.get("REMOTE_ADDR", "")
    try:
        address = ipaddress.ip_address(remote_addr)
    except ValueError:
        return False
    if from_trusted_proxy(remote_addr, settings.TRUSTED_PROXIES):
        return False  # the proxy's address is everyone's who comes through it
    return any(address in network for network in settings.METRICS_ALLOWED_NETWORKS)


class _ScrapeCollectors(Collector):
    """The gauges the apps read from the database when scraped."""

    def __init__(self, collectors: Iterable[Callable[[], Iterable[Metric]]]) -> None:
        self._collectors = list(collectors)

    def collect(self) -> Iterable[Metric]:
        for collector in self._collectors:
            yield from collector()


def metrics_text() -> bytes:
    """Every metric of the machine's processes, and the database's gauges; every
    series of a fixed set of labels among them, at 0 until counted."""
    metrics.series_start()
    if metrics.multiproc_dir:
        registry = CollectorRegistry()
        MultiProcessCollector(registry, path=metrics.multiproc_dir)  # type: ignore[no-untyped-call]  # untyped
    else:
        registry = REGISTRY
    text = generate_latest(registry)
    scraped = CollectorRegistry()
    scraped.register(_ScrapeCollectors(metrics.scrape_collectors()))
    return text + generate_latest(scraped)


@require_GET
def metrics_view(request: HttpRequest) -> HttpResponse:
    if not _allowed(request):
        return problem_response(status_code=404, code="not_found", detail="There is nothing at this address.")
    return HttpResponse(metrics_text(), content_type=CONTENT_TYPE_LATEST, headers={"Cache-Control": "no-store"})


class HttpMetricsMiddleware:
    """Counts every answer by route name, method and status class, and times it.
    Routes are the URL patterns' names (``games-detail``), never the path: a path
    holds game ids and usernames. A request no pattern matched is ``unmatched``."""

    METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        started = time.perf_counter()
        response = self.get_response(request)
        elapsed = time.perf_counter() - started
        match = request.resolver_match
        route = (match.view_name or "unnamed") if match is not None else "unmatched"
        method = request.method if request.method in self.METHODS else "other"
        metrics.HTTP_REQUESTS.labels(route, method, metrics.status_class(response.status_code)).inc()
        metrics.HTTP_DURATION.labels(route, method).observe(elapsed)
        return response
