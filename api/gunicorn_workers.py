"""A gunicorn sync worker whose own error answers are problem details, not HTML.

gunicorn answers a request it cannot parse (a request line over
``--limit-request-line``, a malformed request line, too many or too large
headers, ...) itself, before Django sees anything, with a small HTML page. This
worker answers the same cases with the same status codes, but with an RFC 9457
body like every other API error (see ``api.problems``)::

    HTTP/1.1 414 URI Too Long
    Content-Type: application/problem+json

    {"type": "https://splendor.example/problems/uri_too_long/", "title": "URI Too Long",
     "status": 414, "detail": "The request line is longer than 4094 bytes, the most accepted.",
     "code": "uri_too_long"}

Use it with::

    gunicorn splendor_site.wsgi --worker-class api.gunicorn_workers.ProblemJsonSyncWorker

The mapping from gunicorn's exceptions to status codes mirrors
``gunicorn.workers.base.Worker.handle_error`` (gunicorn 27.0): its client
errors keep their status, anything else is a 500 ``server_error``; the
warnings, tracebacks and access-log lines are those gunicorn writes. The
arbiter imports this module before Django is set up, so nothing of Django is
imported here at module level: the ``type`` URL (``api.problem_types``, on
``SITE_URL``) is made when an error is answered.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime
from http import HTTPStatus
from ssl import SSLError
from typing import Any

# gunicorn ships no type information.
from gunicorn import util  # type: ignore[import-untyped]
from gunicorn.http import errors  # type: ignore[import-untyped]
from gunicorn.http.wsgi import Response, default_environ  # type: ignore[import-untyped]
from gunicorn.workers.sync import SyncWorker  # type: ignore[import-untyped]

from core.text import counted  # plain Python: safe before Django is set up

PROBLEM_CONTENT_TYPE = "application/problem+json"
# settings.SITE_URL's default, for a worker whose application is not this site's.
DEFAULT_SITE_URL = "http://127.0.0.1:8000"
# Client text quoted in `detail` is cut to this many characters.
QUOTE_LIMIT = 120

SERVER_ERROR_DETAIL = "Something went wrong on our side. It has been logged; please try again later."


def _quoted(exc: BaseException, attribute: str) -> str:
    """The client's text that ``exc`` refused, quoted and cut short."""
    value = getattr(exc, attribute, None)
    text = repr(value) if value is not None else str(exc)
    return text if len(text) <= QUOTE_LIMIT else text[:QUOTE_LIMIT] + "…"


def _request_line_detail(exc: BaseException) -> str:
    # gunicorn stops reading at a buffer boundary: its `size` is how far it read, not the length.
    limit = getattr(exc, "max_size", None)
    if isinstance(limit, int):
        return f"The request line is longer than {counted(limit, 'byte')}, the most accepted."
    return "The request line is too long."


# Titles as gunicorn and RFC 9110 name them (Python 3.11's HTTPStatus says "Request-URI Too Long").
TITLES = {
    400: "Bad Request",
    403: "Forbidden",
    414: "URI Too Long",
    417: "Expectation Failed",
    431: "Request Header Fields Too Large",
    500: "Internal Server Error",
    501: "Not Implemented",
}

# (exception classes, status, code, detail), first match wins. Mirrors gunicorn's
# handle_error; the response-header errors come first because they subclass the
# request-header ones but are the application's fault (500, like gunicorn). Like
# gunicorn, an error not listed here (InvalidProxyHeader among them) is a 500.
Rule = tuple[tuple[type[BaseException], ...], int, str, Callable[[BaseException], str]]
RULES: tuple[Rule, ...] = (
    (
        (errors.InvalidResponseHeader, errors.InvalidResponseHeaderName),
        500,
        "server_error",
        lambda exc: SERVER_ERROR_DETAIL,
    ),
    (
        (errors.InvalidRequestLine,),
        400,
        "bad_request",
        lambda exc: f"The request line is not valid HTTP: {_quoted(exc, 'req')}.",
    ),
    (
        (errors.InvalidRequestMethod,),
        400,
        "bad_request",
        lambda exc: f"The request method is not valid: {_quoted(exc, 'method')}.",
    ),
    (
        (errors.InvalidHTTPVersion,),
        400,
        "bad_request",
        lambda exc: f"The HTTP version is not supported: {_quoted(exc, 'version')}.",
    ),
    (
        (errors.UnsupportedTransferCoding,),
        501,
        "not_implemented",
        lambda exc: f"The transfer coding is not supported: {_quoted(exc, 'hdr')}.",
    ),
    ((errors.ConfigurationProblem,), 500, "server_error", lambda exc: SERVER_ERROR_DETAIL),
    (
        (errors.ObsoleteFolding, errors.InvalidHeaderName, errors.InvalidHeader),
        400,
        "bad_request",
        lambda exc: f"A request header is not valid: {_quoted(exc, 'hdr')}.",
    ),
    ((errors.LimitRequestLine,), 414, "uri_too_long", _request_line_detail),
    (
        (errors.ExpectationFailed,),
        417,
        "expectation_failed",
        lambda exc: f"The Expect header cannot be met: {_quoted(exc, 'expect')}.",
    ),
    (
        (errors.LimitRequestHeaders,),
        431,
        "request_header_fields_too_large",
        lambda exc: "The request has too many header fields, or one that is too large.",
    ),
    (
        (errors.InvalidProxyLine,),
        400,
        "bad_request",
        lambda exc: f"The PROXY protocol line is not valid: {_quoted(exc, 'line')}.",
    ),
    (
        (errors.ForbiddenProxyRequest,),
        403,
        "forbidden",
        lambda exc: "PROXY protocol requests are not allowed from this address.",
    ),
    (
        (errors.InvalidSchemeHeaders,),
        400,
        "bad_request",
        lambda exc: "The request's scheme headers contradict each other.",
    ),
    (
        (errors.InvalidChunkSize, errors.ChunkMissingTerminator, errors.InvalidChunkExtension),
        400,
        "bad_request",
        lambda exc: f"The chunked request body is malformed: {_quoted(exc, '')}.",
    ),
    (
        (errors.InvalidH2CPreface,),
        400,
        "bad_request",
        lambda exc: "The request is not a valid HTTP/2 connection preface.",
    ),
    ((SSLError,), 403, "forbidden", lambda exc: "The TLS handshake failed."),
)


