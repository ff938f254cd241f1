"""A request without a Bearer token is told how to send one, and one that sent
credentials in another scheme is told that the scheme is the problem."""

import pytest
from rest_framework.test import APIClient

PROBLEM = "application/problem+json"


def _answer(authorization=None, path="/api/v1/me/"):
    client = APIClient()
    if authorization is not None:
        client.credentials(HTTP_AUTHORIZATION=authorization)
    return client.get(path)


def _not_authenticated(answer):
    assert answer.status_code == 401, answer.content
    assert answer["Content-Type"] == PROBLEM
    assert answer["WWW-Authenticate"] == 'Bearer realm="api"'
    body = answer.json()
    assert body["code"] == "not_authenticated"
    return body["detail"]


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("authorization", "scheme"),
    [("Token abc123", "Token"), ("Basic YWxpY2U6c2VjcmV0", "Basic"), ("token spl_abc", "token")],
)
def test_a_token_in_another_scheme_is_told_to_send_bearer(authorization, scheme):
    detail = _not_authenticated(_answer(authorization))
    assert detail == (
        f"This API does not take `Authorization: {scheme} ...`; send `Authorization: Bearer <token>` "
        "with a token minted at POST /api/v1/tokens/."
    )
    assert "credentials were not provided" not in detail


@pytest.mark.django_db
def test_a_scheme_that_is_not_a_plain_name_is_not_echoed_back():
    detail = _not_authenticated(_answer("<script>alert(1)</script> x"))
    assert "<script>" not in detail and "`Authorization: Bearer <token>`" in detail


@pytest.mark.django_db
def test_a_request_without_a_token_is_told_how_to_send_one():
    detail = _not_authenticated(_answer())
    assert detail == (
        "This needs an API token: send `Authorization: Bearer <token>` with a token minted at POST /api/v1/tokens/."
    )


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["/api/v1/games/", "/api/v1/tokens/"])
def test_every_endpoint_that_needs_a_token_names_the_wrong_scheme(path):
    assert "`Authorization: Token ...`" in _not_authenticated(_answer("Token abc", path))


@pytest.mark.django_db
def test_a_play_endpoint_names_the_wrong_scheme_too():
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION="Token abc")
    answer = client.post("/api/v1/games/", {"seats": 2}, format="json")
    assert "`Authorization: Token ...`" in _not_authenticated(answer)


@pytest.mark.django_db
def test_an_endpoint_open_to_everyone_ignores_credentials_in_another_scheme():
    # A proxy in front of the site may add Basic credentials to every request.
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION="Basic YWxpY2U6c2VjcmV0")
    assert client.get("/api/schema/").status_code == 200
    answer = client.post("/api/v1/tokens/", {"name": "x", "username": "nobody", "password": "x"}, format="json")
    assert answer.status_code == 401 and answer.json()["code"] == "invalid_credentials"
