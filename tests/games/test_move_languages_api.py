"""The API reads a move in English and in the words of one more language:
the account's (``Player.language``), or the request's ``Content-Language`` when
it names one. Codes and the canonical notation it answers with stay English;
courtesy words that trail a move are ignored here as by email (engine.grammar)."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from games import errors, services
from games.models import Game, Move
from tests.games.game_helpers import client_for, start_two_player_game, user_to_move

pytestmark = pytest.mark.django_db


@pytest.fixture
def game(alice: Any, bob: Any) -> Game:
    return start_two_player_game(alice, bob)


def _mover(game: Game) -> tuple[Any, APIClient]:
    user = user_to_move(game)
    return user, client_for(user)


def _play(client: APIClient, game: Game, text: str, **headers: str) -> Any:
    return client.post(f"/api/v1/games/{game.pk}/moves/", {"move": text, "expected_version": game.version}, **headers)


def _speaks(user: Any, language: str) -> None:
    user.player.language = language
    user.player.save(update_fields=["language"])


def test_content_language_it_plays_a_move_in_italian_and_answers_in_canonical_notation(game: Game) -> None:
    _, client = _mover(game)
    response = _play(client, game, "prendi bianco blu verde", HTTP_CONTENT_LANGUAGE="it")
    assert response.status_code == 201, response.content
    assert response.json()["move"] == "take WUG"
    assert Move.objects.get(game=game).text == "take WUG"


def test_a_region_subtag_names_the_language_too(game: Game) -> None:
    _, client = _mover(game)
    response = _play(client, game, "riserva mazzo 2", HTTP_CONTENT_LANGUAGE="it-IT")
    assert response.status_code == 201, response.content
    assert response.json()["move"] == "reserve deck2"


def test_without_the_header_the_accounts_language_is_read(game: Game) -> None:
    user, client = _mover(game)
    _speaks(user, "lv")
    response = _play(client, game, "ņem baltu zilu zaļu, lūdzu")
    assert response.status_code == 201, response.content
    assert response.json()["move"] == "take WUG"


def test_an_english_account_without_the_header_reads_english_only(game: Game) -> None:
    _, client = _mover(game)
    response = _play(client, game, "prendi bianco blu verde")
    assert response.status_code == 400 and response.json()["code"] == "invalid_notation"
    assert not Move.objects.filter(game=game).exists()


def test_the_header_wins_over_the_accounts_language(game: Game) -> None:
    user, client = _mover(game)
    _speaks(user, "lv")
    refused = _play(client, game, "ņem baltu zilu zaļu", HTTP_CONTENT_LANGUAGE="it")
    assert refused.status_code == 400 and refused.json()["code"] == "invalid_notation"
    played = _play(client, game, "prendi bianco blu verde", HTTP_CONTENT_LANGUAGE="it")
    assert played.status_code == 201, played.content


def test_a_header_naming_no_language_with_a_grammar_reads_english_alone(game: Game) -> None:
    user, client = _mover(game)
    _speaks(user, "it")
    refused = _play(client, game, "prendi bianco blu verde", HTTP_CONTENT_LANGUAGE="de")
    assert refused.status_code == 400 and refused.json()["code"] == "invalid_notation"
    played = _play(client, game, "take white blue green", HTTP_CONTENT_LANGUAGE="de")
    assert played.status_code == 201, played.content


@pytest.mark.parametrize(("text", "canonical"), [("reserve deck1 please", "reserve deck1"),
                                                 ("take white, blue and green. Thanks!", "take WUG")])
def test_trailing_courtesy_words_are_ignored_through_the_api_as_by_email(game: Game, text: str, canonical: str) -> None:
    _, client = _mover(game)
    response = _play(client, game, text)
    assert response.status_code == 201, response.content
    assert response.json()["move"] == canonical


def test_other_extra_words_still_refuse_the_move(game: Game) -> None:
    _, client = _mover(game)
    response = _play(client, game, "reserve deck1 now")
    assert response.status_code == 400 and response.json()["code"] == "invalid_notation"


@pytest.mark.parametrize(("text", "language"), [("take WUGR", ""), ("prendi bianco blu verde rosso", "it")])
def test_a_take_of_four_tokens_is_an_illegal_move_citing_b_take_3(game: Game, text: str, language: str) -> None:
    _, client = _mover(game)
    headers = {"HTTP_CONTENT_LANGUAGE": language} if language else {}
    response = _play(client, game, text, **headers)
    assert response.status_code == 422, response.content
    body = response.json()
    assert (body["code"], body["rule"]) == ("illegal_move", "B-TAKE-3")


def test_every_door_through_move_submit_reads_the_accounts_language_unless_told_otherwise(game: Game) -> None:
    """The game page and email call move_submit without ``languages``: the account's is read."""
    user, _ = _mover(game)
    _speaks(user, "it")
    with pytest.raises(errors.InvalidNotation):
        services.move_submit(game_id=game.pk, user=user, text="prendi bianco blu verde",
                             expected_version=game.version, languages=("en",))
    played = services.move_submit(game_id=game.pk, user=user, text="prendi bianco blu verde",
                                  expected_version=game.version)
    assert played.move.text == "take WUG"
