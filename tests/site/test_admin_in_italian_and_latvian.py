"""The admin screens of accounts and leagues read in the operator's language
(the browser's Accept-Language): column labels, list filters and actions in
Italian and Latvian, and an action's count in Latvian's three plural forms."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from accounts.models import Player
from tests.games.game_helpers import make_player
from tests.leagues.conftest import make_league, make_season


@pytest.fixture
def superuser_client(client: Client, db: None) -> Client:
    root = get_user_model().objects.create_superuser("root", "root@example.com", "pw-for-tests-only")
    client.force_login(root)
    return client


def _page(client: Client, path: str, language: str) -> str:
    response = client.get(path, HTTP_ACCEPT_LANGUAGE=language)
    assert response.status_code == 200
    return response.content.decode()


def _disable(client: Client, how_many: int, language: str) -> str:
    players = [make_player(f"player{language}{how_many}x{n}") for n in range(how_many)]
    ids = list(Player.objects.filter(user__in=players).values_list("pk", flat=True))
    response = client.post(
        "/admin/accounts/player/",
        {"action": "disable_accounts", "_selected_action": ids, "post": "yes", "reason": "Spam accounts"},
        HTTP_ACCEPT_LANGUAGE=language,
        follow=True,
    )
    assert response.status_code == 200
    return response.content.decode()


def test_the_player_list_names_its_filters_and_actions_in_italian(superuser_client: Client, alice: Any) -> None:
    page = _page(superuser_client, "/admin/accounts/player/", "it")
    assert "Disattiva gli account selezionati" in page
    assert "Cancella per sempre gli account selezionati" in page
    assert "cancellato" in page  # the "erased" filter's title
    assert "Non vuoto" not in page  # its answers are Sì/No, not Django's words for a date field
    assert "Disable the selected accounts" not in page


def test_the_player_list_names_its_filters_and_actions_in_latvian(superuser_client: Client, alice: Any) -> None:
    page = _page(superuser_client, "/admin/accounts/player/", "lv")
    assert "Atspējot atlasītos kontus" in page
    assert "Dzēst atlasītos kontus uz visiem laikiem" in page
    assert "dzēsts" in page
    assert "Nav tukšs" not in page
    assert "Erase the selected accounts" not in page


def test_the_league_list_labels_its_members_column_in_italian_and_latvian(superuser_client: Client) -> None:
    make_league("Tuesday League")
    italian = _page(superuser_client, "/admin/leagues/league/", "it")
    latvian = _page(superuser_client, "/admin/leagues/league/", "lv")
    assert ">Membri<" in italian and ">Members<" not in italian
    assert ">Dalībnieki<" in latvian and ">Members<" not in latvian


def test_the_season_list_offers_starting_a_season_in_italian_and_latvian(superuser_client: Client) -> None:
    make_season(make_league("Tuesday League"))
    assert "Inizia la stagione" in _page(superuser_client, "/admin/leagues/season/", "it")
    assert "Sākt sezonu" in _page(superuser_client, "/admin/leagues/season/", "lv")


def test_disabling_accounts_counts_them_in_italian(superuser_client: Client) -> None:
    assert "Disattivato 1 account." in _disable(superuser_client, 1, "it")
    assert "Disattivati 2 account." in _disable(superuser_client, 2, "it")


@pytest.mark.parametrize(
    ("how_many", "words"),
    [(1, "Atspējots 1 konts."), (2, "Atspējoti 2 konti."), (11, "Atspējoti 11 kontu.")],
)
def test_disabling_accounts_counts_them_in_latvian_plural_forms(
    superuser_client: Client, how_many: int, words: str
) -> None:
    page = _disable(superuser_client, how_many, "lv")
    assert words in page
    assert "account" not in page.split("messagelist")[-1].split("</ul>")[0]
