"""The first addresses a person tries: `/` says what the service is, and an API
address asked for HTML says that the API speaks JSON and where its docs are."""

import json

import pytest

from accounts.services import player_create, token_create

PROBLEM = "application/problem+json"
BROWSER = "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8"

pytestmark = pytest.mark.django_db


def test_the_home_page_says_what_the_service_is_and_links_its_docs(client):
    answer = client.get("/")
    assert answer.status_code == 200
    assert answer["Content-Type"] == "text/html; charset=utf-8"
    page = answer.content.decode()
    assert "Slow games of Splendor, by email and on the web" in page and "JSON API" in page
    assert 'href="/api/docs/"' in page and 'href="/api/schema/"' in page
    assert 'href="/accounts/signup/"' in page and 'href="/accounts/login/"' in page


def test_the_home_page_is_only_read(client):
    assert client.head("/").status_code == 200
    assert client.post("/").status_code == 405


def test_an_api_address_asked_for_html_answers_406_saying_it_speaks_json(client):
    answer = client.get("/api/v1/games/", HTTP_ACCEPT="text/html")
    assert answer.status_code == 406
    assert answer["Content-Type"] == PROBLEM
    body = answer.json()
    assert body["code"] == "not_acceptable"
    assert "only in JSON" in body["detail"] and "/api/docs/" in body["detail"]


def test_the_schema_asked_for_html_answers_406_in_json_not_yaml(client):
    answer = client.get("/api/schema/", HTTP_ACCEPT="text/html")
    assert answer.status_code == 406 and answer["Content-Type"] == PROBLEM
    assert json.loads(answer.content)["code"] == "not_acceptable"


@pytest.mark.parametrize("accept", [BROWSER, "*/*", "text/html, application/json", "application/problem+json"])
def test_an_accept_that_allows_json_gets_json(client, accept):
    alice = player_create(username="alice", email="alice@example.com", display_name="Alice")
    _, plaintext = token_create(user=alice, name="laptop", scopes=["read"])
    answer = client.get("/api/v1/me/", HTTP_ACCEPT=accept, HTTP_AUTHORIZATION=f"Bearer {plaintext}")
    assert answer.status_code == 200, answer.content
    assert answer.json()["username"] == "alice"


def test_a_browser_without_a_token_is_told_so_in_json(client):
    answer = client.get("/api/v1/games/", HTTP_ACCEPT=BROWSER)
    assert answer.status_code == 401 and answer["Content-Type"] == PROBLEM
