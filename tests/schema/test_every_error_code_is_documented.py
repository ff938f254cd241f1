"""Every `code` the API can send is in the OpenAPI schema and in the guides
(README.md or docs/api.md), so that a client can learn every word it may have to
branch on. The codes are gathered from where they are made, not from a list kept
beside the docs: the domain errors, the codes the HTTP plumbing and the
authentication write, and the codes DRF's own exceptions reach clients with."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path
from typing import Any

import pytest
from drf_spectacular.generators import SchemaGenerator

import accounts.errors
import chat.errors
import games.errors
import games.links
import webhooks.errors
import leagues.errors
import reviews.errors
from api.gunicorn_workers import RULES
from api.middleware import _GENERIC as MIDDLEWARE_CODES
from core.errors import DomainError

ROOT = Path(__file__).resolve().parents[2]

# Modules whose codes are written in place: `code="..."` arguments and `code = "..."`
# class attributes.
CODE_WRITING_MODULES = sorted((ROOT / "api").glob("*.py")) + [
    ROOT / "accounts" / "authentication.py",
    ROOT / "accounts" / "permissions.py",
]

# What DRF's own exceptions are sent with. `authentication_failed` is not here:
# the one authentication class gives every failure a code of its own
# (test_every_authentication_failure_has_a_code_of_its_own).
DRF_CODES = {
    "validation_error",  # ValidationError, as api.problems renders it
    "parse_error",
    "not_authenticated",
    "permission_denied",
    "not_found",
    "method_not_allowed",
    "not_acceptable",
    "unsupported_media_type",
    "throttled",
    "server_error",  # any other exception, as api.problems renders it
}


# Raised only by the HTML game page and `manage.py game_link` (games.links), never
# sent by the API: the guide names them, the OpenAPI schema has no place for them.
PAGE_ONLY_CODES = {"seat_link_invalid", "seat_link_revoked", "seat_not_found"}
# Raised only to league admins and moderators in the admin (leagues.services; a
# moderator's pause refused by a game's rules, games.services.game_pause), never
# sent by the API: the guides name them, the OpenAPI schema has no place for them.
ADMIN_ONLY_CODES = {
    "season_not_startable",
    "no_request_to_decide",
    "pause_not_allowed",
    "pairing_not_found",
    "pairing_not_editable",
    "not_a_season_player",
}
# Written only in the answer to an emailed command (notifications.inbound.replies):
# docs/email.md names it.
EMAIL_ONLY_CODES = {"email_command_refused"}


def _domain_error_codes() -> set[str]:
    found: set[str] = set()
    pending: list[type[DomainError]] = [DomainError]
    while pending:
        error = pending.pop()
        pending.extend(error.__subclasses__())
        # Every app's errors, wherever the app defines them (games.links has its own).
        if error.__module__.split(".")[0] in {
            "games", "accounts", "notifications", "webhooks", "leagues", "chat", "reviews", "core",
        }:
            found.add(error.code)
    found.discard(DomainError.code)  # the abstract base's placeholder, never raised
    return found


def _codes_written_in(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.keyword) and node.arg == "code":
            value: Any = node.value
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if not any(isinstance(target, ast.Name) and target.id == "code" for target in targets):
                continue
            value = node.value
        else:
            continue
        if isinstance(value, ast.Constant) and isinstance(value.value, str):
            found.add(value.value)
    return found


def every_code() -> set[str]:
    codes = _domain_error_codes() | DRF_CODES
    for path in CODE_WRITING_MODULES:
        codes |= _codes_written_in(path)
    codes |= {code for code, _ in MIDDLEWARE_CODES.values()}
    codes |= {code for _, _, code, _ in RULES} | {"server_error"}
    return codes


def _mentions(text: str, code: str) -> bool:
    # Word boundaries: `not_found` is not found inside `game_not_found`.
    return re.search(rf"(?<![a-z_]){re.escape(code)}(?![a-z_])", text) is not None


@pytest.fixture(scope="module")
def schema_text() -> str:
    return json.dumps(SchemaGenerator().get_schema(request=None, public=True))


def test_the_gathering_finds_the_codes_of_every_source() -> None:
    codes = every_code()
    assert {"illegal_move", "game_not_open", "already_resigned"} <= codes  # games.errors
    assert {"login_locked", "too_many_codes", "insufficient_scope"} <= codes  # accounts.errors
    assert {"invalid_token", "token_revoked", "account_disabled"} <= codes  # accounts.authentication
    assert {"payload_too_large", "length_required", "bad_request"} <= codes  # api.middleware, api.problems
    assert {"uri_too_long", "request_header_fields_too_large"} <= codes  # api.gunicorn_workers
    assert {"league_not_found", "reliability_too_low", "season_not_startable"} <= codes  # leagues.errors
    assert {"chat_not_allowed", "too_many_chat_messages"} <= codes  # chat.errors
    assert {"review_not_found", "game_not_over", "too_many_reviews"} <= codes  # reviews.errors


@pytest.mark.parametrize("code", sorted(every_code() - PAGE_ONLY_CODES - ADMIN_ONLY_CODES - EMAIL_ONLY_CODES))
def test_every_error_code_is_in_the_openapi_schema(code: str, schema_text: str) -> None:
    assert _mentions(schema_text, code)


@pytest.mark.parametrize("code", sorted(every_code()))
def test_every_error_code_is_in_the_readme_or_the_api_guide(code: str) -> None:
    guides = "".join(
        (ROOT / name).read_text()
        for name in ("README.md", "docs/api.md", "docs/email.md", "docs/leagues.md", "docs/review.md")
    )
    assert f"`{code}`" in guides


def test_every_authentication_failure_has_a_code_of_its_own() -> None:
    path = ROOT / "accounts" / "authentication.py"
    failures = [
        node
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.Call) and ast.unparse(node.func).endswith("AuthenticationFailed")
    ]
    assert failures
    assert all(any(keyword.arg == "code" for keyword in node.keywords) for node in failures)
