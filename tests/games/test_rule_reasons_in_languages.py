"""Why a move is illegal, in the reader's language: the engine writes its reasons
in English with their template and values (engine.Message), and the door
translates them (engine/locale): the API by Accept-Language, email by the
account's language. The rule id and the code never change."""

from __future__ import annotations

from typing import Any

import engine
import pytest
from django.utils import translation

from games.engine_text import engine_text
from games.models import Game
from tests.games.game_helpers import client_for, start_two_player_game, user_to_move

pytestmark = pytest.mark.django_db


def _refusal(game: Game, text: str, language: str) -> dict[str, Any]:
    client = client_for(user_to_move(game))
    answer = client.post(
        f"/api/v1/games/{game.pk}/moves/", {"move": text, "expected_version": game.version},
        HTTP_ACCEPT_LANGUAGE=language,
    )
    assert answer.status_code == 422, answer.content
    assert answer["Content-Language"] == language
    body: dict[str, Any] = answer.json()
    return body


@pytest.mark.parametrize(
    ("language", "words"),
    [
        ("en", "A turn takes at most 3 tokens, not 4"),
        ("it", "In un turno si prendono al massimo 3 gettoni, non 4"),
        ("lv", "Gājienā var paņemt ne vairāk kā 3 žetonus, nevis 4"),
    ],
)
def test_b_take_3_four_tokens_are_refused_in_the_readers_language(alice: Any, bob: Any, language: str, words: str) -> None:
    body = _refusal(start_two_player_game(alice, bob), "take WUGR", language)
    assert body["code"] == "illegal_move" and body["rule"] == "B-TAKE-3"
    assert body["detail"].startswith(words), body["detail"]


def test_b_pass_1_a_pass_is_refused_with_the_latvian_count_of_legal_moves(alice: Any, bob: Any) -> None:
    body = _refusal(start_two_player_game(alice, bob), "pass", "lv")
    assert body["code"] == "illegal_move" and body["rule"] == "B-PASS-1"
    assert "atļauti gājieni" in body["detail"] or "atļautu gājienu" in body["detail"], body["detail"]


def test_the_words_of_the_game_inside_a_reason_are_translated_and_listed() -> None:
    message = engine.Message("no %(colours)s tokens are left", {"colours": engine.Words(("red", "black"))})
    with translation.override("it"):
        assert engine_text(message) == "non restano gettoni rossi e neri"
    with translation.override("lv"):
        assert engine_text(message) == "sarkani un melni žetoni ir beigušies"
    with translation.override("en"):
        assert engine_text(message) == "no red and black tokens are left"
    assert str(message) == "no red, black tokens are left"


def test_a_count_chooses_each_languages_plural_form() -> None:
    def reason(n: int) -> engine.Message:
        return engine.Message(
            "return exactly %(count)s token to get down to 10, not %(given)s", {"count": n, "given": 0},
            "return exactly %(count)s tokens to get down to 10, not %(given)s",
        )

    with translation.override("lv"):
        assert [engine_text(reason(n)) for n in (1, 2, 11, 21)] == [
            "atdod tieši 1 žetonu, lai paliktu 10, nevis 0",
            "atdod tieši 2 žetonus, lai paliktu 10, nevis 0",
            "atdod tieši 11 žetonu, lai paliktu 10, nevis 0",
            "atdod tieši 21 žetonu, lai paliktu 10, nevis 0",
        ]
    with translation.override("it"):
        assert engine_text(reason(1)).startswith("restituisci esattamente 1 gettone ")
        assert engine_text(reason(2)).startswith("restituisci esattamente 2 gettoni ")


def test_a_reason_the_catalog_does_not_hold_reads_as_the_engine_wrote_it() -> None:
    with translation.override("it"):
        assert engine_text(engine.Message("%(card)s is new here", {"card": "1-05"})) == "1-05 is new here"
        assert engine_text(engine.Message("plain words")) == "plain words"


def test_a_move_that_cannot_be_read_says_why_in_the_readers_language(alice: Any, bob: Any) -> None:
    game = start_two_player_game(alice, bob)
    client = client_for(user_to_move(game))
    answer = client.post(
        f"/api/v1/games/{game.pk}/moves/", {"move": "take white pink", "expected_version": game.version},
        HTTP_ACCEPT_LANGUAGE="it",
    )
    assert answer.status_code == 400
    body = answer.json()
    assert body["code"] == "invalid_notation"
    assert "'pink' non è un colore di gettone del gioco base" in body["detail"], body["detail"]
