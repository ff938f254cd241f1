"""The tournament pages in Italian and Latvian: a visitor's page follows
Accept-Language (or the language switch's cookie), a signed-in player's follows
the account's language; the catalogs' words are the glossaries' (round/raunds,
bye/brīvkārta) and counts use Latvian's three plural forms."""

from __future__ import annotations

import html
import re
from typing import Any

import pytest
from django.test import Client

from accounts.models import Player
from games import services as game_services
from tests.accounts.pages_helpers import logged_in_client
from tests.tournaments.conftest import rated_players
from tournaments import rounds, services
from tournaments.models import Tournament, TournamentGame


def text_of(answer: Any) -> str:
    content = answer.content.decode()
    content = re.sub(r"<(script|style)\b.*?</\1>", " ", content, flags=re.DOTALL)
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", content)))


def swiss(creator: Any, **fields: Any) -> Tournament:
    options = {"name": "Winter Swiss", "format": "swiss", "seats": 2, "rounds": 3, **fields}
    return services.tournament_create(creator=creator, **options)


@pytest.fixture
def players(db: None) -> list[Any]:
    return rated_players(5)


WORDS = {
    "it": [
        "Tornei",
        "Sistema svizzero",
        "Iscrizioni aperte",
        "Tempo di riflessione",
        "3 giorni per mossa, riserva di tempo di 1 giorno",
        "2 posti",
        "Organizzatore",
        "Classifica",
        "Accedi per partecipare.",
        "Gli abbinamenti del primo round si fanno quando il torneo inizia.",
    ],
    "lv": [
        "Turnīri",
        "Šveices sistēma",
        "Pieteikšanās atvērta",
        "Laika kontrole",
        "3 dienas gājienam, laika rezerve 1 diena",
        "2 sēdvietas",
        "Organizators",
        "Kopvērtējums",
        "Piesakies , lai pievienotos.",  # the link ends before the comma
        "Pirmā raunda galdi tiek sastādīti, kad sākas turnīrs.",
    ],
}


@pytest.mark.parametrize("language", ["it", "lv"])
def test_an_open_swiss_tournament_reads_in_the_visitors_language(players: list[Any], language: str) -> None:
    tournament = swiss(players[0], bank_seconds=24 * 3600)
    services.tournament_join(tournament_id=tournament.pk, user=players[1])

    answer = Client().get(f"/tournaments/{tournament.pk}/", HTTP_ACCEPT_LANGUAGE=language)

    assert answer.status_code == 200 and answer["Content-Language"] == language
    words = text_of(answer)
    missing = [word for word in WORDS[language] if word not in words]
    assert not missing, missing
    assert "Standings" not in words and "Log in to join." not in words


def test_the_language_switchs_cookie_wins_over_accept_language(players: list[Any]) -> None:
    tournament = swiss(players[0])
    browser = Client()
    browser.cookies["language"] = "lv"

    words = text_of(browser.get("/tournaments/", HTTP_ACCEPT_LANGUAGE="it"))

    assert "Šveices sistēma" in words and "Pieteikšanās atvērta" in words and tournament.name in words
    assert "Sistema svizzero" not in words


@pytest.mark.parametrize(
    ("language", "words"),
    [
        # "In gara" / "Spēlē": a tournament entry's word (msgctxt), not another app's "Playing".
        ("it", ["Partecipi a Winter Swiss.", "Il tuo stato nel torneo:", "In gara", "Lascia il torneo"]),
        ("lv", ["Tu piedalies turnīrā Winter Swiss.", "Tava dalība:", "Spēlē", "Izstāties"]),
    ],
)
def test_a_signed_in_player_joins_in_their_accounts_language(
    players: list[Any], language: str, words: list[str]
) -> None:
    tournament = swiss(players[0])
    Player.objects.filter(user=players[1]).update(language=language)

    joined = logged_in_client(players[1]).post(f"/tournaments/{tournament.pk}/join/", follow=True)

    assert joined["Content-Language"] == language
    said = text_of(joined)
    assert [word for word in words if word not in said] == []


@pytest.mark.parametrize(
    ("language", "words"),
    [
        ("it", ["Round 1", "Tavolo 1", "Partita", "In corso", "Riposo (bye): p3 (conta come un primo posto)"]),
        ("lv", ["1. raunds", "1. galds", "Spēle", "Notiek", "Brīvkārta: p3 (skaitās kā pirmā vieta)"]),
    ],
)
def test_a_running_swiss_round_names_its_tables_and_bye(players: list[Any], language: str, words: list[str]) -> None:
    tournament = swiss(players[0])
    for user in players[:3]:
        services.tournament_join(tournament_id=tournament.pk, user=user)
    services.tournament_start(tournament_id=tournament.pk, by=players[0])

    said = text_of(Client().get(f"/tournaments/{tournament.pk}/", HTTP_ACCEPT_LANGUAGE=language))

    assert [word for word in words if word not in said] == []


@pytest.mark.parametrize(
    ("language", "words"),
    [
        ("it", ["Eliminazione diretta", "Tabellone", "Quarti di finale", "Semifinali", "Finale", "riposo", "vinto da p4"]),
        ("lv", ["Izslēgšanas sistēma", "Turnīra koks", "Ceturtdaļfināli", "Pusfināli", "Fināls", "brīvkārta", "uzvarēja p4"]),
    ],
)
def test_a_knockouts_bracket_reads_in_italian_and_latvian(players: list[Any], language: str, words: list[str]) -> None:
    tournament = services.tournament_create(creator=players[0], name="Cup", format="knockout", seats=2)
    for user in players:
        services.tournament_join(tournament_id=tournament.pk, user=user)
    services.tournament_start(tournament_id=tournament.pk, by=players[0])
    # Five players in a bracket of eight: seeds 1-3 have byes, seeds 4 and 5 play.
    match = TournamentGame.objects.get(table__round__tournament=tournament)
    game_services.game_resign(game=match.game, user=match.game.seats.get(user__username="p5").user)
    rounds.tournament_advance(tournament_id=tournament.pk)

    said = text_of(Client().get(f"/tournaments/{tournament.pk}/", HTTP_ACCEPT_LANGUAGE=language))

    assert [word for word in words if word not in said] == []
    assert "Quarter-finals" not in said and "won by p4" not in said
