"""A problem's `type` is a page on this site: ``{SITE_URL}/problems/<code>/`` says
what the code means and what to do. Every code the service can make has one (the
codes are gathered from where they are made, as the documentation check does),
the OpenAPI schema lists them, and an unknown code is a 404."""

from __future__ import annotations

import json
import re
from html import unescape
from typing import Any
from urllib.parse import urlsplit

import pytest
from django.test import Client, override_settings
from drf_spectacular.generators import SchemaGenerator

from api.gunicorn_workers import problem_body_bytes
from api.problem_types import PROBLEM_TYPES
from api.problems import GENERAL_PROBLEMS, status_for
from core.errors import DomainError
from tests.games.game_helpers import client_for
from tests.schema.test_every_error_code_is_documented import ADMIN_ONLY_CODES, EMAIL_ONLY_CODES, every_code

SITE = "https://splendor.test"

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _site_url(settings: Any) -> None:
    settings.SITE_URL = SITE


def _domain_errors() -> list[type[DomainError]]:
    found: list[type[DomainError]] = []
    pending = list(DomainError.__subclasses__())
    while pending:
        error = pending.pop()
        pending.extend(error.__subclasses__())
        found.append(error)
    return found


def _text(html: str, element_id: str) -> str:
    match = re.search(rf'id="{element_id}">(.*?)</dd>', html, re.S)
    assert match is not None, element_id
    return unescape(re.sub(r"<[^>]+>", "", match.group(1))).strip()


# --- the catalogue against the code ------------------------------------------------------


def test_every_code_the_service_makes_has_an_explanation_and_none_is_left_over() -> None:
    assert set(PROBLEM_TYPES) == every_code()


def test_each_explanation_gives_the_status_the_code_is_sent_with() -> None:
    made_with: dict[str, set[int]] = {}
    for error in _domain_errors():
        made_with.setdefault(error.code, set()).add(status_for(error))
    for status, code, _ in GENERAL_PROBLEMS:
        made_with.setdefault(code, set()).add(status)
    checked = [code for code in made_with if code in PROBLEM_TYPES and PROBLEM_TYPES[code].status is not None]
    assert checked  # some explanations name a status, so the loop below compares something
    for code, statuses in made_with.items():
        if code in PROBLEM_TYPES and PROBLEM_TYPES[code].status is not None:
            assert PROBLEM_TYPES[code].status in statuses, code


@pytest.mark.parametrize("code", sorted(PROBLEM_TYPES))
def test_only_the_codes_the_api_never_sends_have_no_status(code: str) -> None:
    never_sent = code in ADMIN_ONLY_CODES | EMAIL_ONLY_CODES
    assert (PROBLEM_TYPES[code].status is None) == never_sent


# --- the pages ------------------------------------------------------------------------------


@pytest.mark.parametrize("code", sorted(every_code()))
def test_every_code_has_a_page_saying_what_it_means_and_what_to_do(client: Client, code: str) -> None:
    response = client.get(f"/problems/{code}/")

    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/html")
    html = response.content.decode()
    assert f"<h1><code>{code}</code></h1>" in html
    assert len(_text(html, "meaning")) > 20 and len(_text(html, "remedy")) > 5


def test_a_page_answers_in_json_to_a_client_that_asks_for_it(client: Client) -> None:
    response = client.get("/problems/illegal_move/", HTTP_ACCEPT="application/json")

    assert response.status_code == 200 and response["Content-Type"] == "application/json"
    body = response.json()
    assert body["type"] == f"{SITE}/problems/illegal_move/"
    assert (body["code"], body["status"]) == ("illegal_move", 422)
    assert "rule" in body["meaning"] and body["remedy"]
    assert "Accept" in response["Vary"]


def test_an_unknown_code_is_a_404(client: Client) -> None:
    assert client.get("/problems/no_such_problem/").status_code == 404
    answer = client.get("/problems/no_such_problem/", HTTP_ACCEPT="application/json")
    assert answer.status_code == 404 and answer.json()["code"] == "not_found"


def test_the_index_links_to_every_codes_page(client: Client) -> None:
    html = client.get("/problems/").content.decode()

    assert PROBLEM_TYPES
    for code in PROBLEM_TYPES:
        assert f'href="/problems/{code}/"' in html


def test_text_in_backticks_reads_as_code_and_the_rest_is_escaped(client: Client) -> None:
    html = client.get("/problems/confirmation_required/").content.decode()

    assert "<code>{&quot;confirm&quot;: &quot;&lt;your username&gt;&quot;}</code>" in html


# --- a problem answer's type leads to its page -----------------------------------------------


@pytest.mark.parametrize(
    "request_for, code",
    [
        (lambda anonymous, alice: anonymous.get("/api/v1/me/"), "not_authenticated"),
        (lambda anonymous, alice: client_for(alice).get("/api/v1/games/abcdefghjk/"), "game_not_found"),
        (lambda anonymous, alice: anonymous.get("/api/v1/no-such-thing/"), "not_found"),
        (
            lambda anonymous, alice: client_for(alice).post(
                "/api/v1/games/", json.dumps({"seats": 9}), content_type="application/json"
            ),
            "validation_error",
        ),
    ],
    ids=["not_authenticated", "game_not_found", "not_found", "validation_error"],
)
def test_a_problem_answers_type_is_its_codes_page_on_this_site(
    client: Client, alice: Any, request_for: Any, code: str
) -> None:
    answer = request_for(client, alice)
    problem = answer.json()

    assert answer["Content-Type"] == "application/problem+json"
    assert problem["code"] == code
    assert problem["type"] == f"{SITE}/problems/{code}/"
    page = client.get(urlsplit(problem["type"]).path)
    assert page.status_code == 200 and code in page.content.decode()


def test_gunicorns_own_answers_carry_the_same_type() -> None:
    problem = json.loads(problem_body_bytes(414, "uri_too_long", "The request line is too long."))

    assert problem["type"] == f"{SITE}/problems/uri_too_long/"


@override_settings(SITE_URL="http://127.0.0.1:8080")
def test_the_type_follows_site_url(client: Client) -> None:
    assert client.get("/api/v1/me/").json()["type"] == "http://127.0.0.1:8080/problems/not_authenticated/"


# --- the schema -----------------------------------------------------------------------------------


def test_the_schema_lists_every_code_with_its_page() -> None:
    schema = SchemaGenerator().get_schema(request=None, public=True)
    problem_type = schema["components"]["schemas"]["ProblemType"]

    assert problem_type["format"] == "uri"
    assert problem_type["x-problem-types"] == {code: f"{SITE}/problems/{code}/" for code in every_code()}
    for code in every_code():
        assert f"[`{code}`]({SITE}/problems/{code}/)" in problem_type["description"]
    problem_bodies = [
        component for name, component in schema["components"]["schemas"].items() if name.endswith("Problem")
    ]
    assert problem_bodies
    for component in problem_bodies:
        assert component["properties"]["type"] == {"$ref": "#/components/schemas/ProblemType"}
