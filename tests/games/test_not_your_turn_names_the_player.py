"""A move out of turn is refused with ``not_your_turn``, which names the player to
move by username and seat, as the game's ``seats`` show them, besides the caller's
own seat; in every language the API speaks.

- alice creates the games; bob is her opponent; one of them waits while the
  other is to move.
- charlie and dave make a game of four with them, in which dave's account is
  erased: his old username must never show.
"""

from __future__ import annotations

from typing import Any

import pytest
from drf_spectacular.generators import SchemaGenerator

from accounts.services import player_erase
from games import services
from games.models import Game, Seat
from tests.games.game_helpers import client_for, start_two_player_game, user_to_move

pytestmark = pytest.mark.django_db


def _waiter(game: Game) -> Any:
    mover = user_to_move(game)
    return next(seat.user for seat in Seat.objects.filter(game=game, resigned=False) if seat.user != mover)


def _out_of_turn(game: Game, user: Any, **headers: str) -> dict[str, Any]:
    answer = client_for(user).post(
        f"/api/v1/games/{game.pk}/moves/",
        {"move": "take WUG", "expected_version": game.version},
        format="json",
        **headers,
    )
    assert answer.status_code == 409, answer.content
    body: dict[str, Any] = answer.json()
    assert body["code"] == "not_your_turn"
    return body


def test_not_your_turn_names_the_player_to_move_and_both_seats(alice: Any, bob: Any) -> None:
    game = start_two_player_game(alice, bob)
    mover, waiter = user_to_move(game), _waiter(game)

    body = _out_of_turn(game, waiter)

    to_move = Seat.objects.get(game=game, user=mover).index
    your_seat = Seat.objects.get(game=game, user=waiter).index
    assert (body["to_move"], body["to_move_username"], body["your_seat"]) == (to_move, mover.username, your_seat)
    assert body["detail"] == (
        f"It is {mover.username}'s turn (seat {to_move}), not yours (you are seat {your_seat})."
    )


def test_the_username_is_the_one_the_games_seats_show(alice: Any, bob: Any) -> None:
    game = start_two_player_game(alice, bob)
    body = _out_of_turn(game, _waiter(game))
    seats = client_for(alice).get(f"/api/v1/games/{game.pk}/").json()["seats"]
    assert {"seat": body["to_move"], "username": body["to_move_username"]} in [
        {"seat": seat["seat"], "username": seat["username"]} for seat in seats
    ]


@pytest.mark.parametrize(
    ("language", "words"),
    [("it", "Tocca al posto {seat} ({name}), non a te"), ("lv", "Gājiens ir sēdvietai {seat} ({name}), nevis tev")],
)
def test_the_player_to_move_is_named_in_every_language(alice: Any, bob: Any, language: str, words: str) -> None:
    game = start_two_player_game(alice, bob)
    mover = user_to_move(game)
    body = _out_of_turn(game, _waiter(game), HTTP_ACCEPT_LANGUAGE=language)
    assert body["detail"].startswith(words.format(seat=body["to_move"], name=mover.username))
    assert body["to_move_username"] == mover.username  # members never change with the language


def test_an_erased_players_former_username_never_shows(
    alice: Any, bob: Any, charlie: Any, dave: Any, django_capture_on_commit_callbacks: Any
) -> None:
    game = services.game_create(creator=alice, seats=4, invited=[bob, charlie, dave])
    for user in (bob, charlie, dave):
        services.seat_join(game=game, user=user)
    with django_capture_on_commit_callbacks(execute=True):
        player_erase(user=dave)
    game.refresh_from_db()
    assert game.status == Game.Status.ACTIVE  # the other three play on

    body = _out_of_turn(game, _waiter(game))

    assert body["to_move_username"] == user_to_move(game).username != f"deleted-{dave.pk}"
    assert "dave" not in str(body)


def test_the_problem_schema_documents_the_player_to_move() -> None:
    problem = SchemaGenerator().get_schema(request=None, public=True)["components"]["schemas"]["GameProblem"]
    member = problem["properties"]["to_move_username"]
    assert member["type"] == "string" and member["description"].startswith("not_your_turn:")
