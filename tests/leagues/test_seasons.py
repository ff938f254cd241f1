"""Starting a season, late joiners and dropouts, membership requests."""

from __future__ import annotations

from collections import Counter
from datetime import timedelta
from typing import Any

import pytest

from games.models import Game, GameEvent, Move, PlayedBy, Seat
from leagues import selectors, services
from leagues.errors import AlreadyAMember, NotALeagueMember, ReliabilityTooLow, SeasonNotStartable
from leagues.models import Division, LeagueGame, Membership, SeasonEntry
from tests.leagues.conftest import add_members, make_league, make_season


def _players_of(game: Game) -> list[int]:
    return list(Seat.objects.filter(game=game).order_by("join_position").values_list("user_id", flat=True))


def test_a_two_player_season_starts_every_round_robin_game_at_once(players: list[Any]) -> None:
    league = make_league(move_seconds=48 * 3600, forfeit_after=2, rated=True)
    add_members(league, players)
    season = make_season(league)
    created = services.season_start(season_id=season.pk)
    assert len(created) == 6  # 4 players: every pair once
    met = Counter(frozenset(_players_of(lg.game)) for lg in created)
    assert set(met.values()) == {1} and len(met) == 6
    for league_game in created:
        game = league_game.game
        game.refresh_from_db()
        assert game.status == Game.Status.ACTIVE
        assert (game.move_seconds, game.forfeit_after, game.rated) == (48 * 3600, 2, True)
    season.refresh_from_db()
    assert season.started_at is not None
    assert SeasonEntry.objects.filter(season=season).count() == 4


def test_a_season_of_four_player_tables_seats_every_member(players: list[Any]) -> None:
    league = make_league(players_per_game=4, points_for_place=[4, 2, 1, 0])
    add_members(league, players)
    created = services.season_start(season_id=make_season(league).pk)
    assert len(created) == 1
    assert sorted(_players_of(created[0].game)) == sorted(p.pk for p in players)


def test_a_season_starts_once(players: list[Any]) -> None:
    league = make_league()
    add_members(league, players[:2])
    season = make_season(league)
    services.season_start(season_id=season.pk)
    with pytest.raises(SeasonNotStartable):
        services.season_start(season_id=season.pk)
    assert LeagueGame.objects.filter(season=season).count() == 1


def test_a_season_with_too_few_members_creates_nothing(players: list[Any]) -> None:
    league = make_league(players_per_game=3, points_for_place=[3, 1, 0])
    add_members(league, players[:2])
    season = make_season(league)
    with pytest.raises(SeasonNotStartable, match="needs more"):
        services.season_start(season_id=season.pk)
    season.refresh_from_db()
    assert season.started_at is None and not Game.objects.exists()


def test_a_league_larger_than_its_division_size_plays_in_divisions(players: list[Any], erin: Any) -> None:
    league = make_league(division_size=2)
    add_members(league, [*players, erin])
    created = services.season_start(season_id=make_season(league).pk)
    # 5 players in divisions of 2: the last one joins the division above (2 + 3).
    assert Division.objects.filter(league=league).count() == 2
    sizes = sorted(Counter(SeasonEntry.objects.values_list("division__level", flat=True)).values())
    assert sizes == [2, 3]
    assert len(created) == 1 + 3
    for league_game in created:
        levels = {
            SeasonEntry.objects.get(season=league_game.season, user_id=u).division_id
            for u in _players_of(league_game.game)
        }
        assert levels == {league_game.division_id}


def test_a_late_joiner_plays_everyone_still_in_the_season(players: list[Any], erin: Any) -> None:
    league = make_league()
    add_members(league, players[:3])
    season = make_season(league)
    services.season_start(season_id=season.pk)
    membership = services.league_join_request(league=league, user=erin)
    services.membership_approve(membership_id=membership.pk, by=None)
    erins_games = Game.objects.filter(league_game__season=season, seats__user=erin)
    assert erins_games.count() == 3
    assert all(g.status == Game.Status.ACTIVE for g in erins_games)
    assert SeasonEntry.objects.get(season=season, user=erin).late


def test_a_member_who_leaves_mid_season_forfeits_the_games_still_running(players: list[Any]) -> None:
    alice = players[0]
    league = make_league()
    add_members(league, players[:3])
    season = make_season(league)
    services.season_start(season_id=season.pk)
    services.league_leave_request(league=league, user=alice)
    membership = Membership.objects.get(league=league, user=alice)
    services.membership_approve(membership_id=membership.pk, by=None)
    membership.refresh_from_db()
    assert membership.status == Membership.Status.LEFT
    for game in Game.objects.filter(league_game__season=season, seats__user=alice):
        assert game.status == Game.Status.FINISHED
        assert game.result is not None
        alice_seat = Seat.objects.get(game=game, user=alice)
        assert game.result["places"][alice_seat.index] == 2
    assert SeasonEntry.objects.get(season=season, user=alice).dropped_at is not None


def test_asking_twice_to_join_is_refused_with_the_current_status(players: list[Any]) -> None:
    league = make_league()
    services.league_join_request(league=league, user=players[0])
    with pytest.raises(AlreadyAMember) as raised:
        services.league_join_request(league=league, user=players[0])
    assert raised.value.fields == {"membership_status": "pending"}


