"""Every code the accounts side can answer with is documented where a client looks:
docs/api.md's list of codes ("Errors") and its tables, and the OpenAPI schema's description of the
responses that carry it."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import pytest
from drf_spectacular.generators import SchemaGenerator

from accounts import errors
from core.errors import DomainError

ROOT = Path(__file__).resolve().parents[2]


def account_codes() -> set[str]:
    raised = {
        cls.code
        for _, cls in inspect.getmembers(errors, inspect.isclass)
        if issubclass(cls, DomainError) and cls.__module__ == errors.__name__
    }
    # The Bearer authentication's refusals are DRF errors with codes of their own.
    authentication = (ROOT / "accounts" / "authentication.py").read_text()
    return raised | set(re.findall(r'code="(\w+)"', authentication))


def schema_descriptions() -> str:
    schema = SchemaGenerator().get_schema(request=None, public=True)
    return "\n".join(
        response.get("description", "")
        for item in schema["paths"].values()
        for operation in item.values()
        if isinstance(operation, dict)
        for response in operation.get("responses", {}).values()
    )


def test_the_list_of_codes_is_read_from_the_code() -> None:
    assert {"account_disabled", "confirmation_required", "player_not_found", "login_locked"} <= account_codes()


@pytest.mark.parametrize("code", sorted(account_codes()))
def test_every_account_code_is_in_the_readme_list_of_codes(code: str) -> None:
    # The list of codes moved from the README to docs/api.md, "Errors".
    guide = (ROOT / "docs" / "api.md").read_text()
    codes_paragraph = guide[guide.index("`code` is stable snake_case") : guide.index("## Limits")]
    assert f"`{code}`" in codes_paragraph


@pytest.mark.parametrize("code", sorted(account_codes()))
def test_every_account_code_is_in_the_api_guide(code: str) -> None:
    assert f"`{code}`" in (ROOT / "docs" / "api.md").read_text()


def test_every_account_code_is_named_in_the_schemas_responses() -> None:
    described = schema_descriptions()
    missing = sorted(code for code in account_codes() if not re.search(rf"\b{code}\b", described))
    assert missing == []


def test_the_new_endpoints_name_their_codes_in_their_responses() -> None:
    schema = SchemaGenerator().get_schema(request=None, public=True)
    erase = schema["paths"]["/api/v1/me/"]["delete"]["responses"]
    assert "confirmation_required" in erase["400"]["description"]
    assert "account_disabled" in erase["401"]["description"]
    profile = schema["paths"]["/api/v1/players/{username}/"]["get"]["responses"]
    assert "player_not_found" in profile["404"]["description"]
    confirm = schema["paths"]["/api/v1/tokens/recover/confirm/"]["post"]["responses"]
    assert "verification_failed" in confirm["400"]["description"]
