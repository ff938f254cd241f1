"""OpenAPI documentation of error answers, shared by every app's views."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from drf_spectacular.utils import OpenApiResponse

from api.problems import PROBLEM_CONTENT_TYPE, status_for
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