def test_withdrawing_a_join_request_forgets_it_and_leaving_twice_is_refused(players: list[Any]) -> None:
    league = make_league()
    services.league_join_request(league=league, user=players[0])
    assert services.league_leave_request(league=league, user=players[0]) is None
    with pytest.raises(NotALeagueMember):
        services.league_leave_request(league=league, user=players[0])


def test_a_rejected_player_may_ask_again(players: list[Any]) -> None:
    league = make_league()
    membership = services.league_join_request(league=league, user=players[0])
    services.membership_reject(membership_id=membership.pk, by=None)
    assert services.league_join_request(league=league, user=players[0]).status == Membership.Status.PENDING


def _timeouts_and_moves(user: Any, game: Game, *, moves: int, timeouts: int) -> None:
    seat = Seat.objects.get(game=game, user=user)
    start = Move.objects.filter(game=game).count()
    for ply in range(start, start + moves):
        Move.objects.create(game=game, ply=ply, seat=seat.index, text="pass", played_by=PlayedBy.PLAYER)
    for _ in range(timeouts):
        GameEvent.objects.create(game=game, kind=GameEvent.Kind.TURN_TIMED_OUT, payload={"user_id": user.pk})


def test_reliability_is_the_share_of_turns_played_before_the_deadline(players: list[Any]) -> None:
    alice, bob = players[:2]
    league = make_league()
    add_members(league, [alice, bob])
    game = services.season_start(season_id=make_season(league).pk)[0].game
    played_before = selectors.reliability(user_id=alice.pk) or 0.0
    assert played_before in (0.0, 1.0)
    alice_seat = Seat.objects.get(game=game, user=alice).index
    base = Move.objects.filter(game=game, played_by=PlayedBy.PLAYER, seat=alice_seat).count()
    _timeouts_and_moves(alice, game, moves=6 - base, timeouts=4)
    assert selectors.reliability(user_id=alice.pk) == pytest.approx(0.6)
    assert selectors.reliability(user_id=players[2].pk) is None


def test_a_league_that_wants_reliable_players_refuses_one_below_its_bar(players: list[Any]) -> None:
    alice, bob = players[:2]
    casual = make_league("Casual")
    add_members(casual, [alice, bob])
    game = services.season_start(season_id=make_season(casual).pk)[0].game
    _timeouts_and_moves(alice, game, moves=1, timeouts=9)
    strict = make_league("Strict", min_reliability=80)
    with pytest.raises(ReliabilityTooLow) as raised:
        services.league_join_request(league=strict, user=alice)
    assert raised.value.fields["min_reliability"] == 80
    assert raised.value.fields["reliability"] < 80
    assert not Membership.objects.filter(league=strict, user=alice).exists()
    # A player with no turns yet is let in.
    assert services.league_join_request(league=strict, user=players[3]).status == "pending"


def test_the_next_game_is_the_one_that_has_waited_longest(players: list[Any]) -> None:
    league = make_league(longest_waiting_first=True)
    add_members(league, players)
    services.season_start(season_id=make_season(league).pk)
    to_move: dict[int, list[Game]] = {}
    for game in Game.objects.filter(league_game__season__league=league):
        to_move.setdefault(Seat.objects.get(game=game, index=game.to_move).user_id, []).append(game)
    user_id, games = max(to_move.items(), key=lambda item: len(item[1]))
    assert len(games) >= 2
    oldest = games[-1]
    Game.objects.filter(pk=oldest.pk).update(turn_started_at=oldest.turn_started_at - timedelta(hours=5))
    user = next(p for p in players if p.pk == user_id)
    assert selectors.next_game(league=league, user=user) == oldest
    others = [p for p in players if p.pk not in to_move]
    for player in others:
        assert selectors.next_game(league=league, user=player) is None


def test_a_late_joiner_at_three_player_tables_meets_everyone_once(players: list[Any], erin: Any) -> None:
    league = make_league(players_per_game=3, points_for_place=[3, 1, 0])
    add_members(league, players)
    season = make_season(league)
    services.season_start(season_id=season.pk)
    membership = services.league_join_request(league=league, user=erin)
    services.membership_approve(membership_id=membership.pk, by=None)
    tables = [set(_players_of(g)) for g in Game.objects.filter(league_game__season=season, seats__user=erin)]
    assert len(tables) == 2
    met = Counter(user for table in tables for user in table if user != erin.pk)
    assert met == Counter({p.pk: 1 for p in players})


def test_deciding_a_membership_with_no_request_waiting_is_refused(players: list[Any]) -> None:
    from leagues.errors import NoRequestToDecide

    league = make_league()
    add_members(league, players[:1])
    membership = Membership.objects.get(league=league)
    with pytest.raises(NoRequestToDecide):
        services.membership_approve(membership_id=membership.pk, by=None)
    with pytest.raises(NoRequestToDecide):
        services.membership_reject(membership_id=membership.pk, by=None)
    membership.refresh_from_db()
    assert membership.status == Membership.Status.ACTIVE