def classify(exc: BaseException) -> tuple[int, str, str]:
    """The status, code and detail gunicorn's error ``exc`` is answered with."""
    for classes, status, code, detail in RULES:
        if isinstance(exc, classes):
            return status, code, detail(exc)
    return 500, "server_error", SERVER_ERROR_DETAIL


def _title(status: int) -> str:
    return TITLES.get(status) or HTTPStatus(status).phrase


def _type_url(code: str) -> str:
    try:
        from django.conf import settings

        if settings.configured:
            from api.problem_types import problem_type_url

            return problem_type_url(code)
    except Exception:  # noqa: BLE001 - an error answer must not fail on the way out
        pass
    return f"{DEFAULT_SITE_URL}/problems/{code}/"


def problem_body_bytes(status: int, code: str, detail: str) -> bytes:
    """The problem details, as JSON: the members of ``api.problems.problem_body``."""
    problem = {
        "type": _type_url(code),
        "title": _title(status),
        "status": status,
        "detail": detail,
        "code": code,
    }
    return json.dumps(problem, ensure_ascii=True).encode("ascii")


def problem_response_bytes(status: int, body: bytes) -> bytes:
    """A complete HTTP/1.1 response carrying ``body``; the connection closes after it."""
    reason = _title(status)
    head = (
        f"HTTP/1.1 {status} {reason}\r\n"
        "Connection: close\r\n"
        f"Content-Type: {PROBLEM_CONTENT_TYPE}\r\n"
        f"Content-Length: {len(body)}\r\n"
        "Cache-Control: no-store\r\n"
        "\r\n"
    )
    return head.encode("latin-1") + body


class ProblemJsonSyncWorker(SyncWorker):  # type: ignore[misc]  # SyncWorker is Any to mypy
    """gunicorn's sync worker, answering its own errors with problem details."""

    def handle_error(self, req: Any, client: Any, addr: Any, exc: BaseException) -> None:
        request_start = datetime.now()
        addr = addr or ("", -1)  # a unix socket
        status, code, detail = classify(exc)
        if status == 500:
            if hasattr(req, "uri") and hasattr(req, "method"):
                self.log.exception("Error handling request %s %s", req.method, req.uri)
            elif hasattr(req, "uri"):
                self.log.exception("Error handling request %s", req.uri)
            else:
                self.log.exception("Error handling request (no URI read)")
        else:
            if isinstance(exc, (errors.InvalidHeaderName, errors.InvalidHeader)) and not req:
                req = getattr(exc, "req", None) or req  # for the access log, as gunicorn does
            self.log.warning(f"Invalid request from ip={addr[0]}: {exc}")

        body = problem_body_bytes(status, code, detail)
        if req is not None:
            environ = default_environ(req, client, self.cfg)
            environ["REMOTE_ADDR"] = addr[0]
            environ["REMOTE_PORT"] = str(addr[1])
            resp = Response(req, client, self.cfg)
            resp.status = f"{status} {_title(status)}"
            resp.response_length = len(body)
            self.log.access(resp, req, environ, datetime.now() - request_start)
        try:
            util.write_nonblock(client, problem_response_bytes(status, body))
        except Exception:  # noqa: BLE001 - the client may be gone already
            self.log.debug("Failed to send error message.")
