"""A practice game or a sandbox ends with its person: resigning it, or the account
being disabled or erased, finishes it there and then (the result recorded, the bots
ranked by their points so far, the person last), and no bot moves in it afterwards.

alice plays against the bots and makes the sandboxes; bob and dave are her
opponents in the real games the sandboxes come from.
"""

from __future__ import annotations

from typing import Any

import engine
import pytest
from tests.games.game_helpers import client_for

from accounts.services import player_disable, player_erase
from games import services
from games.models import Game, GameEvent, Move, Seat
from games.results import ResultReason, result_person_left

pytestmark = pytest.mark.django_db


def _persons_seat(game: Game, user: Any) -> int:
    index = Seat.objects.get(game=game, user=user).index
    assert index is not None
    return index


def _practice_game_a_bot_opens(alice: Any, capture: Any, bots: list[str]) -> tuple[Game, list[Any]]:
    """A practice game whose first turn is a bot's, with the bots' work it queued on
    commit held back: a worker that has not reached it yet."""
    for _ in range(40):
        with capture(execute=False) as callbacks:
            game = services.practice_game_create(creator=alice, bots=bots)
        if game.to_move != _persons_seat(game, alice):
            return game, list(callbacks)
        services.game_resign(game=game, user=alice)
    pytest.skip("the seed put alice first every time")


def _sandbox_with_hot_seats(alice: Any, bob: Any, dave: Any) -> Game:
    """alice's sandbox of a three-player game she plays, every other seat a hot seat."""
    real = services.game_create(creator=alice, seats=3, invited=[bob, dave])
    services.seat_join(game=real, user=bob)
    services.seat_join(game=real, user=dave)
    return services.sandbox_create(game_id=real.pk, user=alice)


def test_resigning_a_practice_game_against_three_bots_finishes_it_with_the_person_last(
    alice: Any, commit: Any
) -> None:
    client = client_for(alice)
    with commit():
        game_id = client.post("/api/v1/games/", {"bots": ["greedy", "random", "greedy"]}, format="json").json()["id"]
    body = client.get(f"/api/v1/games/{game_id}/").json()
    assert body["status"] == "active" and body["to_move"] == body["your_seat"]

    with commit():
        answer = client.post(f"/api/v1/games/{game_id}/resign/")

    assert answer.status_code == 200, answer.content
    finished = client.get(f"/api/v1/games/{game_id}/").json()
    assert finished["status"] == "finished"
    result = finished["result"]
    seat = body["your_seat"]
    assert result["reason"] == "resignation"
    assert result["resigned"] == [seat] and result["ranking"][-1] == seat and result["places"][seat] == 4
    assert result["winners"] and seat not in result["winners"]
    assert GameEvent.objects.filter(game_id=game_id, kind=GameEvent.Kind.GAME_FINISHED).count() == 1


def test_a_bot_turn_queued_before_the_resignation_plays_no_move_after_it(
    alice: Any, django_capture_on_commit_callbacks: Any
) -> None:
    game, queued = _practice_game_a_bot_opens(alice, django_capture_on_commit_callbacks, ["greedy", "greedy"])
    assert queued, "the bot's first turn was queued on commit"
    assert Move.objects.filter(game=game).count() == 0

    with django_capture_on_commit_callbacks(execute=True):
        services.game_resign(game=game, user=alice)
    for work in queued:  # the worker reaches the bot's turn only now
        work()

    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED and game.result is not None
    assert game.result["reason"] == "resignation"
    assert Move.objects.filter(game=game).count() == 0


