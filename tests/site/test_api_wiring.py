"""Errors as problem details, the body size limit, rate-limit headers, healthz, schema."""

import pytest
from django.conf import settings
from django.test import override_settings

pytestmark = [pytest.mark.urls("tests.site.urls"), pytest.mark.django_db]

PROBLEM = "application/problem+json"


def assert_problem(response, status, code):
    assert response.status_code == status
    assert response["Content-Type"] == PROBLEM
    body = response.json()
    assert body["status"] == status
    assert body["code"] == code
    assert body["type"] == f"{settings.SITE_URL}/problems/{code}/"
    assert body["title"] and body["detail"]
    return body


def test_anonymous_caller_gets_401_with_a_bearer_challenge(client):
    response = client.get("/api/test/protected/")
    assert_problem(response, 401, "not_authenticated")
    assert response["WWW-Authenticate"] == 'Bearer realm="api"'


def test_problem_error_subclass_carries_its_code_title_and_extras(client):
    response = client.post("/api/test/illegal/", {}, content_type="application/json")
    body = assert_problem(response, 409, "illegal_move")
    assert body["title"] == "Illegal move"
    assert body["detail"] == "red has 3 tokens; taking two needs 4"
    assert body["rule"] == "B-TAKE-2"
    assert body["choices"] == ["T2-W"]


def test_malformed_json_is_a_parse_error(client):
    response = client.post("/api/test/echo/", "{not json", content_type="application/json")
    assert_problem(response, 400, "parse_error")


def test_form_bodies_are_an_unsupported_media_type(client):
    response = client.post("/api/test/echo/", "a=1", content_type="application/x-www-form-urlencoded")
    assert_problem(response, 415, "unsupported_media_type")


def test_wrong_method_is_method_not_allowed(client):
    response = client.delete("/api/test/echo/")
    assert_problem(response, 405, "method_not_allowed")


def test_unknown_api_address_is_a_json_404_not_an_html_page(client):
    response = client.get("/api/v1/no-such-thing/")
    assert_problem(response, 404, "not_found")


@override_settings(DEBUG=True)
def test_unknown_api_address_is_json_even_with_debug_on(client):
    response = client.get("/api/v1/no-such-thing/")
    assert_problem(response, 404, "not_found")


def test_a_bug_in_a_view_is_a_json_500_and_is_logged(client, caplog):
    response = client.get("/api/test/broken/")
    body = assert_problem(response, 500, "server_error")
    assert "a bug" not in body["detail"]
    assert any("a bug" in str(record.exc_info) for record in caplog.records if record.exc_info)


@override_settings(DATA_UPLOAD_MAX_MEMORY_SIZE=1024)
def test_a_body_over_the_limit_gets_413_before_the_view_reads_it(client):
    response = client.post("/api/test/echo/", "x" * 2048, content_type="application/json")
    body = assert_problem(response, 413, "payload_too_large")
    assert body["limit"] == 1024


@override_settings(DATA_UPLOAD_MAX_MEMORY_SIZE=1024)
def test_a_body_within_the_limit_goes_through(client):
    response = client.post("/api/test/echo/", {"a": "x" * 100}, content_type="application/json")
    assert response.status_code == 200
    assert response.json() == {"received": {"a": "x" * 100}}


THREE_PER_MINUTE = {
    "REST_FRAMEWORK": {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {"anon": "3/minute", "user": "10/minute"},
    }
}


def test_every_throttled_response_announces_the_limit(client):
    with override_settings(**THREE_PER_MINUTE):
        first = client.get("/api/test/echo/")
        second = client.get("/api/test/echo/")
    assert first["RateLimit-Limit"] == "3"
    assert first["RateLimit-Remaining"] == "2"
    assert second["RateLimit-Remaining"] == "1"
    assert 0 < int(first["RateLimit-Reset"]) <= 60


def test_going_over_the_limit_gets_429_with_retry_after(client):
    with override_settings(**THREE_PER_MINUTE):
        for _ in range(3):
            assert client.get("/api/test/echo/").status_code == 200
        response = client.get("/api/test/echo/")
    body = assert_problem(response, 429, "throttled")
    assert int(response["Retry-After"]) > 0
    assert body["retry_after"] == int(response["Retry-After"])
    assert response["RateLimit-Remaining"] == "0"


def test_healthz_is_200_when_the_database_answers(client):
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json()["status"] == "ok"
    checks = response.json()["checks"]
    assert checks["database"] == {"state": "up", "required": True}
    assert checks["cache"]["state"] == "up (in-process)" and checks["cache"]["required"] is False
    assert checks["broker"]["state"] == "up (in-process)"


def test_healthz_reports_a_broker_that_does_not_answer_as_degraded_not_unavailable(client, settings):
    settings.CELERY_BROKER_URL = "redis://127.0.0.1:1/0"  # nothing listens on port 1
    response = client.get("/healthz")
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "degraded"
    assert body["checks"]["broker"]["state"] == "down" and "outbox" in body["checks"]["broker"]["meanwhile"]


def test_healthz_is_503_when_the_database_does_not_answer(client, monkeypatch):
    from api import health

    def down() -> str:
        raise ConnectionError("database gone")

    monkeypatch.setitem(health.CHECKS, "database", health.Check(down, True, "nothing works"))
    response = client.get("/healthz")
    assert response.status_code == 503
    assert response.json()["status"] == "unavailable"
    assert response.json()["checks"]["database"]["state"] == "down"


def test_schema_and_docs_are_served_without_authentication(client):
    schema = client.get("/api/schema/?format=json")
    assert schema.status_code == 200
    assert "bearerAuth" in schema.json()["components"]["securitySchemes"]
    assert client.get("/api/docs/").status_code == 200


@pytest.mark.django_db
def test_an_api_address_without_its_trailing_slash_is_a_clear_404_not_a_redirect(client) -> None:
    response = client.post("/api/v1/games", {"variant": "base", "seats": 2}, content_type="application/json")
    assert response.status_code == 404
    assert response["Content-Type"].startswith("application/problem+json")
    assert "/api/v1/games/" in response.json()["detail"]


@pytest.mark.django_db
def test_the_interactive_docs_load_no_script_from_another_site(client) -> None:
    page = client.get("/api/docs/").content.decode()
    assert "cdn.jsdelivr.net" not in page and "unpkg.com" not in page
    assert "swagger-ui" in page
