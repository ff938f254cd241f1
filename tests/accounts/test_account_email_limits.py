"""Emails with a code or a link are limited per recipient address and per client
address (ACCOUNT_EMAIL_ADDRESS_RATE, ACCOUNT_EMAIL_CLIENT_RATE), whichever door
asks for them: the password reset page, sign-up and its resend, token recovery.
Where the answer must not tell whether a mail went, it stays the same.

- alice has an account; mallory, at MALLORY's address, asks for mail to be sent
  to alice (and to others) again and again.
- carol signs up and asks for new codes.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
import time_machine
from django.core import mail
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.models import AccountEmailSent
from accounts.services import VERIFICATION_RESEND_INTERVAL, account_emails_forget_old, player_create, player_erase

pytestmark = pytest.mark.django_db

MALLORY, ELSEWHERE = "203.0.113.66", "198.51.100.23"
CAROL = "carol@example.com"
A_MINUTE_LATER = VERIFICATION_RESEND_INTERVAL + timedelta(seconds=1)


@pytest.fixture(autouse=True)
def _only_these_limits(settings: Any) -> None:
    # The request throttles per address are tested elsewhere; here only the email limits act.
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {
            **settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"],
            "anon": "100000/minute",
            "signup_resend": "100000/minute",
            "token_recover": "100000/minute",
        },
    }


def sent_to(address: str) -> int:
    return sum(1 for message in mail.outbox if message.to == [address])


def reset(address: str, client: str) -> Any:
    return Client(REMOTE_ADDR=client).post("/accounts/password/reset/", {"email": address})


def api(client: str, path: str, body: dict[str, Any], capture: Any) -> Any:
    with capture(execute=True):
        return APIClient(REMOTE_ADDR=client).post(path, body, format="json")


# --- the password reset page ---------------------------------------------------------


def test_twelve_reset_requests_for_one_address_send_only_the_limit_and_all_answer_the_same(
    alice: Any, settings: Any
) -> None:
    settings.ACCOUNT_EMAIL_ADDRESS_RATE = "5/hour"
    answers = [reset("alice@example.com", client=f"203.0.113.{n}") for n in range(12)]
    assert sent_to("alice@example.com") == 5
    assert {(a.status_code, a["Location"]) for a in answers} == {(302, "/accounts/password/reset/sent/")}


def test_reset_requests_from_one_client_for_many_addresses_send_only_the_client_limit(
    db: None, settings: Any
) -> None:
    settings.ACCOUNT_EMAIL_CLIENT_RATE = "3/hour"
    addresses = [f"victim{n}@example.com" for n in range(5)]
    for n, address in enumerate(addresses):
        player_create(username=f"victim{n}", email=address, password="a long and unusual passphrase")
    answers = [reset(address, client=MALLORY) for address in addresses]
    assert len(mail.outbox) == 3
    assert {(a.status_code, a["Location"]) for a in answers} == {(302, "/accounts/password/reset/sent/")}
    # Someone else, from elsewhere, is not held up by mallory's requests.
    reset(addresses[-1], client=ELSEWHERE)
    assert sent_to(addresses[-1]) == 1


def test_a_reset_link_can_be_sent_again_once_the_window_has_passed(alice: Any, settings: Any) -> None:
    settings.ACCOUNT_EMAIL_ADDRESS_RATE = "2/hour"
    start = timezone.now()
    with time_machine.travel(start, tick=False) as traveller:
        for _ in range(3):
            reset("alice@example.com", client=MALLORY)
        assert sent_to("alice@example.com") == 2
        traveller.shift(timedelta(hours=1, seconds=1))
        reset("alice@example.com", client=ELSEWHERE)
    assert sent_to("alice@example.com") == 3


# --- sign-up codes ----------------------------------------------------------------------


def test_signing_up_past_the_client_limit_answers_429_and_keeps_nothing(
    settings: Any, django_capture_on_commit_callbacks: Any
) -> None:
    settings.ACCOUNT_EMAIL_CLIENT_RATE = "2/hour"
    password = "a long and unusual passphrase"
    for n in range(2):
        body = {"username": f"new{n}", "email": f"new{n}@example.com", "password": password}
        assert api(MALLORY, "/api/v1/players/", body, django_capture_on_commit_callbacks).status_code == 202
    body = {"username": "new2", "email": "new2@example.com", "password": password}
    refused = api(MALLORY, "/api/v1/players/", body, django_capture_on_commit_callbacks)
    assert refused.status_code == 429 and refused.json()["code"] == "too_many_codes"
    assert 0 < int(refused["Retry-After"]) <= 3600
    assert sent_to("new2@example.com") == 0
    # Nothing was kept: from another address the same sign-up goes through.
    assert api(ELSEWHERE, "/api/v1/players/", body, django_capture_on_commit_callbacks).status_code == 202
    assert sent_to("new2@example.com") == 1


def test_resend_past_the_address_limit_sends_nothing_and_answers_the_same(
    settings: Any, signups: Any, django_capture_on_commit_callbacks: Any
) -> None:
    settings.ACCOUNT_EMAIL_ADDRESS_RATE = "2/hour"
    signups.sign_up("carol", CAROL)
    start = timezone.now()
    answers = []
    for minute in (1, 2, 3):
        with time_machine.travel(start + minute * A_MINUTE_LATER):
            client = f"198.51.100.{minute}"  # a new client each time: only the address limit acts
            body = {"username": "carol"}
            answers.append(api(client, "/api/v1/players/resend/", body, django_capture_on_commit_callbacks))
    assert sent_to(CAROL) == 2
    assert {(a.status_code, a.content) for a in answers} == {(answers[0].status_code, answers[0].content)}


def test_resend_past_the_client_limit_sends_nothing_and_answers_the_same(
    settings: Any, django_capture_on_commit_callbacks: Any
) -> None:
    password = "a long and unusual passphrase"
    for n in range(3):
        body = {"username": f"wait{n}", "email": f"wait{n}@example.com", "password": password}
        api(f"198.51.100.{n}", "/api/v1/players/", body, django_capture_on_commit_callbacks)
    settings.ACCOUNT_EMAIL_CLIENT_RATE = "2/hour"
    with time_machine.travel(timezone.now() + A_MINUTE_LATER):
        answers = [
            api(MALLORY, "/api/v1/players/resend/", {"username": f"wait{n}"}, django_capture_on_commit_callbacks)
            for n in range(3)
        ]
    assert [sent_to(f"wait{n}@example.com") for n in range(3)] == [2, 2, 1]
    assert {(a.status_code, a.content) for a in answers} == {(answers[0].status_code, answers[0].content)}


def test_the_sign_up_page_s_new_code_button_is_held_to_the_same_limits(
    settings: Any, signups: Any, django_capture_on_commit_callbacks: Any
) -> None:
    settings.ACCOUNT_EMAIL_ADDRESS_RATE = "1/hour"
    signups.sign_up("carol", CAROL)
    with time_machine.travel(timezone.now() + A_MINUTE_LATER), django_capture_on_commit_callbacks(execute=True):
        answer = Client(REMOTE_ADDR=ELSEWHERE).post("/accounts/signup/resend/", {"username": "carol"})
    assert answer.status_code == 303
    assert sent_to(CAROL) == 1


# --- token recovery codes ----------------------------------------------------------------


def test_token_recovery_past_the_address_limit_sends_nothing_and_answers_the_same(
    alice: Any, settings: Any, django_capture_on_commit_callbacks: Any
) -> None:
    settings.ACCOUNT_EMAIL_ADDRESS_RATE = "1/hour"
    reset("alice@example.com", client=ELSEWHERE)  # a reset link counts against the same limit
    assert sent_to("alice@example.com") == 1
    answers = [
        api(client, "/api/v1/tokens/recover/", {"email": address}, django_capture_on_commit_callbacks)
        for client, address in [(MALLORY, "alice@example.com"), (MALLORY, "nobody@example.com")]
    ]
    assert sent_to("alice@example.com") == 1
    assert answers[0].status_code == 202 and answers[0].content == answers[1].content


def test_token_recovery_past_the_client_limit_sends_nothing(
    db: None, settings: Any, django_capture_on_commit_callbacks: Any
) -> None:
    settings.ACCOUNT_EMAIL_CLIENT_RATE = "2/hour"
    for n in range(3):
        player_create(username=f"lost{n}", email=f"lost{n}@example.com")
    for n in range(3):
        api(MALLORY, "/api/v1/tokens/recover/", {"email": f"lost{n}@example.com"}, django_capture_on_commit_callbacks)
    assert [sent_to(f"lost{n}@example.com") for n in range(3)] == [1, 1, 0]


# --- what is kept ---------------------------------------------------------------------------


def test_the_records_name_neither_address_and_go_when_old_or_when_the_account_is_erased(
    alice: Any, django_capture_on_commit_callbacks: Any
) -> None:
    player_create(username="bea", email="bea@example.com", password="a long and unusual passphrase")
    reset("alice@example.com", client=MALLORY)
    reset("bea@example.com", client=MALLORY)
    rows = str(list(AccountEmailSent.objects.values()))
    assert "alice" not in rows and MALLORY not in rows and AccountEmailSent.objects.count() == 2
    with django_capture_on_commit_callbacks(execute=True):
        player_erase(user=alice)
    assert AccountEmailSent.objects.count() == 1
    assert account_emails_forget_old(now=timezone.now() + timedelta(hours=1, seconds=1)) == 1
    assert not AccountEmailSent.objects.exists()
