"""The account pages and the account emails in Italian and Latvian.

A visitor's pages follow Accept-Language; every account email (the sign-up
code, token recovery, the address change and its notice, the password reset)
is in the language of the account it is for (``Player.language``, which
sign-up takes from the browser or the form), whatever the language of the
request that sent it. English stays the default.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.core import mail
from django.test import Client
from django.utils import translation
from django.utils.translation import ngettext

from accounts import services
from accounts.errors import VerificationError
from accounts.forms import wait_words
from accounts.models import Player
from tests.accounts.conftest import client_with
from tests.accounts.pages_helpers import PASSWORD, code_in_last_mail, last_mail_to, logged_in_client, page_text

pytestmark = pytest.mark.django_db


def test_the_sign_up_page_is_italian_for_an_italian_browser() -> None:
    text = page_text(Client().get("/accounts/signup/", HTTP_ACCEPT_LANGUAGE="it-IT,it;q=0.9"))
    for words in ("Registrati", "Nome utente", "Nome visualizzato", "Ti mandiamo per email un codice", "Accedi"):
        assert words in text, words
    for words in ("Sign up", "Username", "Display name", "We email you a code"):
        assert words not in text, words


def test_the_sign_up_page_is_latvian_for_a_latvian_browser_and_english_by_default() -> None:
    latvian = page_text(Client().get("/accounts/signup/", HTTP_ACCEPT_LANGUAGE="lv"))
    assert "Reģistrēties" in latvian and "Lietotājvārds" in latvian and "Parole" in latvian
    assert "Sign up" not in latvian
    english = page_text(Client().get("/accounts/signup/"))
    assert "Sign up" in english and "Username" in english and "Registrati" not in english


def test_a_latvian_sign_up_gets_its_code_email_in_latvian(django_capture_on_commit_callbacks: Any) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        answer = Client().post(
            "/accounts/signup/",
            {"username": "carol", "email": "carol@example.com", "display_name": "Carol", "password": PASSWORD},
            HTTP_ACCEPT_LANGUAGE="lv",
        )
    assert answer.status_code == 303
    assert Player.objects.get(user__username="carol").language == "lv"
    message = last_mail_to("carol@example.com")
    assert message.subject == "Tavs Splendor by post apstiprināšanas kods"
    assert message.body.startswith("Sveiki, Carol!")
    assert "Tavs Splendor by post apstiprināšanas kods lietotājvārdam carol ir:" in message.body
    assert "Kods derīgs 24 stundas" in message.body
    assert "Hello" not in message.body and "verification code" not in message.body
    # The machine-facing parts stay as they are: the code, the API path and its JSON.
    code = code_in_last_mail("carol@example.com")
    assert "POST /api/v1/players/verify/" in message.body and f'"code": "{code}"' in message.body


def test_an_italian_sign_up_through_the_api_gets_an_italian_code_email_and_answer(
    django_capture_on_commit_callbacks: Any,
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        answer = client_with().post(
            "/api/v1/players/",
            {"username": "carol", "email": "carol@example.com", "password": PASSWORD, "language": "it"},
            format="json",
            HTTP_ACCEPT_LANGUAGE="it",
        )
    assert answer.status_code == 202
    assert answer.json()["detail"].startswith("Cerca il codice di verifica nella tua email")
    message = last_mail_to("carol@example.com")
    assert message.subject == "Il tuo codice di verifica di Splendor by post"
    assert message.body.startswith("Ciao carol,") and "Se non ti sei registrato tu" in message.body


def test_the_code_email_follows_the_account_not_the_language_active_when_it_is_sent(
    django_capture_on_commit_callbacks: Any,
) -> None:
    with translation.override("it"), django_capture_on_commit_callbacks(execute=True):
        services.signup_start(username="carol", email="carol@example.com", password=PASSWORD, client="203.0.113.9")
    message = last_mail_to("carol@example.com")
    assert message.subject == "Your Splendor by post verification code" and message.body.startswith("Hello carol,")


def test_a_wrong_code_counts_the_tries_left_with_latvian_plurals(django_capture_on_commit_callbacks: Any) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        services.signup_start(
            username="carol", email="carol@example.com", password=PASSWORD, client="203.0.113.9", language="lv"
        )
    words = []
    for _ in range(4):
        with translation.override("lv"), pytest.raises(VerificationError) as refused:
            services.signup_verify(username="carol", code="WRONGWRONG")
        words.append(refused.value.message)
    assert words[0] == "Šis kods nav pareizs; vēl 4 mēģinājumi, pirms tas pārstās darboties."
    assert words[3] == "Šis kods nav pareizs; vēl 1 mēģinājums, pirms tas pārstās darboties."


@pytest.mark.parametrize(
    ("seconds", "latvian", "italian"),
    [
        (1, "1 sekunde", "1 secondo"),
        (2, "2 sekundes", "2 secondi"),
        (11, "11 sekunžu", "11 secondi"),
        (21, "21 sekunde", "21 secondi"),
        (11 * 60, "11 minūšu", "11 minuti"),
        (21 * 3600, "21 stunda", "21 ore"),
        (2 * 3600, "2 stundas", "2 ore"),
    ],
)
def test_a_wait_is_counted_in_the_active_language(seconds: int, latvian: str, italian: str) -> None:
    with translation.override("lv"):
        assert wait_words(seconds) == latvian
    with translation.override("it"):
        assert wait_words(seconds) == italian


def test_token_recovery_emails_an_italian_player_in_italian(alice: Any, django_capture_on_commit_callbacks: Any) -> None:
    Player.objects.filter(user=alice).update(language="it")
    with translation.override("lv"), django_capture_on_commit_callbacks(execute=True):
        services.token_recovery_start(email="alice@example.com", client="203.0.113.9")
    message = last_mail_to("alice@example.com")
    assert message.subject == "Il tuo codice di recupero del token di Splendor by post"
    assert "Il codice vale 60 minuti" in message.body
    assert "POST /api/v1/tokens/recover/confirm/" in message.body and "Hello" not in message.body


def test_the_address_change_link_and_notice_speak_the_accounts_language(
    alice: Any, django_capture_on_commit_callbacks: Any
) -> None:
    Player.objects.filter(user=alice).update(language="lv")
    page = logged_in_client(alice)
    with django_capture_on_commit_callbacks(execute=True):
        answer = page.post("/accounts/email/", {"email": "alice@new.example", "password": "correct horse battery"})
    assert answer.status_code == 303
    link = last_mail_to("alice@new.example")
    assert link.subject == "Apstiprini savu jauno adresi vietnē Splendor by post"
    assert link.body.startswith("Sveiki!") and "Saite darbojas" in link.body
    notice = page_text(page.get("/accounts/email/"))
    assert "Mēs nosūtījām saiti uz alice@new.example" in notice


def test_the_password_reset_email_is_in_the_accounts_language_whatever_the_page(
    alice: Any, django_capture_on_commit_callbacks: Any
) -> None:
    Player.objects.filter(user=alice).update(language="it")
    with django_capture_on_commit_callbacks(execute=True):
        answer = Client().post("/accounts/password/reset/", {"email": "alice@example.com"}, HTTP_ACCEPT_LANGUAGE="lv")
    assert answer.status_code == 302
    [message] = mail.outbox
    assert message.subject == "Reimposta la password di Splendor by post"
    assert message.body.startswith("Ciao,") and "Il link funziona una volta sola" in message.body


def test_the_login_page_and_its_refusal_are_italian(alice: Any) -> None:
    answer = Client().post(
        "/accounts/login/", {"username": "alice", "password": "wrong"}, HTTP_ACCEPT_LANGUAGE="it"
    )
    text = page_text(answer)
    assert "Accedi" in text and "Hai dimenticato la password?" in text
    assert "Il nome utente o la password sono sbagliati" in text
    assert "Log in" not in text and "Forgot your password?" not in text


def test_a_signed_in_latvian_players_menu_is_latvian(alice: Any) -> None:
    Player.objects.filter(user=alice).update(language="lv")
    text = page_text(logged_in_client(alice).get("/accounts/email/", HTTP_ACCEPT_LANGUAGE="en"))
    assert "Manas spēles" in text and "Iestatījumi" in text and "Tava e-pasta adrese" in text
    assert "My games" not in text


def test_the_admins_erase_confirmation_counts_accounts_in_latvian() -> None:
    sentence = (
        "Erase this account for good? This cannot be undone.",
        "Erase these %(n)s accounts for good? This cannot be undone.",
    )
    with translation.override("lv"):
        for n, words in ((1, "Dzēst šo kontu"), (2, "Dzēst šos 2 kontus"), (11, "Dzēst šos 11 kontus")):
            assert (ngettext(*sentence, n) % {"n": n}).startswith(words), n


@pytest.mark.parametrize("header", ["it", "lv", "en"])
def test_the_language_switch_names_each_language_in_itself(header: str) -> None:
    text = page_text(Client().get("/accounts/login/", HTTP_ACCEPT_LANGUAGE=header))
    assert "English" in text and "Italiano" in text and "Latviešu" in text
    assert "Inglese" not in text and "angļu" not in text
