"""Password guessing is slowed per username *and* client address (settings
LOGIN_FAILURES_BEFORE_LOCKOUT, LOGIN_LOCKOUT_SECONDS, LOGIN_LOCKOUT_MAX_SECONDS),
so that a stranger's wrong passwords lock out the stranger and never the owner.

- alice owns the account, and logs in from her own address (HOME).
- the stranger guesses at alice's password from another address (ELSEWHERE).
"""

from datetime import timedelta

import pytest
import time_machine
from django.test import Client
from django.utils import timezone
from tests.accounts.conftest import client_with

from accounts.models import PasswordFailures

RIGHT = "correct horse battery"
HOME, ELSEWHERE = "198.51.100.1", "203.0.113.9"


@pytest.fixture(autouse=True)
def _generous_address_limits(settings):
    # The per-address throttle is tested elsewhere; here only the password lock acts.
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {"anon": "100000/minute", "user": "100000/minute"},
    }
    settings.LOGIN_FAILURES_BEFORE_LOCKOUT = 3
    settings.LOGIN_LOCKOUT_SECONDS = 60
    settings.LOGIN_LOCKOUT_MAX_SECONDS = 300


def _try(password, username="alice", address=HOME, **headers):
    return client_with().post(
        "/api/v1/tokens/",
        {"name": "phone", "username": username, "password": password},
        format="json",
        REMOTE_ADDR=address,
        **headers,
    )


def test_wrong_passwords_from_one_address_lock_that_address_out_for_a_while(alice):
    answers = [_try("guess", address=ELSEWHERE) for _ in range(4)]
    assert [a.status_code for a in answers] == [401, 401, 401, 429]
    locked = answers[-1].json()
    assert locked["code"] == "login_locked" and 0 < locked["retry_after"] <= 60
    assert answers[-1]["Retry-After"] == str(locked["retry_after"])
    # Even the right password is not checked from there while the lock holds.
    assert _try(RIGHT, address=ELSEWHERE).status_code == 429


def test_a_stranger_from_another_address_cannot_lock_the_owner_out(alice):
    for _ in range(20):
        _try("guess", address=ELSEWHERE)
    assert _try(RIGHT, address=ELSEWHERE).status_code == 429
    assert _try(RIGHT, address=HOME).status_code == 201


def test_nor_on_the_login_page(alice):
    for _ in range(20):
        _try("guess", address=ELSEWHERE)
    page = Client(REMOTE_ADDR=HOME)
    answer = page.post("/accounts/login/", {"username": "alice", "password": RIGHT})
    assert answer.status_code == 302 and page.session["_auth_user_id"] == str(alice.pk)


def test_the_login_page_says_how_long_its_own_address_waits(alice):
    page = Client(REMOTE_ADDR=ELSEWHERE)
    for _ in range(3):
        page.post("/accounts/login/", {"username": "alice", "password": "guess"})
    answer = page.post("/accounts/login/", {"username": "alice", "password": RIGHT})
    assert answer.status_code == 200 and "_auth_user_id" not in page.session
    assert "from your address" in answer.content.decode()


def test_behind_a_trusted_proxy_clients_are_told_apart_by_the_address_it_reports(alice, settings):
    settings.TRUSTED_PROXIES = 1
    proxy = "10.0.0.5"
    for _ in range(5):
        _try("guess", address=proxy, HTTP_X_FORWARDED_FOR=ELSEWHERE)
    assert _try(RIGHT, address=proxy, HTTP_X_FORWARDED_FOR=ELSEWHERE).status_code == 429
    assert _try(RIGHT, address=proxy, HTTP_X_FORWARDED_FOR=HOME).status_code == 201


def test_the_lock_doubles_with_each_further_wrong_password_up_to_the_cap(alice):
    start = timezone.now()
    waits = []
    with time_machine.travel(start, tick=False) as traveller:
        for _ in range(3):
            _try("guess", address=ELSEWHERE)
        for _ in range(5):
            waits.append(_try(RIGHT, address=ELSEWHERE).json()["retry_after"])
            traveller.shift(timedelta(seconds=waits[-1] + 1))
            assert _try("guess again", address=ELSEWHERE).status_code == 401  # checked again, and wrong
    assert waits == [60, 120, 240, 300, 300]


def test_a_capped_lock_ends_after_the_cap_however_many_wrong_passwords_came_before(alice, settings):
    settings.LOGIN_LOCKOUT_MAX_SECONDS = 600
    start = timezone.now()
    with time_machine.travel(start, tick=False) as traveller:
        # Forty rounds of lock and guess: uncapped, the lock would now last for ages.
        for _ in range(3):
            _try("guess", address=ELSEWHERE)
        for _ in range(40):
            traveller.shift(timedelta(seconds=601))
            _try("guess", address=ELSEWHERE)
        assert 0 < _try(RIGHT, address=ELSEWHERE).json()["retry_after"] <= 600
        traveller.shift(timedelta(seconds=601))
        assert _try(RIGHT, address=ELSEWHERE).status_code == 201


def test_a_right_password_clears_the_count_of_its_own_address(alice):
    for _ in range(2):
        _try("guess")
    assert _try(RIGHT).status_code == 201
    assert not PasswordFailures.objects.exists()
    assert [_try("guess").status_code for _ in range(3)] == [401, 401, 401]


def test_an_unknown_username_is_locked_the_same_way_and_the_record_names_neither_it_nor_the_address(db):
    answers = [_try("guess", username="nobody-here", address=ELSEWHERE) for _ in range(4)]
    assert [a.status_code for a in answers] == [401, 401, 401, 429]
    record = str(list(PasswordFailures.objects.values()))
    assert "nobody-here" not in record and ELSEWHERE not in record


def test_the_admin_login_page_is_held_to_the_same_limit_and_its_owner_still_gets_in(db):
    from accounts.services import player_create

    staff = player_create(username="olga", email="olga@example.com", display_name="Olga", password=RIGHT)
    staff.is_staff = True
    staff.is_superuser = True
    staff.save()
    stranger = Client(REMOTE_ADDR=ELSEWHERE)
    for _ in range(3):
        stranger.post("/admin/login/", {"username": "olga", "password": "guess"})
    # Locked from there: even the right password does not sign in.
    answer = stranger.post("/admin/login/", {"username": "olga", "password": RIGHT, "next": "/admin/"})
    assert answer.status_code == 200 and "_auth_user_id" not in stranger.session
    assert PasswordFailures.objects.get().locked_until is not None
    olga = Client(REMOTE_ADDR=HOME)
    answer = olga.post("/admin/login/", {"username": "olga", "password": RIGHT, "next": "/admin/"})
    assert answer.status_code == 302 and olga.session["_auth_user_id"] == str(staff.pk)


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
