"""Input PostgreSQL cannot take is a validation error on the accounts endpoints too.

PostgreSQL refuses NUL (\\x00) in text and lone surrogates cannot be sent to it;
every text field here is a DRF CharField, whose own validators refuse both
before any query. These pin that, field by field, so that a field changed to
another kind (a related field, say) cannot bring the 500 back unnoticed.
"""

import json

import pytest

from tests.accounts.conftest import client_with

SIGN_UP = {"username": "dora", "email": "dora@example.com", "password": "a long passphrase", "display_name": "Dora"}
VERIFY = {"username": "dora", "email": "dora@example.com", "code": "ABCDEFGHJK"}
TOKEN = {"name": "laptop", "username": "alice", "password": "correct horse battery"}
BAD_TEXT = ["\x00", "\ud800"]


def post_json(client, path, body):
    # Encoded here: the test client's own JSON encoder cannot write a lone surrogate.
    return client.post(path, json.dumps(body), content_type="application/json")


def spoil(body, field, bad):
    value = body[field]
    return {**body, field: value[:2] + bad + value[2:]}


@pytest.mark.django_db
@pytest.mark.parametrize("bad", BAD_TEXT)
@pytest.mark.parametrize("field", list(SIGN_UP))
def test_sign_up_text_the_database_cannot_hold_is_a_validation_error(field, bad):
    answer = post_json(client_with(), "/api/v1/players/", spoil(SIGN_UP, field, bad))
    assert answer.status_code == 400, answer.content
    assert list(answer.json()["errors"]) == [field]


@pytest.mark.django_db
@pytest.mark.parametrize("bad", BAD_TEXT)
@pytest.mark.parametrize("field", list(VERIFY))
def test_verification_text_the_database_cannot_hold_is_a_validation_error(field, bad):
    answer = post_json(client_with(), "/api/v1/players/verify/", spoil(VERIFY, field, bad))
    assert answer.status_code == 400, answer.content
    assert list(answer.json()["errors"]) == [field]


@pytest.mark.parametrize("bad", BAD_TEXT)
@pytest.mark.parametrize("field", list(TOKEN))
def test_token_text_the_database_cannot_hold_is_a_validation_error(alice, field, bad):
    answer = post_json(client_with(), "/api/v1/tokens/", spoil(TOKEN, field, bad))
    assert answer.status_code == 400, answer.content
    assert list(answer.json()["errors"]) == [field]


def test_a_scope_with_a_nul_character_is_a_validation_error(alice):
    answer = post_json(client_with(), "/api/v1/tokens/", {**TOKEN, "scopes": ["read\x00"]})
    assert answer.status_code == 400, answer.content
    assert list(answer.json()["errors"]) == ["scopes"]


@pytest.mark.django_db
def test_a_bearer_token_with_a_nul_character_is_an_invalid_token():
    answer = client_with("spl_\x00" + "x" * 42).get("/api/v1/me/")
    assert answer.status_code == 401 and answer.json()["code"] == "invalid_token"


def test_a_token_id_larger_than_a_database_integer_is_not_found(alice_play_token):
    _, plain = alice_play_token
    answer = client_with(plain).delete(f"/api/v1/tokens/{2**70}/")
    assert answer.status_code == 404


def test_a_page_of_tokens_larger_than_a_database_integer_is_refused_by_name_not_a_server_error(alice_play_token):
    _, plain = alice_play_token
    answer = client_with(plain).get("/api/v1/tokens/", {"limit": str(2**70)})
    assert answer.status_code == 400, answer.content
    assert list(answer.json()["errors"]) == ["limit"]
