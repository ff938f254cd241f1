"""Logging in and out in a browser, with password guessing stopped per username
(accounts.backends.LockoutModelBackend) and said so plainly."""

from __future__ import annotations

from typing import Any

from django.test import Client

from tests.accounts.pages_helpers import page_text

ALICE_PASSWORD = "correct horse battery"


def log_in(client: Client, password: str, username: str = "alice", **extra: str) -> Any:
    return client.post("/accounts/login/", {"username": username, "password": password, **extra})


def test_the_login_page_renders_with_labels_and_no_referrer(db: None) -> None:
    answer = Client().get("/accounts/login/")
    assert answer.status_code == 200
    assert answer["Referrer-Policy"] == "same-origin"
    content = answer.content.decode()
    assert '<label for="id_username">' in content and '<label for="id_password">' in content


def test_a_right_password_logs_in_and_opens_my_games(alice: Any) -> None:
    client = Client()
    answer = log_in(client, ALICE_PASSWORD)
    assert answer.status_code == 302 and answer["Location"] == "/accounts/games/"
    assert client.session["_auth_user_id"] == str(alice.pk)


def test_logging_in_returns_to_a_safe_next_address_only(alice: Any) -> None:
    assert log_in(Client(), ALICE_PASSWORD, next="/accounts/settings/")["Location"] == "/accounts/settings/"
    assert log_in(Client(), ALICE_PASSWORD, next="https://evil.example/")["Location"] == "/accounts/games/"


def test_a_wrong_password_is_shown_in_the_form(alice: Any) -> None:
    answer = log_in(Client(), "wrong")
    assert answer.status_code == 200
    assert "The username or password is wrong, or the account is not verified yet." in page_text(answer)


def test_too_many_wrong_passwords_lock_the_username_from_that_address_and_the_page_says_so(
    alice: Any, settings: Any
) -> None:
    settings.LOGIN_FAILURES_BEFORE_LOCKOUT = 3
    settings.LOGIN_LOCKOUT_SECONDS = 60
    client = Client()
    for _ in range(2):
        assert "is wrong" in page_text(log_in(client, "wrong"))
    locked = log_in(client, "wrong")
    assert "Too many wrong passwords were given for this username" in page_text(locked)

    answer = log_in(client, ALICE_PASSWORD)

    assert answer.status_code == 200
    assert "no password is checked for it from here for 60 seconds" in page_text(answer)
    assert "_auth_user_id" not in client.session


def test_logging_out_takes_a_post_and_ends_the_session(alice: Any) -> None:
    client = Client()
    client.force_login(alice)
    assert client.get("/accounts/logout/").status_code == 405
    answer = client.post("/accounts/logout/")
    assert answer.status_code == 302 and answer["Location"] == "/accounts/login/"
    assert "_auth_user_id" not in client.session


def test_every_page_offers_logging_out_as_a_form(alice: Any) -> None:
    client = Client()
    client.force_login(alice)
    content = client.get("/accounts/games/").content.decode()
    assert '<form method="post" action="/accounts/logout/">' in content


def test_a_suspended_account_cannot_log_in(alice: Any) -> None:
    from accounts.models import Player
    from django.utils import timezone

    Player.objects.filter(user=alice).update(suspended_at=timezone.now())
    client = Client()
    answer = log_in(client, ALICE_PASSWORD)
    assert "A moderator suspended this account" in page_text(answer)
    assert "_auth_user_id" not in client.session


def test_the_pages_run_no_script_and_post_only_here(db: None) -> None:
    policy = Client().get("/accounts/login/")["Content-Security-Policy"]
    assert "default-src 'none'" in policy and "form-action 'self'" in policy and "script-src" not in policy


def test_a_logged_in_player_sent_back_to_the_login_page_goes_to_my_games(alice: Any) -> None:
    client = Client()
    client.force_login(alice)
    answer = client.get("/accounts/login/", {"next": "/accounts/login/"})
    assert answer.status_code == 302 and answer["Location"] == "/accounts/games/"
