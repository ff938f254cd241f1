"""Resetting a forgotten password by an emailed link, and changing it when logged in."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.core import mail
from django.test import Client

from accounts.services import password_failure_record, password_lock_seconds
from tests.accounts.pages_helpers import last_mail_to, page_text, path_of_link_in_last_mail

User = get_user_model()
NEW_PASSWORD = "an entirely new passphrase"


def test_a_reset_link_goes_to_the_address_and_sets_a_new_password(alice: Any, settings: Any) -> None:
    settings.LOGIN_FAILURES_BEFORE_LOCKOUT = 1
    # Locked out from another address, say before the owner moved: a new password lifts every lock.
    password_failure_record(username="alice", client="203.0.113.9")
    assert password_lock_seconds(username="alice", client="203.0.113.9")
    client = Client()
    answer = client.post("/accounts/password/reset/", {"email": "alice@example.com"})
    assert answer.status_code == 302 and answer["Location"] == "/accounts/password/reset/sent/"
    assert "If an account has that address" in page_text(client.get(answer["Location"]))
    message = last_mail_to("alice@example.com")
    assert message.subject == "Reset your Splendor by post password"
    assert "alice" in message.body

    form = client.get(path_of_link_in_last_mail("alice@example.com"), follow=True)
    assert "Choose a new password" in page_text(form)
    answer = client.post(form.redirect_chain[-1][0], {"new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD})

    assert answer.status_code == 302 and answer["Location"] == "/accounts/password/reset/done/"
    assert User.objects.get(pk=alice.pk).check_password(NEW_PASSWORD)
    assert password_lock_seconds(username="alice", client="203.0.113.9") == 0


def test_an_unknown_address_gets_the_same_answer_and_no_email(db: None) -> None:
    answer = Client().post("/accounts/password/reset/", {"email": "nobody@example.com"})
    assert answer.status_code == 302 and answer["Location"] == "/accounts/password/reset/sent/"
    assert mail.outbox == []


def test_a_reset_link_works_once(alice: Any) -> None:
    client = Client()
    client.post("/accounts/password/reset/", {"email": "alice@example.com"})
    link = path_of_link_in_last_mail("alice@example.com")
    form = client.get(link, follow=True)
    client.post(form.redirect_chain[-1][0], {"new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD})

    again = Client().get(link, follow=True)

    assert "This link does not work" in page_text(again)


def test_a_logged_in_player_changes_the_password_with_the_old_one(alice: Any) -> None:
    client = Client()
    client.force_login(alice)
    wrong = client.post(
        "/accounts/password/",
        {"old_password": "nope", "new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD},
    )
    assert wrong.status_code == 200
    assert "Your old password was entered incorrectly" in page_text(wrong)

    answer = client.post(
        "/accounts/password/",
        {"old_password": "correct horse battery", "new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD},
    )

    assert answer.status_code == 302 and answer["Location"] == "/accounts/password/changed/"
    assert User.objects.get(pk=alice.pk).check_password(NEW_PASSWORD)
    assert client.get("/accounts/games/").status_code == 200  # still logged in


def test_changing_the_password_needs_a_login(db: None) -> None:
    answer = Client().get("/accounts/password/")
    assert answer.status_code == 302 and answer["Location"].startswith("/accounts/login/?next=")
