"""The Python client's typed models (clients/python, ``splendor_client.models``)
say what ``/api/schema/`` says: every field a model declares is in the schema's
component with a compatible type, a field the model counts on (a required key)
is required there, and a field the schema may send as null is optional-typed
in the model. A renamed or retyped field of the API fails here before a client
author finds out."""

from __future__ import annotations

import sys
import types
import typing
from pathlib import Path
from typing import Any, NotRequired, TypedDict

import pytest
from drf_spectacular.generators import SchemaGenerator

_CLIENT = Path(__file__).resolve().parents[2] / "clients" / "python"
if str(_CLIENT) not in sys.path:
    sys.path.insert(0, str(_CLIENT))

from splendor_client import models

#: Each model and the schema component it stands for.
COMPONENTS: dict[type, str] = {
    models.Seat: "Seat",
    models.TimeControl: "TimeControl",
    models.TimeoutPolicy: "TimeoutPolicy",
    models.GameResult: "GameResult",
    models.GameSummary: "GameSummary",
    models.Game: "GameView",
    models.GamePage: "PaginatedGameSummaryList",
    models.LegalMoves: "LegalMoves",
    models.MoveCreated: "MoveCreated",
    models.MoveHistoryEntry: "MoveHistoryEntry",
    models.Me: "Me",
    models.Token: "Token",
    models.TokenCreated: "TokenCreated",
    models.Problem: "GameProblem",
    models.Plan: "Plan",
    models.PlanLine: "PlanLine",
    models.PlanOutcome: "PlanOutcome",
    models.ChatLine: "ChatLine",
    models.ChatThread: "ChatThread",
}

_SCALARS: dict[Any, set[str]] = {str: {"string"}, int: {"integer"}, bool: {"boolean"}, float: {"number", "integer"}}


@pytest.fixture(scope="module")
def schemas() -> dict[str, Any]:
    openapi = SchemaGenerator().get_schema(request=None, public=True)
    return typing.cast(dict[str, Any], openapi["components"]["schemas"])


def _resolve(schema: dict[str, Any], components: dict[str, Any]) -> tuple[dict[str, Any], bool, str | None]:
    """A property's schema with ``$ref`` and a lone ``allOf`` followed: (schema,
    nullable, the component's name if it was a reference)."""
    nullable = bool(schema.get("nullable"))
    name = None
    while True:
        if "$ref" in schema:
            name = schema["$ref"].rsplit("/", 1)[-1]
            schema = components[name]
        elif len(schema.get("allOf", ())) == 1:
            schema = schema["allOf"][0]
        else:
            break
        nullable = nullable or bool(schema.get("nullable"))
    return schema, nullable, name


def _json_types(schema: dict[str, Any], components: dict[str, Any]) -> set[str]:
    if "type" in schema:
        return {schema["type"]}
    kinds: set[str] = set()
    for branch in schema.get("oneOf", []) + schema.get("anyOf", []):
        kinds |= _json_types(_resolve(branch, components)[0], components)
    return kinds


def type_problems(hint: Any, schema: dict[str, Any], components: dict[str, Any], where: str) -> list[str]:
    """What is wrong between a model's type ``hint`` and a property's ``schema``."""
    schema, nullable, ref = _resolve(schema, components)
    args = typing.get_args(hint)
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        allows_none = type(None) in args
        rest = [a for a in args if a is not type(None)]
        hint = rest[0] if len(rest) == 1 else Any
    else:
        allows_none = hint is type(None)
    problems = []
    if nullable and not allows_none:
        problems.append(f"{where}: the schema allows null but the model does not")
    if hint is Any:
        return problems
    kinds = _json_types(schema, components)
    if not kinds:  # a schema with no type at all: anything goes
        return problems
    origin = typing.get_origin(hint)
    if hint in _SCALARS:
        if not kinds & _SCALARS[hint]:
            problems.append(f"{where}: the model says {hint.__name__}, the schema {sorted(kinds)}")
    elif origin is list:
        if "array" not in kinds:
            problems.append(f"{where}: the model says a list, the schema {sorted(kinds)}")
        elif "items" in schema:
            problems += type_problems(typing.get_args(hint)[0], schema["items"], components, f"{where}[]")
    elif origin is dict or typing.is_typeddict(hint):
        if "object" not in kinds:
            problems.append(f"{where}: the model says an object, the schema {sorted(kinds)}")
        elif typing.is_typeddict(hint) and hint in COMPONENTS and ref != COMPONENTS[hint]:
            problems.append(f"{where}: the model says {hint.__name__} ({COMPONENTS[hint]}), the schema {ref}")
    else:
        problems.append(f"{where}: a type this test cannot compare: {hint!r}")
    return problems


def model_problems(model: type, component: str, components: dict[str, Any]) -> list[str]:
    schema = components[component]
    properties: dict[str, Any] = schema.get("properties", {})
    required = set(schema.get("required", ()))
    problems = []
    for name, hint in typing.get_type_hints(model).items():
        where = f"{model.__name__}.{name}"
        if name not in properties:
            problems.append(f"{where}: not in the schema's {component}")
            continue
        if name in model.__required_keys__ and name not in required:  # type: ignore[attr-defined]
            problems.append(f"{where}: the model counts on it, but {component} does not require it")
        problems += type_problems(hint, properties[name], components, where)
    return problems


@pytest.mark.parametrize("model", list(COMPONENTS), ids=lambda m: m.__name__)
def test_the_client_model_matches_its_schema_component(model: type, schemas: dict[str, Any]) -> None:
    assert model_problems(model, COMPONENTS[model], schemas) == []


def test_every_model_the_client_exports_is_checked() -> None:
    # Board is the engine's BoardView, the schema's Board (BaseBoard or MarvelBoard
    # by variant): tests/schema/test_board_and_result_match_the_schema.py holds it.
    exported = {getattr(models, name) for name in models.__all__} - {models.Board}
    assert {m for m in exported if typing.is_typeddict(m)} == set(COMPONENTS)


class _Drifted(TypedDict):
    """A model as it would be after the API changed under it."""

    version: str  # an integer in the schema
    to_move: int  # nullable in the schema
    moves: list[int]  # strings in the schema
    renamed: int  # not in the schema
    your_seat: NotRequired[int | None]


def test_a_model_that_drifted_from_the_schema_is_caught(schemas: dict[str, Any]) -> None:
    problems = model_problems(_Drifted, "LegalMoves", schemas)
    assert problems == [
        "_Drifted.version: the model says str, the schema ['integer']",
        "_Drifted.to_move: the schema allows null but the model does not",
        "_Drifted.moves[]: the model says int, the schema ['string']",
        "_Drifted.renamed: not in the schema's LegalMoves",
    ]


def test_a_field_the_schema_does_not_require_cannot_be_a_required_key(schemas: dict[str, Any]) -> None:
    class _CountsOnIt(TypedDict):
        private_card: str

    assert model_problems(_CountsOnIt, "MoveHistoryEntry", schemas) == [
        "_CountsOnIt.private_card: the model counts on it, but MoveHistoryEntry does not require it"
    ]
