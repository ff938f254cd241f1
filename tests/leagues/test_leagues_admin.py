"""The league admin: a staff user in "League admins" sees and changes only their own leagues."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import Group
from django.test import Client

from games.models import Game
from leagues import services
from leagues.models import League, Membership, Season
from leagues.services import LEAGUE_ADMINS_GROUP
from tests.leagues.conftest import add_members, make_league, make_season


def _client(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _two_leagues(mallory: Any, players: list[Any]) -> tuple[League, League]:
    mine = make_league("Mallory's League")
    mine.admins.add(mallory)
    theirs = make_league("Another League")
    add_members(mine, players[:2])
    add_members(theirs, players[2:])
    return mine, theirs


def test_the_league_admins_group_exists_with_permissions_on_league_models(db: None) -> None:
    group = Group.objects.get(name=LEAGUE_ADMINS_GROUP)
    codenames = set(group.permissions.values_list("codename", flat=True))
    assert {"change_league", "add_season", "change_membership", "view_leaguescopedgame"} <= codenames
    assert "add_league" not in codenames and "delete_league" not in codenames


def test_a_league_admin_lists_only_their_own_leagues(mallory: Any, players: list[Any]) -> None:
    _two_leagues(mallory, players)
    page = _client(mallory).get("/admin/leagues/league/")
    assert page.status_code == 200
    assert "Mallory&#x27;s League" in page.content.decode() or "Mallory's League" in page.content.decode()
    assert "Another League" not in page.content.decode()


def test_a_league_admin_cannot_open_or_change_another_league(mallory: Any, players: list[Any]) -> None:
    mine, theirs = _two_leagues(mallory, players)
    client = _client(mallory)
    assert client.get(f"/admin/leagues/league/{mine.pk}/change/").status_code == 200
    # Django's admin answers a change view outside the queryset with a redirect to the index.
    response = client.get(f"/admin/leagues/league/{theirs.pk}/change/")
    assert response.status_code == 302
    client.post(f"/admin/leagues/league/{theirs.pk}/change/", {"name": "Taken over"})
    theirs.refresh_from_db()
    assert theirs.name == "Another League"


def test_a_league_admin_sees_and_decides_only_their_leagues_requests(mallory: Any, players: list[Any], erin: Any) -> None:
    mine, theirs = _two_leagues(mallory, players)
    own = services.league_join_request(league=mine, user=erin)
    other = services.league_join_request(league=theirs, user=erin)
    client = _client(mallory)
    listing = client.get("/admin/leagues/membership/?status__exact=pending").content.decode()
    assert f"/admin/leagues/membership/{own.pk}/change/" in listing
    assert f"/admin/leagues/membership/{other.pk}/change/" not in listing
    # A selection reaching into another league is refused whole, not quietly trimmed.
    mixed = client.post(
        "/admin/leagues/membership/",
        {"action": "approve", "_selected_action": [str(own.pk), str(other.pk)]},
    )
    assert mixed.status_code == 403
    assert Membership.objects.get(pk=own.pk).status == Membership.Status.PENDING
    client.post("/admin/leagues/membership/", {"action": "approve", "_selected_action": [str(own.pk)]})
    assert Membership.objects.get(pk=own.pk).status == Membership.Status.ACTIVE
    assert Membership.objects.get(pk=other.pk).status == Membership.Status.PENDING


def test_a_league_admin_starts_their_season_and_sees_only_its_games(mallory: Any, players: list[Any]) -> None:
    mine, theirs = _two_leagues(mallory, players)
    my_season = make_season(mine)
    their_season = make_season(theirs)
    services.season_start(season_id=their_season.pk)
    client = _client(mallory)
    client.post("/admin/leagues/season/", {"action": "start_seasons", "_selected_action": [str(my_season.pk)]})
    my_season.refresh_from_db()
    assert my_season.started_at is not None
    listing = client.get("/admin/leagues/leaguescopedgame/").content.decode()
    my_game = Game.objects.get(league_game__season=my_season)
    their_game = Game.objects.get(league_game__season=their_season)
    assert my_game.pk in listing and their_game.pk not in listing
    assert client.get(f"/admin/leagues/leaguescopedgame/{their_game.pk}/change/").status_code == 404
    # Starting another league's season from the list is not possible either.
    other = Season.objects.create(league=theirs, number=2, starts_on=my_season.starts_on, ends_on=my_season.ends_on)
    client.post("/admin/leagues/season/", {"action": "start_seasons", "_selected_action": [str(other.pk)]})
    other.refresh_from_db()
    assert other.started_at is None


def test_a_league_admin_moderates_their_league_games_with_the_game_moderation_actions(
    mallory: Any, players: list[Any]
) -> None:
    mine, theirs = _two_leagues(mallory, players)
    services.season_start(season_id=make_season(mine).pk)
    services.season_start(season_id=make_season(theirs).pk)
    client = _client(mallory)
    actions = client.get("/admin/leagues/leaguescopedgame/").context["action_form"].fields["action"].choices
    names = {name for name, _ in actions}
    assert "moderate_abort" in names
    their_game = Game.objects.get(league_game__season__league=theirs)
    response = client.post(
        "/admin/leagues/leaguescopedgame/",
        {"action": "moderate_abort", "_selected_action": [their_game.pk], "post": "yes", "reason": "test"},
    )
    their_game.refresh_from_db()
    assert their_game.status == Game.Status.ACTIVE
    assert response.status_code == 403
    my_game = Game.objects.get(league_game__season__league=mine)
    client.post(
        "/admin/leagues/leaguescopedgame/",
        {"action": "moderate_abort", "_selected_action": [my_game.pk], "post": "yes", "reason": "Both players asked"},
    )
    my_game.refresh_from_db()
    assert my_game.status == Game.Status.ABORTED


def test_the_season_page_shows_the_standings(mallory: Any, players: list[Any]) -> None:
    mine, _ = _two_leagues(mallory, players)
    season = make_season(mine)
    services.season_start(season_id=season.pk)
    page = _client(mallory).get(f"/admin/leagues/season/{season.pk}/change/").content.decode()
    assert "head-to-head" in page and "alice" in page and "bob" in page
