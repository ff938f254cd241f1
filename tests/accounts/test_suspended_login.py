"""A suspended account cannot log in at any door (the API's token minting, the
pages' login, the admin's login), and a session it already has stops working;
only someone who gave its right password learns that it is suspended, and that
right password is not counted as a guess."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import authenticate
from django.test import Client
from django.utils import timezone

from accounts.errors import AccountSuspendedError, InvalidCredentialsError
from accounts.models import PasswordFailures, Player
from accounts.services import login_check, player_suspend, player_unsuspend
from tests.accounts.conftest import client_with

RIGHT = "correct horse battery"


def suspend(user: Any) -> None:
    Player.objects.filter(user=user).update(suspended_at=timezone.now())


def test_the_backend_does_not_authenticate_a_suspended_account(alice: Any) -> None:
    suspend(alice)
    assert authenticate(username="alice", password=RIGHT) is None


def test_login_check_names_the_suspension_to_the_right_password(alice: Any) -> None:
    suspend(alice)
    with pytest.raises(AccountSuspendedError) as refused:
        login_check(username="alice", password=RIGHT, client="192.0.2.1")
    assert refused.value.code == "account_suspended"


def test_a_wrong_password_for_a_suspended_account_says_only_that_it_is_wrong(alice: Any) -> None:
    suspend(alice)
    with pytest.raises(InvalidCredentialsError):
        login_check(username="alice", password="a guess", client="192.0.2.1")


def test_the_right_password_of_a_suspended_account_is_not_counted_as_a_guess(alice: Any) -> None:
    suspend(alice)
    for _ in range(6):
        with pytest.raises(AccountSuspendedError):
            login_check(username="alice", password=RIGHT, client="192.0.2.1")
    assert not PasswordFailures.objects.exists()


def test_minting_a_token_with_the_password_answers_401_account_suspended(alice: Any) -> None:
    suspend(alice)
    answer = client_with().post(
        "/api/v1/tokens/", {"name": "phone", "username": "alice", "password": RIGHT}, format="json"
    )
    assert answer.status_code == 401
    assert answer.json()["code"] == "account_suspended"


def test_the_admin_login_refuses_a_suspended_staff_account(alice: Any) -> None:
    alice.is_staff = True
    alice.is_superuser = True
    alice.save()
    suspend(alice)
    client = Client()
    answer = client.post("/admin/login/", {"username": "alice", "password": RIGHT, "next": "/admin/"})
    assert answer.status_code == 200
    assert "_auth_user_id" not in client.session


def test_a_logged_in_session_ends_when_the_account_is_suspended(alice: Any) -> None:
    client = Client()
    assert client.post("/accounts/login/", {"username": "alice", "password": RIGHT}).status_code == 302
    assert client.get("/accounts/games/").status_code == 200
    suspend(alice)
    answer = client.get("/accounts/games/")
    assert answer.status_code == 302 and answer["Location"].startswith("/accounts/login/")


def test_lifting_the_suspension_lets_the_account_log_in_again(alice: Any) -> None:
    player_suspend(user=alice, by_user=alice, reason="Abusive chat.")
    assert authenticate(username="alice", password=RIGHT) is None
    player_unsuspend(user=alice, by_user=alice)
    assert login_check(username="alice", password=RIGHT, client="192.0.2.1") == alice
