"""Error answers that the property-based run found undocumented, pinned as
explicit cases: each request goes through the documented operation and its
answer is checked against the schema with the same checks."""

from __future__ import annotations

from typing import Any

from tests.schema.conftest import CHECKS, Seeded, load_schema

schema = load_schema()


def test_a_request_without_a_token_gets_the_documented_problem_details(seeded: Seeded) -> None:
    # Was: 401 sent as application/problem+json, documented as application/json.
    response = schema["/api/v1/me/"]["GET"].Case().call_and_validate(checks=CHECKS)
    assert response.status_code == 401


def test_revoking_a_token_of_someone_else_gets_the_documented_problem_details(seeded: Seeded) -> None:
    case = schema["/api/v1/tokens/{token_id}/"]["DELETE"].Case(path_parameters={"token_id": seeded.token_ids[-1]})
    response = case.call_and_validate(headers={"Authorization": f"Bearer {seeded.token}"}, checks=CHECKS)
    assert response.status_code == 404


def test_an_invalid_sign_up_gets_the_documented_problem_details(seeded: Seeded) -> None:
    case = schema["/api/v1/players/"]["POST"].Case(body={"username": "", "email": "not an address"})
    assert case.call_and_validate(checks=CHECKS).status_code == 400


def test_going_over_the_rate_limit_gets_the_documented_answer(seeded: Seeded, settings: Any) -> None:
    # Was: 429 undocumented on the accounts endpoints.
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {"anon": "1/minute", "user": "1/minute"},
    }
    auth = {"Authorization": f"Bearer {seeded.token}"}
    me = schema["/api/v1/me/"]["GET"]
    assert me.Case().call_and_validate(headers=auth, checks=CHECKS).status_code == 200
    assert me.Case().call_and_validate(headers=auth, checks=CHECKS).status_code == 429
    signup = schema["/api/v1/players/"]["POST"]
    body = {"username": "dora", "email": "dora@example.com", "password": "a long passphrase", "display_name": "Dora"}
    assert signup.Case(body=body).call_and_validate(checks=CHECKS).status_code == 202
    assert signup.Case(body=body).call_and_validate(checks=CHECKS).status_code == 429


# Found on PostgreSQL, which refuses NUL characters in text: the query raised
# DataError and the answer was a 500. SQLite stores them, so there these pass.


def test_a_nul_character_in_an_invited_username_is_a_validation_error(seeded: Seeded) -> None:
    case = schema["/api/v1/games/"]["POST"].Case(body={"seats": 2, "invited": ["bo\x00b"]})
    response = case.call_and_validate(headers={"Authorization": f"Bearer {seeded.token}"}, checks=CHECKS)
    assert response.status_code == 400


def test_a_nul_character_in_a_game_id_is_not_found(seeded: Seeded) -> None:
    auth = {"Authorization": f"Bearer {seeded.token}"}
    for path, method in [
        ("/api/v1/games/{game_id}/", "GET"),
        ("/api/v1/games/{game_id}/legal-moves/", "GET"),
        ("/api/v1/games/{game_id}/moves/", "GET"),
        ("/api/v1/games/{game_id}/export/", "GET"),
        ("/api/v1/games/{game_id}/resign/", "POST"),
    ]:
        case = schema[path][method].Case(path_parameters={"game_id": "ab\x00cd"})
        assert case.call_and_validate(headers=auth, checks=CHECKS).status_code == 404, path
    join = schema["/api/v1/games/{game_id}/join/"]["POST"].Case(path_parameters={"game_id": "ab\x00cd"}, body={})
    assert join.call_and_validate(headers=auth, checks=CHECKS).status_code == 404
    move = schema["/api/v1/games/{game_id}/moves/"]["POST"].Case(
        path_parameters={"game_id": "ab\x00cd"}, body={"move": "take WUG", "expected_version": 1}
    )
    assert move.call_and_validate(headers=auth, checks=CHECKS).status_code == 404
