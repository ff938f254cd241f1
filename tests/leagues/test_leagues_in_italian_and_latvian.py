"""The leagues' refusals in the language of whoever reads them: a player's API
problem in the request's Accept-Language (its code unchanged), a league admin's
refusal in the admin's language, counts with Latvian's three plural forms."""

from __future__ import annotations

from typing import Any

import pytest
from django.utils import translation

from leagues import services
from leagues.errors import SeasonNotStartable
from tests.games.game_helpers import client_for
from tests.leagues.conftest import add_members, make_league, make_season

pytestmark = pytest.mark.django_db


def test_asking_twice_to_join_is_refused_in_italian_with_the_same_code(players: list[Any]) -> None:
    league = make_league()
    client = client_for(players[0])
    client.post(f"/api/v1/leagues/{league.pk}/join/")
    answer = client.post(f"/api/v1/leagues/{league.pk}/join/", HTTP_ACCEPT_LANGUAGE="it")
    body = answer.json()
    assert answer.status_code == 409 and body["code"] == "already_a_member"
    assert body["detail"] == "Hai già chiesto di entrare in Tuesday League."
    assert body["title"] == "Sei già membro di questa lega, o hai già chiesto di entrarci"
    assert answer["Content-Language"] == "it"


def test_an_unknown_league_is_refused_in_latvian(players: list[Any]) -> None:
    answer = client_for(players[0]).get("/api/v1/leagues/999999/", HTTP_ACCEPT_LANGUAGE="lv")
    assert answer.status_code == 404 and answer.json()["code"] == "league_not_found"
    assert answer.json()["detail"] == "Nav līgas ar id 999999."


@pytest.mark.parametrize(
    ("members", "words"),
    [(1, "ir 1 dalībnieks;"), (2, "ir 2 dalībnieki;"), (0, "ir 0 dalībnieku;")],
)
def test_a_season_too_small_to_start_counts_its_members_in_latvian(
    players: list[Any], members: int, words: str
) -> None:
    league = make_league(players_per_game=3)
    add_members(league, players[:members])
    season = make_season(league)
    with translation.override("lv"), pytest.raises(SeasonNotStartable) as refused:
        services.season_start(season_id=season.pk)
    assert words in refused.value.message and "spēlei ar 3 sēdvietām vajag vairāk" in refused.value.message
