"""The OpenAPI schema builds cleanly and says what every operation can answer."""

from __future__ import annotations

from typing import Any

import pytest
from drf_spectacular.drainage import GENERATOR_STATS
from drf_spectacular.generators import SchemaGenerator
from drf_spectacular.validation import validate_schema

PROBLEM_CONTENT_TYPE = "application/problem+json"
METHODS = {"get", "put", "post", "patch", "delete", "head", "options", "trace"}


def generate() -> dict[str, Any]:
    return SchemaGenerator().get_schema(request=None, public=True)


@pytest.fixture(scope="module")
def openapi() -> dict[str, Any]:
    return generate()


def operations(openapi: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    return [
        (f"{method.upper()} {path}", operation)
        for path, item in openapi["paths"].items()
        for method, operation in item.items()
        if method in METHODS
    ]


def test_the_schema_builds_without_warnings_or_errors(capsys: pytest.CaptureFixture[str]) -> None:
    # The same bar as `manage.py spectacular --fail-on-warn` in CI, inside the suite.
    GENERATOR_STATS.reset()
    generate()
    printed = capsys.readouterr().err
    assert not GENERATOR_STATS, printed


def test_the_schema_is_valid_openapi_3(openapi: dict[str, Any]) -> None:
    assert openapi["openapi"].startswith("3.")
    validate_schema(openapi)  # raises on any violation of the OpenAPI JSON Schema


def test_the_schema_lists_every_api_operation(openapi: dict[str, Any]) -> None:
    paths = set(openapi["paths"])
    assert {"/api/v1/me/", "/api/v1/games/", "/api/v1/games/{game_id}/moves/", "/api/v1/tokens/"} <= paths
    assert all(path.startswith("/api/v1/") for path in paths)
    assert all(operation.get("operationId") for _, operation in operations(openapi))


def test_every_error_response_is_documented_as_problem_details(openapi: dict[str, Any]) -> None:
    wrong = {
        f"{label} {status}": sorted(response.get("content", {}))
        for label, operation in operations(openapi)
        for status, response in operation["responses"].items()
        if status.isdigit() and int(status) >= 400 and set(response.get("content", {})) != {PROBLEM_CONTENT_TYPE}
    }
    assert wrong == {}


def test_every_operation_documents_the_rate_limit_answer(openapi: dict[str, Any]) -> None:
    # The throttles apply to every API view, signed in or not (settings.REST_FRAMEWORK).
    missing = [label for label, operation in operations(openapi) if "429" not in operation["responses"]]
    assert missing == []
