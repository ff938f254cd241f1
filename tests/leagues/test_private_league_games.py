"""A private league game is seen by the admins of its league, as by its players
and the site's moderators, and by no other league's admin (games.selectors,
leagues.extension's visibility_q -> leagues.selectors.games_administered_q).

Personas (conftest.py): mallory administers "Mallory's League" (alice and bob
play in it); carol and dave play in "Another League", which erin administers.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import Client

from games.models import Game
from leagues import services
from leagues.models import League
from tests.games.game_helpers import client_for
from tests.leagues.conftest import add_members, make_league, make_season

pytestmark = pytest.mark.django_db


@pytest.fixture
def leagues(mallory: Any, erin: Any, players: list[Any]) -> tuple[League, League]:
    mine = make_league("Mallory's League", public=False)
    mine.admins.add(mallory)
    theirs = make_league("Another League", public=False)
    theirs.admins.add(erin)
    add_members(mine, players[:2])
    add_members(theirs, players[2:])
    services.season_start(season_id=make_season(mine).pk)
    services.season_start(season_id=make_season(theirs).pk)
    return mine, theirs


def game_of(league: League) -> Game:
    return Game.objects.get(league_game__season__league=league)


def test_a_league_admin_sees_the_private_games_of_their_league_and_no_other(
    leagues: tuple[League, League], mallory: Any
) -> None:
    mine, theirs = (game_of(league) for league in leagues)
    assert not mine.public and not theirs.public
    client = client_for(mallory)
    view = client.get(f"/api/v1/games/{mine.pk}/")
    assert view.status_code == 200 and view.json()["your_seat"] is None
    assert client.get(f"/api/v1/games/{mine.pk}/moves/").status_code == 200
    listed = client.get("/api/v1/games/").json()
    assert {game["id"] for game in listed["results"]} == {mine.pk}
    other = client.get(f"/api/v1/games/{theirs.pk}/")
    assert other.status_code == 404 and other.json()["code"] == "game_not_found"
    assert theirs.pk not in json.dumps(listed)


def test_another_leagues_admin_finds_no_such_game_on_any_route_or_page(
    leagues: tuple[League, League], erin: Any
) -> None:
    mine = game_of(leagues[0])
    client = client_for(erin)
    for suffix in ("", "moves/", "legal-moves/", "export/"):
        response = client.get(f"/api/v1/games/{mine.pk}/{suffix}")
        assert response.status_code == 404 and response.json()["code"] == "game_not_found", suffix
    move = {"move": "take WUG", "expected_version": mine.version}
    for suffix, body in (("join/", {}), ("resign/", {}), ("moves/", move)):
        assert client.post(f"/api/v1/games/{mine.pk}/{suffix}", body, format="json").status_code == 404, suffix
    browser = Client()
    browser.force_login(erin)
    assert browser.get(f"/games/{mine.pk}/").status_code == 404


def test_a_league_admin_watches_their_leagues_game_page_as_a_spectator(
    leagues: tuple[League, League], mallory: Any
) -> None:
    browser = Client()
    browser.force_login(mallory)
    html = browser.get(f"/games/{game_of(leagues[0]).pk}/").content.decode()
    assert "Watching a game" in html and 'name="move"' not in html
