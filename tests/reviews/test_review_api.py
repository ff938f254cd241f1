"""A finished game's review through the API (docs/review.md): asked for with POST,
read with GET, one per game, shared by all who may see the game, limited per
account, with the real search (engine.review) at a small budget."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import pytest

from reviews.models import GameReview, ReviewPosition
from tests.games.game_helpers import client_for, start_two_player_game
from tests.reviews.review_helpers import Sent, finished_game

pytestmark = pytest.mark.django_db


def review_url(game: Any) -> str:
    return f"/api/v1/games/{game.pk}/review/"


def assert_chances_of_every_move(body: dict[str, Any], *, seats: int, moves: int) -> None:
    assert body["status"] == "done"
    assert body["progress"] == {"done": moves, "total": moves}
    assert [move["ply"] for move in body["moves"]] == list(range(moves))
    for move in body["moves"]:
        for chances in (move["chances"], move["before"]):
            assert len(chances) == seats
            assert all(0 <= chance <= 1 for chance in chances)
            assert abs(sum(chances) - 1) <= 0.01, move
        assert move["drop"] >= 0
        assert move["best"] is None or (move["best"] != move["move"] and isinstance(move["best"], str))


def test_a_finished_two_player_games_review_gives_a_chance_per_seat_per_move_summing_to_one(
    alice: Any, bob: Any, commit: Any
) -> None:
    game = finished_game(alice, [bob])
    moves = game.moves.count()
    client = client_for(alice)
    with commit():
        started = client.post(review_url(game))
    assert started.status_code in (200, 202)
    answer = client.get(review_url(game))
    assert answer.status_code == 200, answer.json()
    assert_chances_of_every_move(answer.json(), seats=2, moves=moves)
    assert [move["move"] for move in answer.json()["moves"]] == list(
        game.moves.order_by("ply").values_list("text", flat=True)
    )
    assert [move["seat"] for move in answer.json()["moves"]] == list(
        game.moves.order_by("ply").values_list("seat", flat=True)
    )


def test_a_finished_three_player_games_review_sums_to_one_too(alice: Any, bob: Any, dave: Any, commit: Any) -> None:
    game = finished_game(alice, [bob, dave])
    with commit():
        client_for(bob).post(review_url(game))
    answer = client_for(dave).get(review_url(game))
    assert answer.status_code == 200
    assert_chances_of_every_move(answer.json(), seats=3, moves=game.moves.count())


def test_an_active_games_review_is_409_game_not_over(alice: Any, bob: Any) -> None:
    game = start_two_player_game(alice, bob)
    client = client_for(alice)
    for answer in (client.post(review_url(game)), client.get(review_url(game))):
        assert answer.status_code == 409
        assert answer.json()["code"] == "game_not_over"
    assert not GameReview.objects.exists()


def test_a_review_nobody_asked_for_is_404_review_not_found(alice: Any, bob: Any) -> None:
    game = finished_game(alice, [bob])
    answer = client_for(bob).get(review_url(game))
    assert answer.status_code == 404
    assert answer.json()["code"] == "review_not_found"


def test_the_review_of_a_private_game_is_an_unknown_game_to_a_stranger(alice: Any, bob: Any, charlie: Any) -> None:
    game = finished_game(alice, [bob])
    for answer in (client_for(charlie).post(review_url(game)), client_for(charlie).get(review_url(game))):
        assert answer.status_code == 404
        assert answer.json()["code"] == "game_not_found"
    assert not GameReview.objects.exists()


def test_an_anonymous_caller_needs_a_token(alice: Any, bob: Any, client: Any) -> None:
    game = finished_game(alice, [bob], public=True)
    answer = client.get(review_url(game))
    assert answer.status_code == 401


def test_a_pending_review_answers_202_with_its_progress_and_the_moves_so_far(
    alice: Any, bob: Any, commit: Any, sent: Sent
) -> None:
    game = finished_game(alice, [bob])
    client = client_for(alice)
    with commit():
        started = client.post(review_url(game))
    total = game.moves.count()
    assert started.status_code == 202
    assert started.json() == {"status": "pending", "progress": {"done": 0, "total": total}, "moves": []}
    assert sent.messages == [("reviews.tasks.bot_review_position", (GameReview.objects.get().pk, 0))]
    for _ in range(2):
        with commit():
            sent.run_next()
    answer = client.get(review_url(game))
    assert answer.status_code == 202
    assert answer.json()["progress"] == {"done": 2, "total": total}
    assert [move["ply"] for move in answer.json()["moves"]] == [0, 1]


def test_a_review_holds_one_task_in_the_queue_at_a_time(alice: Any, bob: Any, commit: Any, sent: Sent) -> None:
    game = finished_game(alice, [bob])
    with commit():
        client_for(alice).post(review_url(game))
    review = GameReview.objects.get()
    for ply in range(review.positions_total):
        assert [args for _, args in sent.messages] == [(review.pk, ply)]
        with commit():
            sent.run_next()
    assert sent.messages == []
    review.refresh_from_db()
    assert review.status == GameReview.Status.DONE and review.finished_at is not None


def test_a_second_post_by_another_account_shares_the_review_and_costs_nothing(
    alice: Any, bob: Any, charlie: Any, commit: Any, sent: Sent, settings: Any
) -> None:
    settings.REVIEWS_PER_DAY = 1
    game = finished_game(alice, [bob], public=True)
    other = finished_game(charlie, [bob], public=True)
    with commit():
        first = client_for(alice).post(review_url(game))
    with commit():
        again = client_for(charlie).post(review_url(game))
    assert first.status_code == again.status_code == 202
    assert GameReview.objects.count() == 1 and len(sent.messages) == 1  # no second review, no second task
    assert GameReview.objects.get().requested_by == alice
    # charlie spent nothing: his one review a day is still there.
    with commit():
        assert client_for(charlie).post(review_url(other)).status_code == 202


def test_past_reviews_per_day_an_account_is_refused_with_429_too_many_reviews(
    alice: Any, bob: Any, settings: Any, commit: Any
) -> None:
    settings.REVIEWS_PER_DAY = 1
    first, second = finished_game(alice, [bob]), finished_game(alice, [bob])
    client = client_for(alice)
    with commit():
        assert client.post(review_url(first)).status_code in (200, 202)
    refused = client.post(review_url(second))
    assert refused.status_code == 429
    assert refused.json()["code"] == "too_many_reviews"
    assert "next_review_at" in refused.json() and int(refused["Retry-After"]) > 0
    # The detail writes the moment for a person, in the account's time zone (UTC here).
    free_at = datetime.fromisoformat(refused.json()["next_review_at"])
    assert f"{free_at:%A} {free_at.day} {free_at:%B %Y, %H:%M} (UTC)" in refused.json()["detail"]
    assert not GameReview.objects.filter(game=second).exists()
    # Asking again for the review it has costs nothing.
    assert client.post(review_url(first)).status_code == 200


def test_a_review_asked_for_twice_is_searched_once(alice: Any, bob: Any, commit: Any) -> None:
    game = finished_game(alice, [bob])
    client = client_for(alice)
    with commit():
        client.post(review_url(game))
    positions = list(ReviewPosition.objects.values_list("pk", "before", "after"))
    with commit():
        assert client.post(review_url(game)).json()["status"] == "done"
    assert list(ReviewPosition.objects.values_list("pk", "before", "after")) == positions
