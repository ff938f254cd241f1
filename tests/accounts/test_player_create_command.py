"""manage.py player_create prints one line of JSON with a working token."""

import json
from datetime import timedelta
from io import StringIO

import pytest
import time_machine
from django.core.management import CommandError, call_command
from django.utils import timezone

from tests.accounts.conftest import client_with

pytestmark = pytest.mark.django_db


def run(*args: str) -> str:
    out = StringIO()
    call_command("player_create", *args, stdout=out)
    return out.getvalue()


def test_player_create_prints_one_json_line_with_a_token_that_works():
    output = run("dora", "--email", "dora@example.com", "--display-name", "Dora")
    lines = output.splitlines()
    assert len(lines) == 1
    data = json.loads(lines[0])
    assert set(data) == {"username", "email", "token"}
    assert data["username"] == "dora" and data["email"] == "dora@example.com"
    me = client_with(data["token"]).get("/api/v1/me/").json()
    assert me["display_name"] == "Dora"
    assert me["email_verified_at"] is not None
    assert me["scopes"] == ["play", "read"]


def test_player_create_can_make_a_read_only_token():
    data = json.loads(run("erin", "--email", "erin@example.com", "--scopes", "read"))
    assert client_with(data["token"]).get("/api/v1/me/").json()["scopes"] == ["read"]


def test_player_create_refuses_a_taken_username_and_creates_nothing():
    run("fay", "--email", "fay@example.com")
    with pytest.raises(CommandError, match="username"):
        run("fay", "--email", "other@example.com")


def test_player_create_refuses_an_unknown_scope_and_creates_nothing():
    from django.contrib.auth import get_user_model

    with pytest.raises(CommandError, match="scopes"):
        run("gus", "--email", "gus@example.com", "--scopes", "admin")
    assert not get_user_model().objects.filter(username="gus").exists()


def test_player_create_refuses_the_address_of_a_sign_up_still_waiting_for_its_code(signups):
    signups.sign_up("carol", "carol@example.com")
    with pytest.raises(CommandError, match="email"):
        run("carol2", "--email", "carol@example.com")


def test_player_create_takes_the_username_and_address_of_a_sign_up_whose_code_expired(signups):
    signups.sign_up("carol", "carol@example.com")
    with time_machine.travel(timezone.now() + timedelta(hours=24, seconds=1)):
        data = json.loads(run("carol", "--email", "carol@example.com"))
    assert client_with(data["token"]).get("/api/v1/me/").json()["email_verified_at"] is not None
