"""OpenAPI documentation of error answers, shared by every app's views."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from drf_spectacular.extensions import OpenApiSerializerFieldExtension
from drf_spectacular.openapi import AutoSchema
from drf_spectacular.utils import Direction, OpenApiParameter, OpenApiResponse

from api.problem_types import PROBLEM_TYPES, problem_type_url
from api.problems import PROBLEM_CONTENT_TYPE, ProblemTypeField, status_for
from core.errors import DomainError

THROTTLED = "throttled: too many requests; see Retry-After."


def problem_responses(
    problems: tuple[type[DomainError], ...],
    *,
    serializer: Any,
    notes: Mapping[int, str],
    extra: Mapping[int, str] | None = None,
) -> dict[Any, OpenApiResponse]:
    """Error answers for ``extend_schema(responses=...)``: every status with the
    stable codes it can carry, under the media type they are sent with."""
    by_status: dict[int, list[str]] = {}
    for problem in problems:
        by_status.setdefault(status_for(problem), []).append(problem.code)
    descriptions = {code: ", ".join(codes) for code, codes in by_status.items()}
    for code, text in {**notes, **(extra or {})}.items():
        descriptions[code] = f"{descriptions[code]}; {text}" if code in descriptions else text
    return {
        (code, PROBLEM_CONTENT_TYPE): OpenApiResponse(serializer, description=f"Problem details: {text}")
        for code, text in sorted(descriptions.items())
    }


def location_header(what: str) -> OpenApiParameter:
    """The ``Location`` header of a ``201 Created`` answer, for
    ``extend_schema(parameters=...)``: the path of what the request created (RFC 9110
    section 10.2.2), relative to the site, as the views set it with ``reverse``."""
    return OpenApiParameter(
        "Location",
        {"type": "string", "format": "uri-reference"},
        OpenApiParameter.HEADER,
        response=[201],
        required=True,
        description=f"{what}, as a path on this site.",
    )


def problem_type_schema() -> dict[str, Any]:
    """The schema of a problem's `type`: a URL, one page per code. Built when the
    schema is, so the URLs are on this site's SITE_URL; ``x-problem-types`` maps
    every code to its URL for a program, the description lists them for a person."""
    urls = {code: problem_type_url(code) for code in sorted(PROBLEM_TYPES)}
    listing = "\n".join(f"- [`{code}`]({url}): {PROBLEM_TYPES[code].title}" for code, url in urls.items())
    return {
        "type": "string",
        "format": "uri",
        "description": (
            "The problem type: the address of a page that says what the `code` means and what to do, "
            f"`{problem_type_url('<code>')}` (`/problems/` lists them all; ask for `application/json` to "
            f"read one as JSON). The codes and their pages:\n\n{listing}"
        ),
        "x-problem-types": urls,
    }


# drf-spectacular's extension registry (__init_subclass__) has no annotations, so
# defining a subclass calls an untyped function.
class ProblemTypeFieldExtension(OpenApiSerializerFieldExtension):  # type: ignore[no-untyped-call]
    """``api.problems.ProblemTypeField`` as one schema component, ``ProblemType``,
    that every problem body refers to."""

    target_class = ProblemTypeField

    def get_name(self) -> str:
        return "ProblemType"

    def map_serializer_field(self, auto_schema: AutoSchema, direction: Direction) -> dict[str, Any]:
        return problem_type_schema()