def test_a_practice_game_played_for_a_while_keeps_its_moves_and_gets_no_more(alice: Any, commit: Any) -> None:
    client = client_for(alice)
    with commit():
        game_id = client.post("/api/v1/games/", {"bots": ["greedy", "random"]}, format="json").json()["id"]
    for _ in range(3):
        body = client.get(f"/api/v1/games/{game_id}/").json()
        move = client.get(f"/api/v1/games/{game_id}/legal-moves/").json()["moves"][0]
        with commit():
            played = client.post(
                f"/api/v1/games/{game_id}/moves/", {"move": move, "expected_version": body["version"]}, format="json"
            )
        assert played.status_code == 201, played.content
    moves_before = Move.objects.filter(game_id=game_id).count()
    assert moves_before >= 3 * 3

    with commit():
        assert client.post(f"/api/v1/games/{game_id}/resign/").status_code == 200

    game = Game.objects.get(pk=game_id)
    assert game.status == Game.Status.FINISHED
    assert Move.objects.filter(game_id=game_id).count() == moves_before
    assert game.state is not None and game.result is not None
    state = engine.from_dict(game.state)
    assert game.result["scores"] == [engine.score(state, seat) for seat in range(3)]  # the points as they stood


def test_disabling_the_account_finishes_its_practice_games_and_sandboxes(
    alice: Any, bob: Any, dave: Any, commit: Any
) -> None:
    with commit():
        practice = services.practice_game_create(creator=alice, bots=["greedy", "random"])
        sandbox = _sandbox_with_hot_seats(alice, bob, dave)
    assert Game.objects.get(pk=practice.pk).status == Game.Status.ACTIVE
    assert Game.objects.get(pk=sandbox.pk).status == Game.Status.ACTIVE
    moves_before = Move.objects.filter(game=practice).count()

    with commit():
        player_disable(user=alice)

    for game in (practice, sandbox):
        game.refresh_from_db()
        assert game.status == Game.Status.FINISHED and game.result is not None
        assert game.result["reason"] == "account-disabled"
        assert game.result["ranking"][-1] == _persons_seat(game, alice)
    assert Move.objects.filter(game=practice).count() == moves_before


def test_erasing_the_account_finishes_its_practice_game(alice: Any, commit: Any) -> None:
    with commit():
        practice = services.practice_game_create(creator=alice, bots=["greedy", "greedy", "random"])
    assert Game.objects.get(pk=practice.pk).status == Game.Status.ACTIVE

    with commit():
        player_erase(user=alice)

    practice.refresh_from_db()
    assert practice.status == Game.Status.FINISHED and practice.result is not None
    assert practice.result["reason"] == "account-disabled"


def test_a_sandbox_ends_when_its_owner_resigns_though_two_hot_seats_are_left(
    alice: Any, bob: Any, dave: Any, commit: Any
) -> None:
    with commit():
        sandbox = _sandbox_with_hot_seats(alice, bob, dave)
    assert Seat.objects.filter(game=sandbox).exclude(user=alice).count() == 2

    with commit():
        services.game_resign(game=sandbox, user=alice)

    sandbox.refresh_from_db()
    assert sandbox.status == Game.Status.FINISHED and sandbox.result is not None
    assert sandbox.result["resigned"] == [_persons_seat(sandbox, alice)]


def test_a_real_game_of_three_goes_on_when_one_player_resigns(alice: Any, bob: Any, dave: Any) -> None:
    game = services.game_create(creator=alice, seats=3, invited=[bob, dave])
    services.seat_join(game=game, user=bob)
    services.seat_join(game=game, user=dave)

    services.game_resign(game=game, user=alice)

    game.refresh_from_db()
    assert game.status == Game.Status.ACTIVE


def test_resigning_one_practice_game_leaves_the_others_in_play(alice: Any, commit: Any) -> None:
    with commit():
        kept = services.practice_game_create(creator=alice, bots=["greedy", "random"])
        resigned = services.practice_game_create(creator=alice, bots=["greedy", "random"])
        services.game_resign(game=resigned, user=alice)

    assert Game.objects.get(pk=resigned.pk).status == Game.Status.FINISHED
    assert Game.objects.get(pk=kept.pk).status == Game.Status.ACTIVE


def test_the_seats_still_in_are_ranked_by_their_points_equal_points_sharing_a_place() -> None:
    result = result_person_left(left_in_order=[1], scores=[7, 12, 7, 3], timed_out=(), reason=ResultReason.RESIGNATION)

    assert result["ranking"] == [0, 2, 3, 1]
    assert result["places"] == [1, 4, 1, 3]
    assert result["winners"] == [0, 2]
    assert result["resigned"] == [1] and result["timed_out"] == []
    assert result["reason"] == "resignation"
