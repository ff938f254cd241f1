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
