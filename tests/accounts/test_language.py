"""Player.language: the language of a player's emails, email replies and pages.

Chosen at sign-up from the browser's Accept-Language (or the optional
`language`), changed by PATCH /api/v1/me/, the settings page and the pages'
language switch (/i18n/setlang/). A signed-in player's pages follow the
account; a visitor's follow Accept-Language. Answers say which language they are
in (Content-Language) and that it depends on Accept-Language (Vary).
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

import pytest
from django.test import Client
from django.utils import translation

from accounts.language import language_of, language_supported
from accounts.models import Player
from core.text import moment_words
from tests.accounts.conftest import client_with
from tests.accounts.pages_helpers import logged_in_client
from tests.games.game_helpers import client_for

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("header", "language"),
    [("it-IT,it;q=0.9,en;q=0.8", "it"), ("lv", "lv"), ("de-DE,de;q=0.9", "en"), ("", "en"), ("en-GB", "en")],
)
def test_sign_up_through_the_api_takes_the_language_the_browser_asks_for(
    header: str, language: str, django_capture_on_commit_callbacks: Any
) -> None:
    extra = {"HTTP_ACCEPT_LANGUAGE": header} if header else {}
    with django_capture_on_commit_callbacks(execute=True):
        answer = client_with().post(
            "/api/v1/players/",
            {"username": "carol", "email": "carol@example.com", "password": "a long and unusual passphrase"},
            format="json",
            **extra,
        )
    assert answer.status_code == 202, answer.content
    assert Player.objects.get(user__username="carol").language == language


def test_sign_up_takes_the_language_asked_for_over_the_browsers(django_capture_on_commit_callbacks: Any) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        answer = client_with().post(
            "/api/v1/players/",
            {"username": "carol", "email": "carol@example.com", "password": "a long and unusual passphrase",
             "language": "lv"},
            format="json",
            HTTP_ACCEPT_LANGUAGE="it",
        )
    assert answer.status_code == 202
    assert Player.objects.get(user__username="carol").language == "lv"


def test_sign_up_refuses_a_language_the_service_does_not_speak() -> None:
    answer = client_with().post(
        "/api/v1/players/",
        {"username": "carol", "email": "carol@example.com", "password": "a long and unusual passphrase",
         "language": "de"},
        format="json",
    )
    assert answer.status_code == 400
    body = answer.json()
    assert body["code"] == "validation_error" and "language" in body["errors"]
    assert not Player.objects.filter(user__username="carol").exists()


def test_the_sign_up_page_takes_the_browsers_language(django_capture_on_commit_callbacks: Any) -> None:
    browser = Client(HTTP_ACCEPT_LANGUAGE="lv,en;q=0.5")
    page = browser.get("/accounts/signup/")
    assert '<option value="lv" selected>' in page.content.decode()
    with django_capture_on_commit_callbacks(execute=True):
        browser.post(
            "/accounts/signup/",
            {"username": "carol", "email": "carol@example.com", "password": "a long and unusual passphrase",
             "display_name": "", "language": ""},
        )
    assert Player.objects.get(user__username="carol").language == "lv"


def test_me_shows_and_changes_the_language(alice: Any) -> None:
    api = client_for(alice)
    assert api.get("/api/v1/me/").json()["language"] == "en"
    answer = api.patch("/api/v1/me/", {"language": "it"}, format="json")
    assert answer.status_code == 200 and answer.json()["language"] == "it"
    assert Player.objects.get(user=alice).language == "it"


def test_me_refuses_an_unknown_language_and_keeps_the_old_one(alice: Any) -> None:
    answer = client_for(alice).patch("/api/v1/me/", {"language": "klingon"}, format="json")
    assert answer.status_code == 400 and "language" in answer.json()["errors"]
    assert Player.objects.get(user=alice).language == "en"


def test_the_settings_page_saves_the_language_and_answers_in_it(alice: Any) -> None:
    browser = logged_in_client(alice)
    answer = browser.post("/accounts/settings/", {"form": "language", "language": "it"}, follow=True)
    assert Player.objects.get(user=alice).language == "it"
    assert answer["Content-Language"] == "it"
    assert '<html lang="it">' in answer.content.decode()


def test_a_signed_in_players_pages_follow_the_account_not_the_browser(alice: Any) -> None:
    Player.objects.filter(user=alice).update(language="lv")
    browser = logged_in_client(alice)
    answer = browser.get("/accounts/settings/", HTTP_ACCEPT_LANGUAGE="it")
    assert answer["Content-Language"] == "lv"
    assert '<html lang="lv">' in answer.content.decode()


def test_a_visitors_pages_follow_accept_language_and_say_so() -> None:
    answer = Client().get("/accounts/login/", HTTP_ACCEPT_LANGUAGE="it-IT,it;q=0.9")
    assert answer["Content-Language"] == "it"
    assert "Accept-Language" in answer["Vary"]
    assert '<html lang="it">' in answer.content.decode()


def test_the_language_switch_sets_a_visitors_cookie() -> None:
    browser = Client()
    answer = browser.post("/i18n/setlang/", {"language": "lv", "next": "/accounts/login/"})
    assert answer.status_code == 302 and answer["Location"] == "/accounts/login/"
    assert browser.cookies["language"].value == "lv"
    assert browser.get("/accounts/login/")["Content-Language"] == "lv"


def test_the_language_switch_saves_a_signed_in_players_choice(alice: Any) -> None:
    browser = logged_in_client(alice)
    browser.post("/i18n/setlang/", {"language": "it", "next": "/accounts/settings/"})
    assert Player.objects.get(user=alice).language == "it"


def test_the_language_switch_ignores_a_language_the_service_does_not_speak(alice: Any) -> None:
    browser = logged_in_client(alice)
    browser.post("/i18n/setlang/", {"language": "de", "next": "/accounts/settings/"})
    assert Player.objects.get(user=alice).language == "en"


def test_every_page_offers_the_switch() -> None:
    content = Client().get("/accounts/login/").content.decode()
    assert 'action="/i18n/setlang/"' in content
    assert 'value="it" lang="it"' in content and 'value="lv" lang="lv"' in content


def test_api_answers_name_their_language_and_vary_on_accept_language(alice: Any) -> None:
    answer = client_for(alice).get("/api/v1/me/", HTTP_ACCEPT_LANGUAGE="lv")
    assert answer.status_code == 200
    assert answer["Content-Language"] == "lv"
    assert "Accept-Language" in answer["Vary"]
    assert answer.json()["language"] == "en"  # the account's setting, whatever the request asks


def test_a_users_language_is_the_accounts_and_english_without_one(alice: Any) -> None:
    assert language_of(alice) == "en"
    Player.objects.filter(user=alice).update(language="lv")
    alice.player.refresh_from_db()
    assert language_of(alice) == "lv"
    assert language_of(None) == "en"
    assert [language_supported(code) for code in ("it_IT", "LV", "pt", "", None)] == ["it", "lv", None, None, None]


def test_a_moment_is_written_in_the_readers_time_zone_and_language() -> None:
    moment = datetime(2026, 12, 3, 12, 0, tzinfo=timezone.utc)
    with translation.override("en"):
        assert moment_words(moment, "Europe/Riga") == "Thursday 3 December 2026, 14:00 (Europe/Riga)"
    with translation.override("it"):
        assert moment_words(moment, "Europe/Rome") == "giovedì 3 dicembre 2026, 13:00 (Europe/Rome)"
    with translation.override("lv"):
        assert moment_words(moment, "Europe/Riga") == "ceturtdiena, 2026. gada 3. decembris, 14:00 (Europe/Riga)"
    with translation.override("en"):
        assert moment_words(moment, "Not/AZone") == "Thursday 3 December 2026, 12:00 (UTC)"


def test_a_short_moment_is_written_as_each_language_writes_one() -> None:
    from core.text import short_moment_words

    moment = datetime(2026, 12, 5, 1, 56, tzinfo=timezone.utc)
    written = {}
    for language in ("en", "it", "lv"):
        with translation.override(language):
            written[language] = short_moment_words(moment)
    assert written == {"en": "Sat 05 Dec 2026, 01:56", "it": "sab 05 dic 2026, 01:56", "lv": "05.12.2026., 01:56"}
