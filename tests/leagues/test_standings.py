"""Standings: points by place, then wins, head-to-head and prestige; ties share a rank."""

from __future__ import annotations

from typing import Any

from games.models import Game
from leagues import selectors, services
from leagues.models import LeagueGame, Season
from tests.leagues.builders import finish
from tests.leagues.conftest import add_members, make_league, make_season


def _game_between(season: Season, a: Any, b: Any) -> Game:
    for league_game in LeagueGame.objects.filter(season=season).select_related("game"):
        users = set(league_game.game.seats.values_list("user_id", flat=True))
        if users == {a.pk, b.pk}:
            return league_game.game
    raise AssertionError("no such game")


def _table(season: Season) -> list[tuple[int, str, int]]:
    return [(row.rank, row.username, row.points) for row in selectors.season_standings(season=season)]


def test_points_by_place_rank_the_players_and_unplayed_games_score_nothing(players: list[Any]) -> None:
    alice, bob, carol, _ = players
    league = make_league(points_for_place=[3, 1])
    add_members(league, [alice, bob, carol])
    season = make_season(league)
    services.season_start(season_id=season.pk)
    finish(_game_between(season, alice, bob), {alice: 1, bob: 2})
    finish(_game_between(season, alice, carol), {alice: 1, carol: 2})
    assert _table(season) == [(1, "alice", 6), (2, "bob", 1), (2, "carol", 1)]


def test_a_shared_place_scores_that_places_points(players: list[Any]) -> None:
    alice, bob = players[:2]
    league = make_league(points_for_place=[3, 1])
    add_members(league, [alice, bob])
    season = make_season(league)
    services.season_start(season_id=season.pk)
    finish(_game_between(season, alice, bob), {alice: 1, bob: 1})
    assert _table(season) == [(1, "alice", 3), (1, "bob", 3)]


def test_players_level_on_points_and_wins_are_split_by_head_to_head_then_prestige(players: list[Any]) -> None:
    alice, bob, carol, dave = players
    league = make_league(players_per_game=4, points_for_place=[4, 2, 1, 0])
    add_members(league, players)
    season = make_season(league)
    services.season_start(season_id=season.pk)
    game = LeagueGame.objects.get(season=season).game
    finish(game, {alice: 1, bob: 2, carol: 2, dave: 4}, scores_by_user={alice: 15, bob: 12, carol: 13, dave: 3})
    rows = selectors.season_standings(season=season)
    # bob and carol: the same points, wins and head-to-head (a shared place): prestige decides.
    assert [(r.username, r.points, r.rank) for r in rows] == [
        ("alice", 4, 1),
        ("carol", 2, 2),
        ("bob", 2, 3),
        ("dave", 0, 4),
    ]


def test_head_to_head_decides_before_prestige(players: list[Any]) -> None:
    alice, bob, carol, _ = players
    league = make_league(points_for_place=[2, 0])
    add_members(league, [alice, bob, carol])
    season = make_season(league)
    services.season_start(season_id=season.pk)
    # A circle: everyone won once; bob has the most prestige, but alice beat bob,
    # bob beat carol and carol beat alice: head-to-head is level among the three.
    finish(_game_between(season, alice, bob), {alice: 1, bob: 2}, scores_by_user={alice: 15, bob: 14})
    finish(_game_between(season, bob, carol), {bob: 1, carol: 2}, scores_by_user={bob: 20, carol: 1})
    finish(_game_between(season, carol, alice), {carol: 1, alice: 2}, scores_by_user={carol: 15, alice: 2})
    rows = selectors.season_standings(season=season)
    assert [(r.username, r.head_to_head, r.total_score) for r in rows] == [
        ("bob", 0, 34),
        ("alice", 0, 17),
        ("carol", 0, 16),
    ]
    assert [r.rank for r in rows] == [1, 2, 3]


def test_head_to_head_splits_players_level_on_points_and_wins_before_prestige(players: list[Any]) -> None:
    alice, bob, carol, dave = players
    league = make_league(points_for_place=[3, 0])
    add_members(league, players)
    season = make_season(league)
    services.season_start(season_id=season.pk)
    # alice and bob: 1 win each; bob has more prestige but alice beat him.
    finish(_game_between(season, alice, bob), {alice: 1, bob: 2}, scores_by_user={alice: 15, bob: 1})
    finish(_game_between(season, bob, carol), {bob: 1, carol: 2}, scores_by_user={bob: 40})
    finish(_game_between(season, alice, dave), {alice: 2, dave: 1}, scores_by_user={dave: 15})
    rows = selectors.season_standings(season=season)
    # Level at 3 points and 1 win: dave beat alice, alice beat bob; bob's 41 prestige comes after.
    assert [(r.username, r.points, r.head_to_head) for r in rows] == [
        ("dave", 3, 1),
        ("alice", 3, 0),
        ("bob", 3, -1),
        ("carol", 0, 0),
    ]


def test_with_divisions_the_standings_go_division_by_division_and_ranks_start_again(
    players: list[Any], erin: Any
) -> None:
    league = make_league(division_size=2)
    add_members(league, [*players, erin])
    season = make_season(league)
    services.season_start(season_id=season.pk)
    rows = selectors.season_standings(season=season)
    assert [r.division for r in rows] == ["Division 1"] * 2 + ["Division 2"] * 3
    assert [r.rank for r in rows] == [1, 1, 1, 1, 1]  # nobody has played: everyone level


def test_a_league_refuses_points_that_reward_a_worse_place_or_have_too_many_places(db: None) -> None:
    import pytest
    from django.core.exceptions import ValidationError

    with pytest.raises(ValidationError, match="never scores fewer"):
        make_league(points_for_place=[1, 3]).clean()
    with pytest.raises(ValidationError, match="2 places"):
        make_league("Other", points_for_place=[3, 2, 1]).clean()
    make_league("Fine", players_per_game=4, points_for_place=[4, 2, 1, 0]).clean()
