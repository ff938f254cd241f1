"""Every API error is an RFC 9457 problem-details body.

Shape (Content-Type: application/problem+json)::

    {"type": "https://splendor.example/problems/illegal_move/",
     "title": "Illegal move", "status": 409,
     "detail": "red has 3 tokens; taking two needs 4",
     "code": "illegal_move", ...extra members}

`code` is stable snake_case that clients may branch on; `detail` is a sentence a
person can act on. Validation errors add `errors`: {field: [messages]}. `type` is
``{SITE_URL}/problems/<code>/``, a page that says what the code means and what to
do (``api.problem_types``, served by ``api.problem_pages``).

Services raise `core.errors.DomainError`s, which carry no HTTP: `STATUS_FOR_KIND`
maps each error kind to its status code, here and nowhere else. `ProblemError`
is for refusals that only exist at the HTTP edge (a body too large, a token
scope). This module imports no app: the apps' views import it.

`title` and `detail` are in the language of the request (its Accept-Language,
English by default: ``LocaleMiddleware`` activates it and answers with
``Content-Language`` and ``Vary: Accept-Language``); `code`, `type` and the names
of fields and extra members never change.
"""

from __future__ import annotations

import logging
from http import HTTPStatus
from typing import Any

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.utils.translation import gettext, gettext_noop
from rest_framework import exceptions, serializers, status
from rest_framework.response import Response
from rest_framework.views import set_rollback

from api.problem_types import problem_type_url
from core.errors import DomainError, ErrorKind, InvalidInput, field_errors_sentence

logger = logging.getLogger(__name__)

PROBLEM_CONTENT_TYPE = "application/problem+json"

# The one table from a domain error's kind to the HTTP status it is sent with.
STATUS_FOR_KIND: dict[ErrorKind, int] = {
    ErrorKind.INVALID: status.HTTP_400_BAD_REQUEST,
    ErrorKind.UNAUTHENTICATED: status.HTTP_401_UNAUTHORIZED,
    ErrorKind.FORBIDDEN: status.HTTP_403_FORBIDDEN,
    ErrorKind.NOT_FOUND: status.HTTP_404_NOT_FOUND,
    ErrorKind.CONFLICT: status.HTTP_409_CONFLICT,
    ErrorKind.PRECONDITION_FAILED: status.HTTP_412_PRECONDITION_FAILED,
    ErrorKind.NOT_ALLOWED: status.HTTP_422_UNPROCESSABLE_ENTITY,
    ErrorKind.PRECONDITION_REQUIRED: status.HTTP_428_PRECONDITION_REQUIRED,
    ErrorKind.TOO_MANY: status.HTTP_429_TOO_MANY_REQUESTS,
}


def status_for(error: type[DomainError] | DomainError) -> int:
    """The status code a domain error is answered with."""
    return STATUS_FOR_KIND[error.kind]


class ProblemError(exceptions.APIException):
    """Base for errors an app raises on purpose.

    Subclass it with class attributes, e.g.::

        class IllegalMoveError(ProblemError):
            status_code = 409
            code = "illegal_move"
            title = "Illegal move"

        raise IllegalMoveError("red has 3 tokens; taking two needs 4",
                               rule="B-TAKE-2", choices=[...])

    Keyword arguments (and the class attribute `extra`) become extra members of
    the problem body. They must be JSON-serialisable.
    """

    status_code: int = status.HTTP_400_BAD_REQUEST
    code: str = "bad_request"
    title: str = gettext_noop("Bad request")
    default_detail = "The request cannot be carried out."
    extra: dict[str, Any] = {}

    def __init__(
        self,
        detail: str | None = None,
        *,
        code: str | None = None,
        title: str | None = None,
        status_code: int | None = None,
        **extra: Any,
    ) -> None:
        if code is not None:
            self.code = code
        if title is not None:
            self.title = title
        if status_code is not None:
            self.status_code = status_code
        super().__init__(detail, self.code)
        self.extra = {**type(self).extra, **extra}


def problem_body(
    *, status_code: int, code: str, detail: str, title: str | None = None, **extra: Any
) -> dict[str, Any]:
    """A problem body; `title` is a msgid (translated here), `detail` already in words."""
    body: dict[str, Any] = {
        "type": problem_type_url(code),
        "title": gettext(title) if title else _status_title(status_code),
        "status": status_code,
        "detail": detail,
        "code": code,
    }
    for key, value in extra.items():
        body.setdefault(key, value)  # the standard members win over extras
    return body


