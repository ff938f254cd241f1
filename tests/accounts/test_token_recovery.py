"""POST /api/v1/tokens/recover/ and /recover/confirm/: a player who lost their token
(and has no password to mint one with) gets a new one with a code sent to their
address. Neither answer may tell whether an address has an account.

- dave has no password: tokens are all he has, which is why he needs this.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
import time_machine
from django.core import mail
from django.utils import timezone

from accounts.models import EmailVerification
from accounts.services import (
    RECOVERY_LIFETIME,
    VERIFICATION_CODES_PER_DAY,
    VERIFICATION_MAX_ATTEMPTS,
    VERIFICATION_RESEND_INTERVAL,
    player_create,
    player_disable,
    player_erase,
)
from tests.accounts.conftest import SignupFlow, client_with

pytestmark = pytest.mark.django_db

DAVE = "dave@example.com"
A_MINUTE_LATER = VERIFICATION_RESEND_INTERVAL + timedelta(seconds=1)


@pytest.fixture
def dave():
    return player_create(username="dave", email=DAVE, display_name="Dave")


@pytest.fixture
def recover(django_capture_on_commit_callbacks):
    def ask(email: str):  # type: ignore[no-untyped-def]
        with django_capture_on_commit_callbacks(execute=True):
            return client_with().post("/api/v1/tokens/recover/", {"email": email}, format="json")

    return ask


def confirm(code: str, email: str = DAVE, name: str = "new laptop"):  # type: ignore[no-untyped-def]
    return client_with().post(
        "/api/v1/tokens/recover/confirm/", {"email": email, "code": code, "name": name}, format="json"
    )


def test_the_emailed_code_mints_a_new_token_that_works(dave, recover):
    answer = recover(DAVE)
    assert answer.status_code == 202
    assert len(mail.outbox) == 1 and mail.outbox[0].to == [DAVE]
    minted = confirm(SignupFlow.last_code(DAVE))
    assert minted.status_code == 201
    body = minted.json()
    assert body["name"] == "new laptop" and body["scopes"] == ["play", "read"]
    me = client_with(body["token"]).get("/api/v1/me/")
    assert me.status_code == 200 and me.json()["username"] == "dave"


def test_the_address_is_found_in_any_case(dave, recover):
    recover("Dave@Example.COM")
    assert confirm(SignupFlow.last_code(DAVE), email="DAVE@example.com").status_code == 201


def test_asking_answers_the_same_whether_or_not_the_address_has_an_account(dave, recover):
    known, unknown = recover(DAVE), recover("nobody@example.com")
    assert (known.status_code, known.json()) == (unknown.status_code, unknown.json())
    assert [message.to for message in mail.outbox] == [[DAVE]]


def test_the_email_is_sent_by_a_worker_not_by_the_request(dave, recover, monkeypatch):
    from accounts.tasks import send_code_email

    queued = []
    monkeypatch.setattr(send_code_email, "apply_async", lambda args, **kwargs: queued.append(args))
    assert recover(DAVE).status_code == 202
    assert mail.outbox == [] and len(queued) == 1
    # The task message carries the code's id alone, never the code.
    (verification_id,) = queued[0]
    assert send_code_email(verification_id) is True
    assert SignupFlow.last_code(DAVE) not in str(queued)
    assert confirm(SignupFlow.last_code(DAVE)).status_code == 201


def test_a_broker_that_refuses_the_task_does_not_lose_the_email(dave, recover, monkeypatch):
    from accounts.tasks import send_code_email

    def refuse(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise ConnectionRefusedError("broker down")

    monkeypatch.setattr(send_code_email, "apply_async", refuse)
    assert recover(DAVE).status_code == 202
    assert len(mail.outbox) == 1


def test_an_email_that_cannot_be_sent_still_answers_the_same(dave, recover, monkeypatch):
    def fail(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise OSError("smtp down")

    monkeypatch.setattr("accounts.services.codes.send_mail", fail)
    known, unknown = recover(DAVE), recover("nobody@example.com")
    assert (known.status_code, known.json()) == (unknown.status_code, unknown.json())


def test_every_refusal_is_the_same_answer(dave, recover):
    recover(DAVE)
    wrong = confirm("ZZZZZZZZZZ")
    unknown = confirm(SignupFlow.last_code(DAVE), email="nobody@example.com")
    never_asked = confirm("ZZZZZZZZZZ", email="bob@example.com")
    assert wrong.status_code == unknown.status_code == never_asked.status_code == 400
    assert wrong.json() == unknown.json() == never_asked.json()
    assert wrong.json()["code"] == "verification_failed" and "attempts_left" not in wrong.json()


def test_a_code_works_once(dave, recover):
    recover(DAVE)
    code = SignupFlow.last_code(DAVE)
    assert confirm(code).status_code == 201
    assert confirm(code).status_code == 400


def test_after_too_many_wrong_codes_even_the_right_one_is_refused(dave, recover):
    recover(DAVE)
    for _ in range(VERIFICATION_MAX_ATTEMPTS):
        assert confirm("ZZZZZZZZZZ").status_code == 400
    assert confirm(SignupFlow.last_code(DAVE)).status_code == 400


def test_the_right_code_on_the_last_try_still_works(dave, recover):
    recover(DAVE)
    for _ in range(VERIFICATION_MAX_ATTEMPTS - 1):
        confirm("ZZZZZZZZZZ")
    assert confirm(SignupFlow.last_code(DAVE)).status_code == 201


def test_a_code_expires_after_an_hour(dave, recover):
    recover(DAVE)
    with time_machine.travel(timezone.now() + RECOVERY_LIFETIME + timedelta(seconds=1)):
        assert confirm(SignupFlow.last_code(DAVE)).status_code == 400


def test_a_new_code_makes_the_earlier_one_stop_working(dave, recover):
    recover(DAVE)
    first = SignupFlow.last_code(DAVE)
    with time_machine.travel(timezone.now() + A_MINUTE_LATER):
        recover(DAVE)
        assert confirm(first).status_code == 400
        assert confirm(SignupFlow.last_code(DAVE)).status_code == 201


def test_an_account_gets_at_most_one_code_a_minute_and_five_a_day(dave, recover, settings):
    settings.REST_FRAMEWORK = {  # the limit per address of the caller is not the point here
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {**settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "token_recover": "99/hour"},
    }
    recover(DAVE)
    recover(DAVE)
    assert len(mail.outbox) == 1
    now = timezone.now()
    for minutes in range(1, 10):
        with time_machine.travel(now + A_MINUTE_LATER * minutes):
            recover(DAVE)
    assert len(mail.outbox) == VERIFICATION_CODES_PER_DAY


def test_asking_is_rate_limited_per_caller_address_like_resend(dave, recover, settings):
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {**settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "token_recover": "2/hour"},
    }
    assert recover("a@example.com").status_code == 202
    assert recover("b@example.com").status_code == 202
    third = recover(DAVE)
    assert third.status_code == 429 and "Retry-After" in third
    assert mail.outbox == []


def test_disabled_erased_and_unverified_accounts_get_no_code(dave, alice, bob, signups, recover):
    player_disable(user=alice)
    player_erase(user=bob)
    signups.sign_up("carol", "carol@example.com")
    mail.outbox.clear()
    for email in ("alice@example.com", "bob@example.com", "carol@example.com"):
        assert recover(email).status_code == 202
    assert mail.outbox == []
    assert not EmailVerification.objects.filter(purpose=EmailVerification.Purpose.TOKEN_RECOVERY).exists()


def test_a_recovery_code_does_not_verify_a_sign_up_and_a_sign_up_code_mints_no_token(dave, recover, signups):
    signups.sign_up("carol", "carol@example.com")
    assert confirm(signups.last_code("carol@example.com"), email="carol@example.com").status_code == 400
    recover(DAVE)
    assert signups.verify(SignupFlow.last_code(DAVE), email=DAVE).status_code == 400
