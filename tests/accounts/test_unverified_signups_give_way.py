"""A sign-up that was never verified cannot keep its username or address from anyone.

The finding: after five wrong codes or 24 hours the error said "sign up again",
but the dead sign-up still held the username and address, so that failed; and
anyone could sign up with someone else's address, burn the code and lock that
address out for good.
"""

from datetime import timedelta

import pytest
import time_machine
from django.contrib.auth import get_user_model
from django.core import mail
from django.utils import timezone

from accounts.services import VERIFICATION_CODES_PER_DAY, VERIFICATION_LIFETIME

pytestmark = pytest.mark.django_db

CAROL = "carol@example.com"


def users_named(username: str) -> int:
    return get_user_model().objects.filter(username=username).count()


def test_after_too_many_wrong_codes_signing_up_again_works(signups):
    signups.sign_up("carol", CAROL)
    signups.burn_the_code(username="carol")
    assert signups.sign_up("carol", CAROL).status_code == 202
    assert signups.verify(signups.last_code(CAROL), username="carol").status_code == 200


def test_after_the_code_expires_signing_up_again_works(signups):
    signups.sign_up("carol", CAROL)
    with time_machine.travel(timezone.now() + VERIFICATION_LIFETIME + timedelta(seconds=1)):
        assert signups.sign_up("carol", CAROL).status_code == 202
        assert signups.verify(signups.last_code(CAROL), username="carol").status_code == 200


def test_signing_up_again_makes_the_earlier_code_stop_working(signups):
    signups.sign_up("carol", CAROL)
    first = signups.last_code(CAROL)
    signups.sign_up("carol", CAROL)
    assert signups.verify(first, username="carol").status_code == 400
    assert signups.verify(signups.last_code(CAROL), username="carol").status_code == 200


def test_someone_who_burned_the_code_of_a_sign_up_with_my_address_cannot_keep_me_out(signups):
    signups.sign_up("mallory", CAROL)
    signups.burn_the_code(email=CAROL)
    assert signups.sign_up("carol", CAROL).status_code == 202
    assert signups.verify(signups.last_code(CAROL), email=CAROL).status_code == 200
    assert users_named("mallory") == 0


def test_a_sign_up_with_my_address_still_waiting_for_its_code_cannot_keep_me_out(signups):
    # Holding a live code is not enough: mallory could sign up again every 24 hours.
    signups.sign_up("mallory", CAROL)
    mallorys_code = signups.last_code(CAROL)
    response = signups.sign_up("carol", CAROL, display_name="Carol")
    assert response.status_code == 202
    assert signups.verify(mallorys_code, username="mallory").status_code == 400
    verified = signups.verify(signups.last_code(CAROL), username="carol")
    assert verified.status_code == 200
    assert verified.json()["display_name"] == "Carol"
    assert users_named("mallory") == 0


def test_a_sign_up_still_waiting_for_its_code_keeps_its_username(signups):
    signups.sign_up("carol", CAROL)
    response = signups.sign_up("carol", "someone.else@example.com")
    assert response.status_code == 400
    assert set(response.json()["errors"]) == {"username"}
    assert signups.verify(signups.last_code(CAROL), username="carol").status_code == 200


def test_a_sign_up_whose_code_expired_gives_its_username_to_the_next_person(signups):
    signups.sign_up("carol", CAROL)
    with time_machine.travel(timezone.now() + VERIFICATION_LIFETIME + timedelta(seconds=1)):
        response = signups.sign_up("carol", "dave@example.com")
    assert response.status_code == 202
    assert get_user_model().objects.get(username="carol").email == "dave@example.com"


def test_a_sign_up_whose_code_was_guessed_at_too_often_gives_its_username_to_the_next_person(signups):
    signups.sign_up("carol", CAROL)
    signups.burn_the_code(username="carol")
    assert signups.sign_up("carol", "dave@example.com").status_code == 202
    assert signups.verify(signups.last_code("dave@example.com"), username="carol").status_code == 200


def test_signing_up_again_and_again_with_one_address_stops_at_the_daily_limit_of_codes(signups):
    for _ in range(VERIFICATION_CODES_PER_DAY):
        assert signups.sign_up("carol", CAROL).status_code == 202
    response = signups.sign_up("carol", CAROL)
    assert response.status_code == 429
    assert response["Content-Type"] == "application/problem+json"
    assert response.json()["code"] == "too_many_codes"
    wait = int(response["Retry-After"])
    assert 0 < wait <= 24 * 3600
    assert len(mail.outbox) == VERIFICATION_CODES_PER_DAY
    with time_machine.travel(timezone.now() + timedelta(seconds=wait + 1)):
        assert signups.sign_up("carol", CAROL).status_code == 202


def test_the_answer_to_too_many_wrong_codes_says_when_a_new_code_can_be_sent(signups):
    signups.sign_up("carol", CAROL)
    for _ in range(4):
        signups.verify("ZZZZZZZZZZ", username="carol")
    response = signups.verify("ZZZZZZZZZZ", username="carol")
    assert response.status_code == 429
    assert response["Content-Type"] == "application/problem+json"
    wait = int(response["Retry-After"])
    assert response.json()["retry_after"] == wait
    assert 0 < wait <= 60
    with time_machine.travel(timezone.now() + timedelta(seconds=wait)):
        signups.resend(username="carol")
        assert signups.verify(signups.last_code(CAROL), username="carol").status_code == 200
