"""Small request/response adapters that must wrap every view, DRF or not.

Some of them answer before ``LocaleMiddleware`` has read the request (or replace
the answer it marked): those problems are written in the request's language and
say so as it would (``_in_request_language``, ``_language_kept``)."""

from __future__ import annotations

import io
import logging
from collections.abc import Callable
from typing import TypeVar

from django.conf import settings
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.urls import Resolver404, resolve
from django.utils import translation
from django.utils.cache import patch_vary_headers
from django.utils.translation import gettext, gettext_noop, ngettext

from api.problems import is_api_path, problem_response

logger = logging.getLogger(__name__)

GetResponse = Callable[[HttpRequest], HttpResponse]


View = TypeVar("View", bound=Callable[..., object])


def body_limit(size: int) -> Callable[[View], View]:
    """Let a view (a function, or an APIView class) take bodies of up to ``size``
    bytes where that is more than DATA_UPLOAD_MAX_MEMORY_SIZE: a request whose
    whole content is needed at once and may be larger (a player's notes, replaced
    whole). ``BodySizeLimitMiddleware`` reads such a body itself."""

    def mark(view: View) -> View:
        view.body_limit = size  # type: ignore[attr-defined]
        return view

    return mark


def _route_body_limit(request: HttpRequest, limit: int) -> int:
    """The body limit of the view ``request`` goes to: ``limit``, or more where the
    view says so (``body_limit``). Looked up only for a body past ``limit``."""
    try:
        view = resolve(request.path_info).func
    except Resolver404:
        return limit
    allowed = getattr(view, "body_limit", None) or getattr(getattr(view, "view_class", None), "body_limit", None)
    return max(limit, allowed) if isinstance(allowed, int) else limit


class BodySizeLimitMiddleware:
    """Answer 413 before a view reads a body larger than DATA_UPLOAD_MAX_MEMORY_SIZE
    (or the larger limit its view declares with ``body_limit``).

    Django only enforces that limit when the body is read, and then as a 400; a
    client deserves to hear plainly that its body was too large.
    """

    def __init__(self, get_response: GetResponse) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        try:
            length = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            length = 0  # as Django itself does with a malformed header
        if limit is not None and length > limit:
            allowed = _route_body_limit(request, limit)
            if length > allowed:
                return _in_request_language(request, lambda: _too_large(length, allowed))
            # Within the view's own limit: read here, for Django's body would refuse
            # anything past DATA_UPLOAD_MAX_MEMORY_SIZE when the view reads it.
            request._body = request.read()
            return self.get_response(request)
        if "chunked" in request.META.get("HTTP_TRANSFER_ENCODING", "").lower() and not request.META.get(
            "CONTENT_LENGTH"
        ):
            refused = _in_request_language(request, lambda: _read_chunked_body(request, limit))
            if refused is not None:
                return refused
        return self.get_response(request)


def _bytes(n: int) -> str:
    return ngettext("%(n)d byte", "%(n)d bytes", n) % {"n": n}


def _too_large(length: int, limit: int, *, at_least: bool = False) -> HttpResponse:
    if at_least:
        detail = gettext("The request body is more than %(size)s; the limit is %(limit)s.")
    else:
        detail = gettext("The request body is %(size)s; the limit is %(limit)s.")
    size = _bytes(limit if at_least else length)
    return problem_response(
        status_code=413, code="payload_too_large", detail=detail % {"size": size, "limit": _bytes(limit)}, limit=limit
    )


Answer = TypeVar("Answer", bound=HttpResponse | None)


def _in_request_language(request: HttpRequest, answer: Callable[[], Answer]) -> Answer:
    """``answer()`` made in the language the request asks for, before
    ``LocaleMiddleware`` has activated it, and marked as it marks its answers."""
    language = translation.get_language_from_request(request)
    with translation.override(language):
        response = answer()
    if response is not None:
        patch_vary_headers(response, ("Accept-Language",))
        response.headers.setdefault("Content-Language", language)
    return response


def _language_kept(replaced: HttpResponse, response: HttpResponse) -> HttpResponse:
    """``response``, made in place of ``replaced``, keeps its language headers."""
    patch_vary_headers(response, ("Accept-Language",))
    language = replaced.get("Content-Language") or translation.get_language()
    if language:
        response.headers.setdefault("Content-Language", language)
    return response


