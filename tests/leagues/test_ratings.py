"""Ratings: applied once per rated game by the outbox consumer "ratings"."""

from __future__ import annotations

from typing import Any

import pytest

from games import services as game_services
from games.models import GameEvent, GameEventClaim
from leagues import selectors, services
from leagues.models import PlayerRating, RatedGame, RatingChange
from leagues.tasks import consume_event
from tests.games.game_helpers import client_for
from tests.leagues.builders import finish, rated_game


def _finished_event(game_id: str) -> int:
    return GameEvent.objects.get(game_id=game_id, kind=GameEvent.Kind.GAME_FINISHED).pk


def test_a_resignation_in_a_rated_game_moves_both_ratings_once_however_often_the_consumer_runs(
    players: list[Any],
) -> None:
    alice, bob = players[:2]
    game = rated_game(alice, bob)
    game_services.game_resign(game=game, user=bob)
    event_id = _finished_event(game.pk)
    assert consume_event(event_id) is True
    assert consume_event(event_id) is False  # claimed and done
    # Even a redelivery after the claim was lost changes nothing.
    GameEventClaim.objects.filter(event_id=event_id).delete()
    assert consume_event(event_id) is True
    assert services.ratings_apply_game(game_id=game.pk) is False
    assert RatingChange.objects.filter(game=game).count() == 2
    alice_rating = PlayerRating.objects.get(user=alice, variant="base")
    bob_rating = PlayerRating.objects.get(user=bob, variant="base")
    assert (alice_rating.games, bob_rating.games) == (1, 1)
    assert alice_rating.rating > 1500 > bob_rating.rating
    assert alice_rating.rd < 350


def test_an_unrated_game_changes_no_rating(players: list[Any]) -> None:
    alice, bob = players[:2]
    game = game_services.game_create(creator=alice, seats=2, invited=[bob])
    game_services.seat_join(game=game, user=bob)
    game_services.game_resign(game=game, user=bob)
    consume_event(_finished_event(game.pk))
    assert not PlayerRating.objects.exists()
    assert not RatedGame.objects.exists()


def test_a_four_player_game_counts_as_pairwise_results(players: list[Any]) -> None:
    alice, bob, carol, dave = players
    game = finish(rated_game(alice, bob, carol, dave), {alice: 1, bob: 2, carol: 2, dave: 4})
    assert services.ratings_apply_game(game_id=game.pk)
    ratings = {r.user.username: r.rating for r in PlayerRating.objects.select_related("user")}
    assert ratings["alice"] > ratings["bob"] > ratings["dave"]
    assert ratings["bob"] == pytest.approx(ratings["carol"])
    bob_change = RatingChange.objects.get(game=game, user=bob)
    assert sorted((r["user_id"], r["score"]) for r in bob_change.results) == sorted(
        [(alice.pk, 0.0), (carol.pk, 0.5), (dave.pk, 1.0)]
    )


def test_wins_on_time_over_the_same_player_count_once_a_month_for_the_winner(
    players: list[Any], time_machine: Any
) -> None:
    alice, bob = players[:2]
    time_machine.move_to("2026-11-10 12:00:00Z")
    first = finish(rated_game(alice, bob), {alice: 1, bob: 2}, timed_out=(bob,))
    second = finish(rated_game(alice, bob), {alice: 1, bob: 2}, timed_out=(bob,))
    services.ratings_apply_game(game_id=first.pk)
    after_first = PlayerRating.objects.get(user=alice).rating
    bob_after_first = PlayerRating.objects.get(user=bob).rating
    services.ratings_apply_game(game_id=second.pk)
    # alice gains nothing from bob's second timeout this month; bob still loses.
    assert PlayerRating.objects.get(user=alice).rating == pytest.approx(after_first)
    assert PlayerRating.objects.get(user=bob).rating < bob_after_first
    assert RatingChange.objects.get(game=second, user=alice).results == [
        {"user_id": bob.pk, "score": 1.0, "counted": False}
    ]
    # Next month counts again.
    time_machine.move_to("2026-12-02 12:00:00Z")
    third = finish(rated_game(alice, bob), {alice: 1, bob: 2}, timed_out=(bob,))
    services.ratings_apply_game(game_id=third.pk)
    assert PlayerRating.objects.get(user=alice).rating > after_first


def test_ratings_are_kept_per_variant(players: list[Any]) -> None:
    alice, bob = players[:2]
    services.ratings_apply_game(game_id=finish(rated_game(alice, bob, variant="marvel"), {alice: 1, bob: 2}).pk)
    assert set(selectors.ratings_for_user(user_id=alice.pk)) == {"marvel"}


def test_the_public_profile_and_the_ratings_endpoint_show_the_ratings(players: list[Any]) -> None:
    alice, bob, carol = players[:3]
    services.ratings_apply_game(game_id=finish(rated_game(alice, bob), {alice: 1, bob: 2}).pk)
    client = client_for(carol, scopes=("read",))
    profile = client.get("/api/v1/players/alice/").json()
    assert set(profile["ratings"]["base"]) == {"rating", "rd", "volatility", "games"}
    assert profile["ratings"]["base"]["games"] == 1
    ratings = client.get("/api/v1/players/ALICE/ratings/").json()
    assert ratings == {"username": "alice", "ratings": profile["ratings"]}
    assert client.get("/api/v1/players/carol/").json()["ratings"] == {}


def test_the_ratings_of_an_unknown_player_are_a_problem(players: list[Any]) -> None:
    response = client_for(players[0], scopes=("read",)).get("/api/v1/players/nobody/ratings/")
    assert response.status_code == 404
    assert response["Content-Type"].startswith("application/problem+json")
    assert response.json()["code"] == "player_not_found"


def test_the_outbox_brings_a_finished_rated_game_to_the_ratings_consumer_by_itself(
    players: list[Any], django_capture_on_commit_callbacks: Any
) -> None:
    alice, bob = players[:2]
    game = rated_game(alice, bob)
    with django_capture_on_commit_callbacks(execute=True):
        game_services.game_resign(game=game, user=alice)
    assert PlayerRating.objects.get(user=bob).games == 1
    assert GameEventClaim.objects.get(event_id=_finished_event(game.pk), consumer="ratings").done_at is not None
