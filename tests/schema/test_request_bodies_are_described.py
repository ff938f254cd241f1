"""Every request body in the schema says what the request is for, in its own words:
never the internal note of the serializers' shared base (api.serializers)."""

from __future__ import annotations

from typing import Any

import pytest
from drf_spectacular.generators import SchemaGenerator
from rest_framework import serializers

from api.serializers import StrictInputSerializer

METHODS = {"get", "put", "post", "patch", "delete"}
BASE_DOCSTRING = (StrictInputSerializer.__doc__ or "").split(":")[0]


@pytest.fixture(scope="module")
def openapi() -> dict[str, Any]:
    return SchemaGenerator().get_schema(request=None, public=True)


def _request_body_schemas(openapi: dict[str, Any]) -> dict[str, str]:
    """Each component a request body refers to, with the operation that sends it."""
    found: dict[str, str] = {}
    for path, item in openapi["paths"].items():
        for method, operation in item.items():
            if method not in METHODS or "requestBody" not in operation:
                continue
            for media in operation["requestBody"]["content"].values():
                ref = media["schema"].get("$ref", "")
                assert ref.startswith("#/components/schemas/"), f"{method.upper()} {path}: an unnamed body"
                found[ref.rsplit("/", 1)[1]] = f"{method.upper()} {path}"
    return found


def test_the_base_docstring_is_what_this_test_looks_for() -> None:
    assert BASE_DOCSTRING.startswith("Base of every serializer that reads a request body")


def test_no_schema_description_is_the_base_serializers_docstring(openapi: dict[str, Any]) -> None:
    leaked = [
        name
        for name, component in openapi["components"]["schemas"].items()
        if BASE_DOCSTRING in component.get("description", "")
    ]
    assert leaked == []


def test_every_request_body_says_what_the_request_is_for(openapi: dict[str, Any]) -> None:
    bodies = _request_body_schemas(openapi)
    assert {"GameCreateInputRequest", "MoveInputRequest", "TokenCreateRequest"} <= set(bodies)
    components = openapi["components"]["schemas"]
    undescribed = {
        name: operation for name, operation in bodies.items() if not components[name].get("description", "").strip()
    }
    assert undescribed == {}


def test_a_nested_request_object_is_described_too(openapi: dict[str, Any]) -> None:
    policy = openapi["components"]["schemas"]["TimeoutPolicyInputRequest"]
    assert "missed deadline" in policy["description"]


def test_a_request_serializer_without_a_docstring_is_refused_when_defined() -> None:
    with pytest.raises(TypeError, match="must say what the request is for"):

        class Undescribed(StrictInputSerializer):
            name = serializers.CharField()


def test_a_subclass_of_a_described_request_serializer_needs_its_own_docstring() -> None:
    class Described(StrictInputSerializer):
        """Name something."""

        name = serializers.CharField()

    with pytest.raises(TypeError, match="Undescribed"):

        class Undescribed(Described):
            pass
