"""``/problems/<code>/``: the page at a problem's ``type`` URL, saying what the code
means and what to do about it (``api.problem_types``), and ``/problems/``, every
code. HTML for people; JSON for a client that asks for it with ``Accept``. An
unknown code is a 404.

``api`` is no installed app, so its templates are read by an engine of their own
(with the i18n tags: the pages are in the language the request asks for, as the
problems' ``title`` and ``detail`` are; the codes never change).
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path
from typing import Any

from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.template import Context, Engine
from django.urls import path, reverse
from django.utils.cache import patch_cache_control, patch_vary_headers
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext
from django.views.decorators.http import require_safe

from api.problem_types import PROBLEM_TYPES, SEEN_IN_API, ProblemType, problem_type_url
from api.problems import problem_response

# The explanations change only with a release.
MAX_AGE_SECONDS = 3600


@cache
def _engine() -> Engine:
    return Engine(
        dirs=[str(Path(__file__).resolve().parent / "templates")], libraries={"i18n": "django.templatetags.i18n"}
    )


def _with_code(text: str) -> SafeString:
    """The catalogue's text as HTML: escaped, with `backticked` words as code."""
    parts = re.split(r"`([^`]*)`", text)
    html = "".join(f"<code>{escape(part)}</code>" if index % 2 else escape(part) for index, part in enumerate(parts))
    return mark_safe(html)  # every part is escaped


def _where(problem: ProblemType) -> str:
    if problem.seen_in == SEEN_IN_API:
        return gettext(
            "The API answers with status %(status)s and a problem body (`application/problem+json`) whose `code` "
            "is `%(code)s` and whose `type` is this page's address; its `detail` says what happened that time."
        ) % {"status": problem.status, "code": problem.code}
    if problem.status is not None:
        return gettext("In %(place)s (status %(status)s); the API never answers with it.") % {
            "place": gettext(problem.seen_in),
            "status": problem.status,
        }
    return gettext("In %(place)s; the API never answers with it.") % {"place": gettext(problem.seen_in)}


def _as_json(problem: ProblemType) -> dict[str, Any]:
    """The problem type in the active language; ``code``, ``type`` and ``status`` never change."""
    return {
        "type": problem_type_url(problem.code),
        "code": problem.code,
        "title": gettext(problem.title),
        "status": problem.status,
        "meaning": gettext(problem.meaning),
        "remedy": gettext(problem.remedy),
        "seen_in": gettext(problem.seen_in),
    }


def _wants_json(request: HttpRequest) -> bool:
    return request.get_preferred_type(["text/html", "application/json"]) == "application/json"


def _public(response: HttpResponse) -> HttpResponse:
    # The language follows Accept-Language (LocaleMiddleware adds it to Vary), and
    # also the language switch's cookie and a signed-in player's account: a shared
    # cache keeps one copy per cookie, so none serves one reader's language to another.
    patch_vary_headers(response, ["Accept", "Cookie"])
    patch_cache_control(response, public=True, max_age=MAX_AGE_SECONDS)
    return response


def _html(template: str, context: dict[str, Any]) -> HttpResponse:
    page = _engine().get_template(template).render(Context(context))
    return HttpResponse(page, content_type="text/html; charset=utf-8")


@require_safe
def problem_page(request: HttpRequest, code: str) -> HttpResponse:
    problem = PROBLEM_TYPES.get(code)
    if problem is None:
        if _wants_json(request):
            return problem_response(
                status_code=404,
                code="not_found",
                detail=gettext("There is no problem type %(code)s.") % {"code": repr(code)},
            )
        raise Http404(f"There is no problem type {code!r}.")
    if _wants_json(request):
        return _public(JsonResponse(_as_json(problem)))
    context = {
        "problem": problem,
        "title": gettext(problem.title),
        "meaning": _with_code(gettext(problem.meaning)),
        "remedy": _with_code(gettext(problem.remedy)),
        "where": _with_code(_where(problem)),
        "index_url": reverse("problem-index"),
    }
    return _public(_html("problems/problem.html", context))


@require_safe
def problem_index(request: HttpRequest) -> HttpResponse:
    problems = sorted(PROBLEM_TYPES.values(), key=lambda problem: problem.code)
    if _wants_json(request):
        return _public(JsonResponse({"problem_types": [_as_json(problem) for problem in problems]}))
    rows = [{**_as_json(problem), "url": reverse("problem-type", args=[problem.code])} for problem in problems]
    return _public(_html("problems/index.html", {"problems": rows}))


# Included by splendor_site.urls under problems/.
urlpatterns = [
    path("", problem_index, name="problem-index"),
    path("<str:code>/", problem_page, name="problem-type"),
]
