"""The leagues API: lists, a league, standings, joining and leaving, the next game, and its problems."""

from __future__ import annotations

from typing import Any

from leagues import services
from leagues.models import Membership
from tests.games.game_helpers import client_for
from tests.leagues.builders import finish
from tests.leagues.conftest import add_members, make_league, make_season


def _problem(response: Any, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.content
    assert response["Content-Type"].startswith("application/problem+json")
    body: dict[str, Any] = response.json()
    assert body["code"] == code
    assert body["detail"]
    return body


def test_the_league_list_and_a_league_show_the_rules_and_your_membership(players: list[Any]) -> None:
    alice = players[0]
    league = make_league(players_per_game=4, points_for_place=[4, 2, 1, 0], vacation_allowed=False)
    make_season(league)
    client = client_for(alice, scopes=("read",))
    listed = client.get("/api/v1/leagues/").json()
    assert [entry["name"] for entry in listed] == ["Tuesday League"]
    assert listed[0]["points_for_place"] == [4, 2, 1, 0]
    assert listed[0]["vacation_allowed"] is False
    detail = client.get(f"/api/v1/leagues/{league.pk}/").json()
    assert detail["seasons"] == [{"number": 1, "starts_on": "2026-11-01", "ends_on": "2099-12-31", "started": False}]
    assert detail["your_membership"] is None and detail["members"] == 0


def test_an_unknown_league_or_season_is_a_problem(players: list[Any]) -> None:
    league = make_league()
    client = client_for(players[0], scopes=("read",))
    _problem(client.get("/api/v1/leagues/999/"), 404, "league_not_found")
    _problem(client.get("/api/v1/leagues/999/seasons/1/standings/"), 404, "league_not_found")
    body = _problem(client.get(f"/api/v1/leagues/{league.pk}/seasons/7/standings/"), 404, "season_not_found")
    assert "has none yet" in body["detail"]


def test_joining_waits_for_a_league_admin_and_asking_twice_is_a_conflict(players: list[Any]) -> None:
    alice = players[0]
    league = make_league()
    client = client_for(alice)
    response = client.post(f"/api/v1/leagues/{league.pk}/join/")
    assert response.status_code == 202
    assert response.json() == {"league": league.pk, "status": "pending"}
    body = _problem(client.post(f"/api/v1/leagues/{league.pk}/join/"), 409, "already_a_member")
    assert body["membership_status"] == "pending"
    assert client.get(f"/api/v1/leagues/{league.pk}/").json()["your_membership"] == "pending"


def test_joining_needs_the_play_scope(players: list[Any]) -> None:
    league = make_league()
    response = client_for(players[0], scopes=("read",)).post(f"/api/v1/leagues/{league.pk}/join/")
    _problem(response, 403, "insufficient_scope")
    assert not Membership.objects.exists()


def test_leaving_a_league_you_are_not_in_is_a_conflict_and_a_member_asks_to_leave(players: list[Any]) -> None:
    alice, bob = players[:2]
    league = make_league()
    add_members(league, [bob])
    _problem(client_for(alice).post(f"/api/v1/leagues/{league.pk}/leave/"), 409, "not_a_league_member")
    response = client_for(bob).post(f"/api/v1/leagues/{league.pk}/leave/")
    assert response.status_code == 202 and response.json()["status"] == "leaving"


def test_a_league_below_your_reliability_is_unprocessable(players: list[Any]) -> None:
    from games.models import GameEvent
    from tests.leagues.builders import rated_game

    alice, bob = players[:2]
    game = rated_game(alice, bob)
    for _ in range(3):
        GameEvent.objects.create(game=game, kind=GameEvent.Kind.TURN_TIMED_OUT, payload={"user_id": alice.pk})
    league = make_league(min_reliability=90)
    body = _problem(client_for(alice).post(f"/api/v1/leagues/{league.pk}/join/"), 422, "reliability_too_low")
    assert body["min_reliability"] == 90


def test_the_standings_endpoint_ranks_the_season(players: list[Any]) -> None:
    alice, bob = players[:2]
    league = make_league()
    add_members(league, [alice, bob])
    season = make_season(league)
    game = services.season_start(season_id=season.pk)[0].game
    finish(game, {alice: 2, bob: 1}, scores_by_user={alice: 9, bob: 15})
    body = client_for(players[2], scopes=("read",)).get(f"/api/v1/leagues/{league.pk}/seasons/1/standings/").json()
    assert body["league"] == league.pk and body["season"] == 1
    assert [(row["rank"], row["username"], row["points"], row["wins"]) for row in body["standings"]] == [
        (1, "bob", 3, 1),
        (2, "alice", 1, 0),
    ]
    assert body["standings"][0]["total_score"] == 15


def test_the_next_game_names_a_game_where_it_is_your_turn(players: list[Any]) -> None:
    alice, bob = players[:2]
    league = make_league(longest_waiting_first=True)
    add_members(league, [alice, bob])
    game = services.season_start(season_id=make_season(league).pk)[0].game
    game.refresh_from_db()
    to_move = game.seats.get(index=game.to_move).user
    waiting = bob if to_move == alice else alice
    body = client_for(to_move, scopes=("read",)).get(f"/api/v1/leagues/{league.pk}/next-game/").json()
    assert body["game_id"] == game.pk and body["longest_waiting_first"] is True
    other = client_for(waiting, scopes=("read",)).get(f"/api/v1/leagues/{league.pk}/next-game/").json()
    assert other["game_id"] is None


def test_the_league_answers_leak_no_hidden_information(players: list[Any]) -> None:
    alice, bob = players[:2]
    league = make_league()
    add_members(league, [alice, bob])
    game = services.season_start(season_id=make_season(league).pk)[0].game
    game.refresh_from_db()
    client = client_for(alice, scopes=("read",))
    answers = [
        client.get(f"/api/v1/leagues/{league.pk}/").content,
        client.get(f"/api/v1/leagues/{league.pk}/seasons/1/standings/").content,
        client.get(f"/api/v1/leagues/{league.pk}/next-game/").content,
    ]
    # The seed to hide exists. (The next game is alice's only when it is her turn:
    # on PostgreSQL the first seat is another's as often as hers.)
    assert game.seed and all(answers)
    for answer in answers:
        assert game.seed.encode() not in answer
        assert b"deck" not in answer