def problem_response(*, status_code: int, code: str, detail: str, **extra: Any) -> JsonResponse:
    """A plain Django response, for code that runs outside DRF views."""
    return JsonResponse(
        problem_body(status_code=status_code, code=code, detail=detail, **extra),
        status=status_code,
        content_type=PROBLEM_CONTENT_TYPE,
    )


def problem_exception_handler(exc: Exception, context: dict[str, Any]) -> HttpResponse:
    """DRF's EXCEPTION_HANDLER. Never returns None: nothing falls through to an HTML 500."""
    if isinstance(exc, DomainError):
        return domain_error_response(exc)
    if isinstance(exc, exceptions.NotAcceptable):
        # None of the view's renderers suits the Accept header, so DRF would render
        # this with the first of them (YAML, on the schema view): send JSON instead.
        set_rollback()
        return problem_response(status_code=exc.status_code, code="not_acceptable", detail=str(exc.detail))
    if isinstance(exc, Http404):
        exc = exceptions.NotFound()
    elif isinstance(exc, DjangoPermissionDenied):
        exc = exceptions.PermissionDenied()

    if not isinstance(exc, exceptions.APIException):
        logger.exception("Unexpected error in API view %s", _view_name(context), exc_info=exc)
        set_rollback()
        body = problem_body(
            status_code=500,
            code="server_error",
            detail=gettext(SERVER_ERROR),
        )
        return Response(body, status=500, content_type=PROBLEM_CONTENT_TYPE)

    headers: dict[str, str] = {}
    auth_header = getattr(exc, "auth_header", None)  # set by DRF's APIView.handle_exception
    if auth_header:
        headers["WWW-Authenticate"] = auth_header
    wait = getattr(exc, "wait", None)
    if wait:
        headers["Retry-After"] = "%d" % wait

    body = _body_for(exc)
    if wait:
        body.setdefault("retry_after", int(wait))
    set_rollback()
    return Response(body, status=exc.status_code, headers=headers, content_type=PROBLEM_CONTENT_TYPE)


def domain_error_body(exc: DomainError) -> dict[str, Any]:
    """The problem body of a domain error: its code, title, message and fields."""
    status_code = status_for(exc)
    if isinstance(exc, InvalidInput):
        return problem_body(
            status_code=status_code, code=exc.code, title=exc.title, detail=exc.message, errors=exc.errors
        )
    extra = dict(exc.fields)
    if exc.retry_after is not None:
        extra.setdefault("retry_after", exc.retry_after)
    return problem_body(status_code=status_code, code=exc.code, title=exc.title, detail=exc.message, **extra)


def domain_error_response(exc: DomainError) -> Response:
    """A DRF response for a domain error; the transaction is rolled back."""
    headers = {"Retry-After": "%d" % exc.retry_after} if exc.retry_after is not None else {}
    set_rollback()
    return Response(
        domain_error_body(exc), status=status_for(exc), headers=headers, content_type=PROBLEM_CONTENT_TYPE
    )


def _body_for(exc: exceptions.APIException) -> dict[str, Any]:
    if isinstance(exc, ProblemError):
        return problem_body(
            status_code=exc.status_code,
            code=exc.code,
            title=exc.title,
            detail=str(exc.detail),
            **exc.extra,
        )
    if isinstance(exc, exceptions.ValidationError):
        errors = _field_errors(exc.detail)
        return problem_body(
            status_code=exc.status_code,
            code="validation_error",
            title=gettext_noop("Invalid input"),
            detail=field_errors_sentence(errors),
            errors=errors,
        )
    codes = exc.get_codes()
    code = codes if isinstance(codes, str) else exc.default_code
    return problem_body(status_code=exc.status_code, code=code, detail=str(exc.detail))


def _field_errors(detail: Any) -> dict[str, Any]:
    """DRF's error detail as {field: [messages]}; nested serializers keep their nesting."""
    if isinstance(detail, dict):
        return {str(key): _messages(value) for key, value in detail.items()}
    return {"non_field_errors": _messages(detail)}


def _messages(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _messages(v) for k, v in value.items()}
    if isinstance(value, list):
        if any(isinstance(item, (dict, list)) for item in value):
            return [_messages(item) for item in value]
        return [str(item) for item in value]
    return [str(value)]




