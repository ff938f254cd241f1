"""Password guessing is slowed per account, whatever address the guesses come
from (settings LOGIN_FAILURES_BEFORE_LOCKOUT, LOGIN_LOCKOUT_SECONDS)."""

from datetime import timedelta

import pytest
import time_machine
from django.utils import timezone
from tests.accounts.conftest import client_with

from accounts.models import PasswordFailures

RIGHT = "correct horse battery"


@pytest.fixture(autouse=True)
def _generous_address_limits(settings):
    # The per-address throttle is tested elsewhere; here only the per-account one acts.
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {"anon": "100000/minute", "user": "100000/minute"},
    }
    settings.LOGIN_FAILURES_BEFORE_LOCKOUT = 3
    settings.LOGIN_LOCKOUT_SECONDS = 60


def _try(password, username="alice", address="198.51.100.1"):
    return client_with().post(
        "/api/v1/tokens/",
        {"name": "phone", "username": username, "password": password},
        format="json",
        REMOTE_ADDR=address,
    )


def test_wrong_passwords_from_many_addresses_lock_the_account_for_a_while(alice):
    answers = [_try("guess", address=f"198.51.100.{i}") for i in range(4)]
    assert [a.status_code for a in answers] == [401, 401, 401, 429]
    locked = answers[-1].json()
    assert locked["code"] == "login_locked" and 0 < locked["retry_after"] <= 60
    assert answers[-1]["Retry-After"] == str(locked["retry_after"])
    # Even the right password is not checked while the lock holds.
    assert _try(RIGHT).status_code == 429


def test_the_lock_ends_and_each_further_wrong_password_doubles_it(alice):
    start = timezone.now()
    with time_machine.travel(start, tick=False) as traveller:
        for _ in range(3):
            _try("guess")
        traveller.shift(timedelta(seconds=61))
        assert _try("guess again").status_code == 401  # checked again, and wrong: 120 s now
        answer = _try(RIGHT)
        assert answer.status_code == 429 and 60 < answer.json()["retry_after"] <= 120
        traveller.shift(timedelta(seconds=121))
        assert _try(RIGHT).status_code == 201


def test_a_right_password_clears_the_count(alice):
    for _ in range(2):
        _try("guess")
    assert _try(RIGHT).status_code == 201
    assert not PasswordFailures.objects.exists()
    assert [_try("guess").status_code for _ in range(3)] == [401, 401, 401]


def test_an_unknown_username_is_locked_the_same_way_and_not_named_in_the_record(db):
    answers = [_try("guess", username="nobody-here") for _ in range(4)]
    assert [a.status_code for a in answers] == [401, 401, 401, 429]
    assert "nobody-here" not in str(list(PasswordFailures.objects.values()))


def test_the_admin_login_page_is_held_to_the_same_limit(db, client, settings):
    from accounts.services import player_create

    staff = player_create(username="olga", email="olga@example.com", display_name="Olga", password=RIGHT)
    staff.is_staff = True
    staff.is_superuser = True
    staff.save()
    for _ in range(3):
        client.post("/admin/login/", {"username": "olga", "password": "guess"})
    # Locked: even the right password does not sign in now.
    answer = client.post("/admin/login/", {"username": "olga", "password": RIGHT, "next": "/admin/"})
    assert answer.status_code == 200 and "_auth_user_id" not in client.session
    assert PasswordFailures.objects.get().locked_until is not None


def test_old_counts_without_a_lock_are_forgotten(alice):
    from accounts.services import password_failures_forget_old

    _try("guess")
    PasswordFailures.objects.update(last_failure_at=timezone.now() - timedelta(days=2))
    assert password_failures_forget_old() == 1
    assert not PasswordFailures.objects.exists()


def test_an_operator_who_unticks_active_in_the_user_admin_moves_the_seats_on(
    alice, django_capture_on_commit_callbacks
):
    from tests.games.game_helpers import make_player, start_two_player_game

    bob = make_player("bob")
    game = start_two_player_game(alice, bob)
    bob.is_active = False
    with django_capture_on_commit_callbacks(execute=True):
        bob.save()
    game.refresh_from_db()
    assert game.status == "finished" and game.result["reason"] == "account-disabled"
