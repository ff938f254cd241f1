"""Changing the email address: a link goes to the new address, and the address
changes only when it is opened there and confirmed."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.test import Client
from django.utils import timezone

from accounts.models import Player
from accounts.services import player_create
from tests.accounts.pages_helpers import last_mail_to, logged_in_client, page_text, path_of_link_in_last_mail

User = get_user_model()
ALICE_PASSWORD = "correct horse battery"


def ask_for(client: Client, capture: Any, email: str, password: str = ALICE_PASSWORD) -> Any:
    with capture(execute=True):
        return client.post("/accounts/email/", {"email": email, "password": password})


def confirm(client: Client, capture: Any, path: str) -> Any:
    with capture(execute=True):
        return client.post(path)


@pytest.fixture
def alices_browser(alice: Any) -> Client:
    return logged_in_client(alice)


def test_the_email_page_needs_a_login(db: None) -> None:
    answer = Client().get("/accounts/email/")
    assert answer.status_code == 302 and answer["Location"] == "/accounts/login/?next=/accounts/email/"


def test_the_link_goes_to_the_new_address_and_nothing_changes_until_it_is_confirmed(
    alice: Any, alices_browser: Client, django_capture_on_commit_callbacks: Any
) -> None:
    answer = ask_for(alices_browser, django_capture_on_commit_callbacks, "alice@new.example")
    assert answer.status_code == 303
    assert [message.to for message in mail.outbox] == [["alice@new.example"]]
    assert User.objects.get(pk=alice.pk).email == "alice@example.com"

    path = path_of_link_in_last_mail("alice@new.example")
    shown = Client().get(path)  # a mail scanner opening the link changes nothing
    assert shown.status_code == 200 and "Confirm the new address" in page_text(shown)
    assert User.objects.get(pk=alice.pk).email == "alice@example.com"

    answer = confirm(alices_browser, django_capture_on_commit_callbacks, path)

    assert answer.status_code == 303
    assert User.objects.get(pk=alice.pk).email == "alice@new.example"
    notice = last_mail_to("alice@example.com")
    assert "is now alice@new.example" in notice.body
    assert "Your address is now alice@new.example." in page_text(alices_browser.get("/accounts/email/"))


def test_a_confirmation_link_works_once(
    alice: Any, alices_browser: Client, django_capture_on_commit_callbacks: Any
) -> None:
    ask_for(alices_browser, django_capture_on_commit_callbacks, "alice@new.example")
    path = path_of_link_in_last_mail("alice@new.example")
    confirm(alices_browser, django_capture_on_commit_callbacks, path)

    again = confirm(alices_browser, django_capture_on_commit_callbacks, path)

    assert again.status_code == 200
    assert "This link was already used" in page_text(again)


def test_a_damaged_link_is_refused(alices_browser: Client, django_capture_on_commit_callbacks: Any) -> None:
    answer = confirm(alices_browser, django_capture_on_commit_callbacks, "/accounts/email/confirm/not-a-token/")
    assert answer.status_code == 200
    assert "This link is damaged" in page_text(answer)


def test_a_link_older_than_a_day_has_expired(
    alice: Any, alices_browser: Client, django_capture_on_commit_callbacks: Any, time_machine: Any
) -> None:
    time_machine.move_to("2026-03-01 12:00:00+00:00")
    ask_for(alices_browser, django_capture_on_commit_callbacks, "alice@new.example")
    path = path_of_link_in_last_mail("alice@new.example")
    time_machine.move_to("2026-03-02 12:00:01+00:00")
    answer = confirm(alices_browser, django_capture_on_commit_callbacks, path)
    assert answer.status_code == 200 and "This link has expired" in page_text(answer)
    assert User.objects.get(pk=alice.pk).email == "alice@example.com"


def test_another_accounts_address_is_refused(
    alice: Any, bob: Any, alices_browser: Client, django_capture_on_commit_callbacks: Any
) -> None:
    answer = ask_for(alices_browser, django_capture_on_commit_callbacks, "BOB@example.com")
    assert answer.status_code == 200
    assert "An account with this email address exists." in page_text(answer)
    assert mail.outbox == []


def test_an_address_taken_between_the_link_and_the_confirmation_is_refused(
    alice: Any, alices_browser: Client, django_capture_on_commit_callbacks: Any
) -> None:
    ask_for(alices_browser, django_capture_on_commit_callbacks, "shared@example.com")
    path = path_of_link_in_last_mail("shared@example.com")
    player_create(username="dora", email="shared@example.com")

    answer = confirm(alices_browser, django_capture_on_commit_callbacks, path)

    assert answer.status_code == 200 and "An account with this email address exists." in page_text(answer)
    assert User.objects.get(pk=alice.pk).email == "alice@example.com"


def test_a_wrong_password_or_the_same_address_is_refused(
    alices_browser: Client, django_capture_on_commit_callbacks: Any
) -> None:
    wrong = ask_for(alices_browser, django_capture_on_commit_callbacks, "alice@new.example", password="nope")
    assert wrong.status_code == 200 and "That is not your password." in page_text(wrong)
    same = ask_for(alices_browser, django_capture_on_commit_callbacks, "Alice@example.com")
    assert same.status_code == 200 and "That is already your address." in page_text(same)
    assert mail.outbox == []


def test_the_bounce_warning_goes_when_the_new_address_is_confirmed(
    alice: Any, alices_browser: Client, django_capture_on_commit_callbacks: Any
) -> None:
    Player.objects.filter(user=alice).update(email_undeliverable_at=timezone.now(), email_undeliverable_reason="550")
    assert "Mail to your address bounced" in page_text(alices_browser.get("/accounts/email/"))
    ask_for(alices_browser, django_capture_on_commit_callbacks, "alice@new.example")

    confirm(alices_browser, django_capture_on_commit_callbacks, path_of_link_in_last_mail("alice@new.example"))

    assert Player.objects.get(user=alice).email_undeliverable_at is None
    assert "bounced" not in page_text(alices_browser.get("/accounts/email/"))


def test_a_sign_up_whose_code_has_expired_does_not_hold_the_address(
    alice: Any, alices_browser: Client, django_capture_on_commit_callbacks: Any, time_machine: Any
) -> None:
    from accounts.services import signup_start

    time_machine.move_to("2026-03-01 12:00:00+00:00")
    with django_capture_on_commit_callbacks(execute=True):
        signup_start(
            username="squatter", email="wanted@example.com", password="a long and unusual passphrase", client="192.0.2.1"
        )
    held = ask_for(alices_browser, django_capture_on_commit_callbacks, "wanted@example.com")
    assert "An account with this email address exists." in page_text(held)

    time_machine.move_to("2026-03-02 12:00:01+00:00")
    answer = ask_for(alices_browser, django_capture_on_commit_callbacks, "wanted@example.com")

    assert answer.status_code == 303
    assert last_mail_to("wanted@example.com").subject == "Confirm your new address for Splendor by post"
    confirm(alices_browser, django_capture_on_commit_callbacks, path_of_link_in_last_mail("wanted@example.com"))
    assert User.objects.get(pk=alice.pk).email == "wanted@example.com"
    assert not User.objects.filter(username="squatter").exists()
