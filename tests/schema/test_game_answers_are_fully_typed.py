"""Every field of a games API success answer has a type in the schema.

A field without one (a bare JSONField, a ListField or DictField without a typed
child) reaches a generated client as "any", which is what this guards against.
Error bodies are the shared problem document, described in its own module.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.generators import SchemaGenerator

GAMES_PATHS = "/api/v1/games/"
SHAPE_KEYWORDS = {"type", "$ref", "allOf", "oneOf", "anyOf", "enum"}
# Objects keyed by data rather than by name, whose values are typed: a seat's notes
# on moves, by the move's ply (games.notes), which no field list could name.
MAPS = {"Notes.moves"}


def untyped_parts(openapi: dict[str, Any]) -> tuple[list[str], set[str]]:
    """Where a games success answer has no type, and the components it reaches."""
    components = openapi["components"]["schemas"]
    reached: set[str] = set()
    untyped: list[str] = []

    def visit(schema: dict[str, Any], where: str) -> None:
        if "$ref" in schema:
            name = schema["$ref"].rsplit("/", 1)[-1]
            if name not in reached:
                reached.add(name)
                visit(components[name], name)
            return
        if not SHAPE_KEYWORDS & set(schema):
            untyped.append(where)
        if schema.get("type") == "object" and "properties" not in schema:
            values = schema.get("additionalProperties")
            if where in MAPS and isinstance(values, dict):
                visit(values, f"{where}{{}}")
            else:
                untyped.append(f"{where} (an object without named fields)")
        if schema.get("type") == "array" and "items" not in schema:
            untyped.append(f"{where} (a list of anything)")
        for key in ("allOf", "oneOf", "anyOf"):
            for branch in schema.get(key, []):
                visit(branch, where)
        if "items" in schema:
            visit(schema["items"], f"{where}[]")
        for name, prop in schema.get("properties", {}).items():
            visit(prop, f"{where}.{name}")

    for path, item in openapi["paths"].items():
        if not path.startswith(GAMES_PATHS):
            continue
        for method, operation in item.items():
            for status, response in operation.get("responses", {}).items():
                if status.startswith("2"):
                    for media in response.get("content", {}).values():
                        visit(media["schema"], f"{method.upper()} {path} {status}")
    return untyped, reached


def test_every_field_of_a_games_answer_has_a_type() -> None:
    untyped, reached = untyped_parts(SchemaGenerator().get_schema(request=None, public=True))
    assert untyped == []
    assert {"Board", "BaseBoard", "MarvelBoard", "GameResult", "MoveHistoryEntry", "LegalMoves", "Notes"} <= reached


def test_a_bare_json_field_would_be_caught() -> None:
    openapi = {
        "paths": {"/api/v1/games/": {"get": {"responses": {"200": {"content": {"application/json": {
            "schema": {"$ref": "#/components/schemas/Game"},
        }}}}}}},
        "components": {"schemas": {"Game": {"type": "object", "properties": {
            "board": {"nullable": True, "description": "a JSONField"},
            "moves": {"type": "array"},
            "tokens": {"type": "object", "additionalProperties": {"type": "integer"}},
        }}}},
    }
    untyped, _ = untyped_parts(openapi)
    assert untyped == [
        "Game.board",
        "Game.moves (a list of anything)",
        "Game.tokens (an object without named fields)",
    ]


def test_a_map_keyed_by_data_is_typed_by_its_values_and_named_here() -> None:
    def notes(values: dict[str, Any]) -> dict[str, Any]:
        return {
            "paths": {"/api/v1/games/{id}/notes/": {"get": {"responses": {"200": {"content": {"application/json": {
                "schema": {"$ref": "#/components/schemas/Notes"},
            }}}}}}},
            "components": {"schemas": {"Notes": {"type": "object", "properties": {
                "moves": {"type": "object", "additionalProperties": values},
            }}}},
        }

    assert untyped_parts(notes({"type": "string"}))[0] == []
    assert untyped_parts(notes({"description": "anything"}))[0] == ["Notes.moves{}"]
