"""Every request gets an id, written on each of its log lines and sent back in
``X-Request-ID``, so that a client's report or a proxy's access log leads to the
lines of that request, and of the tasks it queued (splendor_site.celery carries
the id in their messages).

The id a trusted proxy sends in ``X-Request-ID`` is kept, so that its log and
ours share one id; a trusted proxy is one ``TRUSTED_PROXIES`` names
(api.client_address.from_trusted_proxy). From anyone else the header is
ignored: a client could otherwise write what it likes into the logs, or pass
for another request. A header that is not 1 to 128 visible ASCII characters is
replaced too. Otherwise the id is made here (uuid4, hex).
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse

from api.client_address import from_trusted_proxy
from core.log_context import log_context, request_id_valid

# Light imports only: settings.LOGGING names a filter of this module, loaded
# before the apps are (no api.middleware, which brings DRF).
GetResponse = Callable[[HttpRequest], HttpResponse]

HEADER = "X-Request-ID"
# Where the request keeps its id (an extension key of the WSGI environ), for the
# lines logged about it once the middleware has returned.
ENVIRON_KEY = "splendor.request_id"


def request_id_for(request: HttpRequest) -> str:
    """The proxy's id when the request came through a trusted proxy and the id
    is valid; a new one otherwise."""
    if from_trusted_proxy(request.META.get("REMOTE_ADDR", ""), settings.TRUSTED_PROXIES):
        given = request_id_valid(request.META.get("HTTP_X_REQUEST_ID"))
        if given is not None:
            return given
    return uuid.uuid4().hex


class RequestIdMiddleware:
    """Sets the request's id in the log context while the request is answered and
    echoes it in ``X-Request-ID`` on the response, errors included (Django turns
    an exception below into a response before it gets here)."""

    def __init__(self, get_response: GetResponse) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        request_id = request_id_for(request)
        request.META[ENVIRON_KEY] = request_id
        with log_context(request_id=request_id):
            response = self.get_response(request)
        response[HEADER] = request_id
        return response


class RequestIdOfLoggedRequest(logging.Filter):
    """Django logs a 4xx or 5xx answer ("Not Found: /path") after every middleware
    has returned (django.core.handlers.base.BaseHandler.get_response), out of the
    request's log context; the record carries the request, and its id is taken
    from there. On the django.request logger (settings.LOGGING)."""

    def filter(self, record: logging.LogRecord) -> bool:
        meta = getattr(record.__dict__.get("request"), "META", None)
        if isinstance(meta, dict) and ENVIRON_KEY in meta and "request_id" not in record.__dict__:
            record.request_id = meta[ENVIRON_KEY]
        return True
