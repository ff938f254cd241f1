"""The email preferences' refusals follow the request's Accept-Language (English
by default); the code and the field names never change."""

from __future__ import annotations

from typing import Any

import pytest

from tests.games.game_helpers import client_for

pytestmark = pytest.mark.django_db

URL = "/api/v1/me/notifications/"


@pytest.mark.parametrize(
    ("language", "body", "field", "words"),
    [
        ("lv", {"digest_hour": 24}, "digest_hour", "Diennakts stunda ir no 0 līdz 23."),
        ("it", {"reminder_hours": [0]}, "reminder_hours", "0 non è un numero di ore da 1 a 168."),
        ("it", {"reminder_hours": [2, 24, 2]}, "reminder_hours", "2 compare più di una volta"),
        ("lv", {"mode": "weekly"}, "mode", '"weekly" nav režīms; izvēlies kādu no: every_turn, digest, off.'),
    ],
)
def test_a_refused_preference_is_explained_in_the_requests_language(
    alice: Any, language: str, body: dict[str, Any], field: str, words: str
) -> None:
    answer = client_for(alice).patch(URL, body, format="json", HTTP_ACCEPT_LANGUAGE=language)
    assert answer.status_code == 400
    problem = answer.json()
    assert problem["code"] == "validation_error" and field in problem["errors"]
    assert words in str(problem["errors"][field])
