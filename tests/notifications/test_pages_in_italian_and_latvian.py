"""The new-game page, the settings page and the pages behind the email links in
Italian and Latvian: a signed-in player's pages in the account's language, the
unsubscribe page in the language of the account its link was sent to, and the
refusals of the new-game page in the player's language, next to their field."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from accounts.models import Player
from notifications.email.links import unsubscribe_url
from notifications.models import Preferences
from tests.accounts.pages_helpers import logged_in_client

pytestmark = pytest.mark.django_db

FORM = {"variant": "base", "seats": "2", "invite": "", "move_timeout_hours": "72", "bank_hours": "0"}


def speaking(user: Any, language: str) -> Any:
    Player.objects.filter(user=user).update(language=language)
    return user


def test_the_new_game_page_is_in_italian_for_an_italian_player(alice: Any) -> None:
    page = logged_in_client(speaking(alice, "it")).get("/accounts/games/new/").content.decode()
    assert "<h1>Nuova partita</h1>" in page
    assert "Da 2 a 4, tu compreso." in page and "Tempo per mossa (ore)" in page
    assert "Inizia la partita" in page
    assert "New game" not in page and "Start the game" not in page and "you included" not in page


def test_an_unknown_username_is_refused_in_latvian_next_to_the_invitations(alice: Any) -> None:
    client = logged_in_client(speaking(alice, "lv"))
    page = client.post("/accounts/games/new/", {**FORM, "invite": "nobody"}).content.decode()
    assert "Nav spēlētāja ar lietotājvārdu nobody." in page
    assert 'id="id_invite_error"' in page


def test_inviting_too_many_is_refused_in_italian_next_to_the_invitations(alice: Any, bob: Any, charlie: Any) -> None:
    client = logged_in_client(speaking(alice, "it"))
    page = client.post("/accounts/games/new/", {**FORM, "invite": "bob, charlie"}).content.decode()
    assert "Hai invitato 2 giocatori, ma una partita a 2 posti ne ha 1 oltre al tuo." in page
    assert 'id="id_invite_error"' in page


def test_the_settings_page_is_in_latvian_for_a_latvian_player(alice: Any) -> None:
    page = logged_in_client(speaking(alice, "lv")).get("/accounts/settings/").content.decode()
    assert "<h1>Iestatījumi</h1>" in page
    assert "Saglabāt laika joslu" in page and "Atgādinājumi (stundas pirms termiņa)" in page
    assert "E-pasts par katru gājienu" in page
    assert "Save the time zone" not in page and "An email for every turn" not in page


def test_the_unsubscribe_page_speaks_the_language_of_the_account_its_link_was_sent_to(bob: Any) -> None:
    speaking(bob, "lv")
    path = unsubscribe_url(user_id=bob.pk).split("://", 1)[1].split("/", 1)[1]
    asked = Client().get(f"/{path}", HTTP_ACCEPT_LANGUAGE="en")
    assert "Pārtraukt spēļu e-pastus" in asked.content.decode()
    assert asked["Content-Language"] == "lv"
    done = Client().post(f"/{path}")
    assert "Gatavs: tu vairs nesaņemsi spēļu e-pastus." in done.content.decode()
    assert Preferences.objects.get(user=bob).mode == "off"


def test_a_link_that_is_not_valid_is_told_in_the_visitors_language() -> None:
    answer = Client().get("/notifications/unsubscribe/not-a-token/", HTTP_ACCEPT_LANGUAGE="it")
    assert answer.status_code == 404
    assert "Questo link non è valido" in answer.content.decode()


@pytest.mark.parametrize(
    ("language", "section"), [("en", "Game email"), ("it", "Email di gioco"), ("lv", "Spēļu e-pasts")]
)
def test_the_email_link_pages_send_a_person_to_the_settings_page_not_the_api(
    bob: Any, language: str, section: str
) -> None:
    speaking(bob, language)
    path = unsubscribe_url(user_id=bob.pk).split("://", 1)[1].split("/", 1)[1]
    asked = Client().get(f"/{path}").content.decode()
    altered = Client().get("/notifications/unsubscribe/not-a-token/", HTTP_ACCEPT_LANGUAGE=language).content.decode()
    for html in (asked, altered):
        assert f'"{section}"' in html and 'href="/accounts/settings/#email"' in html
        assert "/api/" not in html and "PATCH" not in html