def _read_chunked_body(request: HttpRequest, limit: int | None) -> HttpResponse | None:
    """A body sent with Transfer-Encoding: chunked has no Content-Length, and
    Django reads such a body as empty. When the server has decoded the chunks
    and marks the end of the input (``wsgi.input_terminated``, as gunicorn
    does), read it here, within the size limit, so the view sees what was sent;
    when it cannot be read to its end, say so (411) rather than read nothing.
    """
    environ = request.META
    if not environ.get("wsgi.input_terminated"):
        return problem_response(
            status_code=411,
            code="length_required",
            detail=gettext(
                "This server cannot read a chunked request body here; send the body with a Content-Length."
            ),
        )
    stream = environ["wsgi.input"]
    cap = (limit or 0) + 1 if limit is not None else -1
    body = stream.read(cap) if cap > 0 else stream.read()
    if limit is not None and len(body) > limit:
        return _too_large(len(body), limit, at_least=True)
    environ["CONTENT_LENGTH"] = str(len(body))
    # WSGIRequest reads its body from _stream, built from CONTENT_LENGTH when the
    # request was made: give it the bytes that were read.
    request._stream = io.BytesIO(body)
    return None


class ApiProblemMiddleware:
    """No HTML error page reaches an API client, even with DEBUG on.

    DRF views already answer with problem details (see api.problems). This catches
    what happens outside them: an unknown /api/ URL (Django's debug 404 page) or
    an exception in a plain Django view under /api/.
    """

    def __init__(self, get_response: GetResponse) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if is_api_path(request) and not request.path.endswith("/") and _resolves(request.path + "/"):
            # Django would redirect (a POST turns into a GET, or a debug error page):
            # say plainly where the endpoint is instead.
            path = request.path
            return _in_request_language(
                request,
                lambda: problem_response(
                    status_code=404,
                    code="not_found",
                    detail=gettext("API addresses end with a slash: use %(slashed)s instead of %(path)s.")
                    % {"slashed": f"{path}/", "path": path},
                ),
            )
        response = self.get_response(request)
        if (
            is_api_path(request)
            and response.status_code >= 400
            and response.get("Content-Type", "").startswith("text/html")
        ):
            return _language_kept(response, _problem_for_status(response.status_code))
        return response

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if not is_api_path(request):
            return None
        if isinstance(exception, Http404):
            return _problem_for_status(404)
        if isinstance(exception, PermissionDenied):
            return _problem_for_status(403)
        logger.exception("Unexpected error at %s", request.path, exc_info=exception)
        return _problem_for_status(500)


def _resolves(path: str) -> bool:
    try:
        resolve(path)
    except Resolver404:
        return False
    return True


_GENERIC = {
    400: ("bad_request", gettext_noop("The request could not be understood.")),
    403: ("permission_denied", gettext_noop("You do not have permission to do this.")),
    404: ("not_found", gettext_noop("There is nothing at this address.")),
    405: ("method_not_allowed", gettext_noop("This address does not accept that method.")),
    500: ("server_error", gettext_noop("Something went wrong on our side. It has been logged; please try again later.")),
}


def _problem_for_status(status_code: int) -> HttpResponse:
    code, detail = _GENERIC.get(status_code, ("error", gettext_noop("The request failed.")))
    return problem_response(status_code=status_code, code=code, detail=gettext(detail))


class RateLimitHeadersMiddleware:
    """Announce the tightest throttle on every API response.

    The throttles in api.throttling record what they saw on the request;
    this copies it into RateLimit-Limit / RateLimit-Remaining / RateLimit-Reset.
    """

    def __init__(self, get_response: GetResponse) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        state = getattr(request, "rate_limit", None)
        if state is not None:
            response["RateLimit-Limit"] = str(state.limit)
            response["RateLimit-Remaining"] = str(state.remaining)
            response["RateLimit-Reset"] = str(state.reset)
        return response


# Public documents: the same for every caller, so shared caches may keep them.
PUBLIC_API_PREFIXES = ("/api/schema/", "/api/docs/")


class PrivateApiResponsesMiddleware:
    """Tell caches that API answers belong to their caller.

    What /api/v1/ answers depends on the token (a seat's view holds its own
    blind-reserved card, legal moves can name it, a new token is shown once), so
    every such response says ``Vary: Authorization`` and ``Cache-Control:
    private, no-store``: no shared cache may hand one player's answer to another,
    and none keeps it. Conditional requests (ETag, If-None-Match) still work: the
    client keeps the version it saw. A view that sets its own Cache-Control keeps it.
    """

    def __init__(self, get_response: GetResponse) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if is_api_path(request) and not request.path.startswith(PUBLIC_API_PREFIXES):
            patch_vary_headers(response, ("Authorization",))
            if "Cache-Control" not in response:
                response["Cache-Control"] = "private, no-store"
        return response
