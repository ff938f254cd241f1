"""POST /api/v1/me/password/: a player sets a password, checked by Django's
password validators, to mint tokens with their username and password."""

from __future__ import annotations

import pytest

from accounts.errors import InvalidCredentialsError
from accounts.models import PasswordFailures
from accounts.services import login_check
from tests.accounts.conftest import client_with

NEW_PASSWORD = "a quite different passphrase"


def test_a_player_without_a_password_sets_one_and_mints_tokens_with_it(bob):
    from accounts.services import token_create

    _, plain = token_create(user=bob, name="laptop", scopes=["play"])
    assert not bob.has_usable_password()
    answer = client_with(plain).post("/api/v1/me/password/", {"password": NEW_PASSWORD}, format="json")
    assert answer.status_code == 204
    minted = client_with().post(
        "/api/v1/tokens/", {"name": "phone", "username": "bob", "password": NEW_PASSWORD}, format="json"
    )
    assert minted.status_code == 201


def test_a_new_password_replaces_the_old_one(alice, alice_play_token):
    _, plain = alice_play_token
    client_with(plain).post("/api/v1/me/password/", {"password": NEW_PASSWORD}, format="json")
    assert login_check(username="alice", password=NEW_PASSWORD, client="192.0.2.1").pk == alice.pk
    with pytest.raises(InvalidCredentialsError):
        login_check(username="alice", password="correct horse battery", client="192.0.2.1")


@pytest.mark.parametrize(
    "password, message",
    [
        ("short", "This password is too short. It must contain at least 8 characters."),
        ("12345678901", "This password is entirely numeric."),
        ("password123", "This password is too common."),
        ("alice@example.com", "The password is too similar to the email address."),
    ],
)
def test_a_password_the_validators_refuse_is_a_400_with_their_messages(alice, alice_play_token, password, message):
    _, plain = alice_play_token
    answer = client_with(plain).post("/api/v1/me/password/", {"password": password}, format="json")
    assert answer.status_code == 400
    assert answer.json()["code"] == "validation_error"
    assert message in answer.json()["errors"]["password"]
    assert login_check(username="alice", password="correct horse battery", client="192.0.2.1").pk == alice.pk


def test_setting_a_password_needs_a_play_token(alice, alice_read_token):
    _, plain = alice_read_token
    answer = client_with(plain).post("/api/v1/me/password/", {"password": NEW_PASSWORD}, format="json")
    assert answer.status_code == 403 and answer.json()["code"] == "insufficient_scope"


def test_setting_a_password_lifts_a_lockout_of_the_username(alice, alice_play_token, settings):
    for _ in range(settings.LOGIN_FAILURES_BEFORE_LOCKOUT):
        with pytest.raises(InvalidCredentialsError):
            login_check(username="alice", password="guess", client="192.0.2.1")
    assert PasswordFailures.objects.get().locked_until is not None
    _, plain = alice_play_token
    client_with(plain).post("/api/v1/me/password/", {"password": NEW_PASSWORD}, format="json")
    assert not PasswordFailures.objects.exists()
    assert login_check(username="alice", password=NEW_PASSWORD, client="192.0.2.1").pk == alice.pk