# HTTP's own names of the statuses the API answers with, as the problem's `title`.
_STATUS_TITLES = {
    400: gettext_noop("Bad Request"),
    401: gettext_noop("Unauthorized"),
    403: gettext_noop("Forbidden"),
    404: gettext_noop("Not Found"),
    405: gettext_noop("Method Not Allowed"),
    406: gettext_noop("Not Acceptable"),
    409: gettext_noop("Conflict"),
    411: gettext_noop("Length Required"),
    412: gettext_noop("Precondition Failed"),
    413: gettext_noop("Request Entity Too Large"),
    415: gettext_noop("Unsupported Media Type"),
    422: gettext_noop("Unprocessable Entity"),
    428: gettext_noop("Precondition Required"),
    429: gettext_noop("Too Many Requests"),
    500: gettext_noop("Internal Server Error"),
    503: gettext_noop("Service Unavailable"),
}

SERVER_ERROR = gettext_noop("Something went wrong on our side. It has been logged; please try again later.")
NOTHING_HERE = gettext_noop("There is nothing at this address.")


def _status_title(status_code: int) -> str:
    try:
        phrase = HTTPStatus(status_code).phrase
    except ValueError:
        return gettext("Error")
    return gettext(phrase) if _STATUS_TITLES.get(status_code) == phrase else phrase


def _view_name(context: dict[str, Any]) -> str:
    view = context.get("view")
    return type(view).__name__ if view is not None else "?"


def is_api_path(request: HttpRequest) -> bool:
    return request.path.startswith("/api/")


# Django's own handlers: API paths get problem details, the rest Django's pages.


def handler404(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    if is_api_path(request):
        return problem_response(status_code=404, code="not_found", detail=gettext(NOTHING_HERE))
    from django.views.defaults import page_not_found

    return page_not_found(request, exception)


def handler500(request: HttpRequest) -> HttpResponse:
    if is_api_path(request):
        return problem_response(
            status_code=500,
            code="server_error",
            detail=gettext(SERVER_ERROR),
        )
    from django.views.defaults import server_error

    return server_error(request)


# The codes any endpoint may answer with, whatever it does: HTTP's own refusals,
# made by DRF, the middleware above or the gunicorn worker (api.gunicorn_workers).
# Each operation in the schema lists the codes particular to it; these are named
# once, in the description of the problem body's `code`.
GENERAL_PROBLEMS: tuple[tuple[int, str, str], ...] = (
    (400, "bad_request", "the request cannot be read as HTTP"),
    (400, "parse_error", "the body is not valid JSON"),
    (403, "forbidden", "refused before it reached the API (a PROXY protocol line, a TLS handshake)"),
    (403, "permission_denied", "not allowed, for a reason no other code names"),
    (404, "not_found", "nothing at this address"),
    (405, "method_not_allowed", "the address does not take that method"),
    (406, "not_acceptable", "the Accept header allows no JSON"),
    (411, "length_required", "a chunked body this server cannot read; send a Content-Length"),
    (413, "payload_too_large", "the body is larger than the limit, given as `limit`"),
    (414, "uri_too_long", "the request line is too long"),
    (415, "unsupported_media_type", "the body is not sent as application/json"),
    (417, "expectation_failed", "an Expect header the server cannot meet"),
    (429, "throttled", "over the rate limit; wait Retry-After seconds"),
    (431, "request_header_fields_too_large", "too many header fields, or one too large"),
    (500, "server_error", "a fault on the server's side, logged there"),
    (501, "not_implemented", "a transfer coding the server does not support"),
)

_CODE_HELP = (
    "Stable snake_case to branch on. Each response lists the codes particular to its endpoint; any endpoint "
    "may also answer "
    + "; ".join(f"{status} `{code}` ({when})" for status, code, when in GENERAL_PROBLEMS)
    + "."
)


class ProblemTypeField(serializers.CharField):
    """The problem's `type`, a URL; in the schema, a component that lists every
    code's URL (``api.openapi.ProblemTypeFieldExtension``)."""


class ProblemSerializer(serializers.Serializer[dict[str, Any]]):
    """The error body, for the OpenAPI schema only."""

    type = ProblemTypeField()
    title = serializers.CharField()
    status = serializers.IntegerField()
    detail = serializers.CharField()
    code = serializers.CharField(help_text=_CODE_HELP)
    # DRF's metaclass moves declared fields off the class, so Serializer.errors
    # stays the property; the stubs cannot know that.
    errors = serializers.DictField(  # type: ignore[assignment]
        required=False,
        help_text="validation_error: the errors by field, each a list of messages; the fields of a nested "
        "object (or the items of a list, by their index) nest the same way.",
    )
    retry_after = serializers.IntegerField(
        required=False, help_text="throttled, too_many_*: seconds to wait (as Retry-After)."
    )
    limit = serializers.IntegerField(required=False, help_text="payload_too_large: the largest body, in bytes.")
    # Each app adds the extension members of its own codes in a subclass.
