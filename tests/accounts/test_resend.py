"""POST /api/v1/players/resend/: a new code for a sign-up that is not verified yet.

Its answer must not tell whether an account or an address exists, and it must
not let anyone flood an inbox.
"""

from datetime import timedelta

import pytest
import time_machine
from django.core import mail
from django.utils import timezone
from drf_spectacular.generators import SchemaGenerator

from accounts.services import VERIFICATION_CODES_PER_DAY, VERIFICATION_LIFETIME, VERIFICATION_RESEND_INTERVAL

pytestmark = pytest.mark.django_db

CAROL = "carol@example.com"
A_MINUTE_LATER = VERIFICATION_RESEND_INTERVAL + timedelta(seconds=1)


def test_resend_answers_202_and_emails_a_new_code_that_works(signups):
    signups.sign_up("carol", CAROL)
    first = signups.last_code(CAROL)
    with time_machine.travel(timezone.now() + A_MINUTE_LATER):
        response = signups.resend(username="carol")
        assert response.status_code == 202
        assert len(mail.outbox) == 2
        assert signups.verify(first, username="carol").status_code == 400
        assert signups.verify(signups.last_code(CAROL), username="carol").status_code == 200


def test_resend_finds_the_sign_up_by_email_address_in_any_case(signups):
    signups.sign_up("carol", CAROL)
    with time_machine.travel(timezone.now() + A_MINUTE_LATER):
        assert signups.resend(email="Carol@Example.com").status_code == 202
    assert len(mail.outbox) == 2


def test_resend_after_too_many_wrong_codes_gives_a_code_that_works(signups):
    signups.sign_up("carol", CAROL)
    signups.burn_the_code(username="carol")
    with time_machine.travel(timezone.now() + A_MINUTE_LATER):
        signups.resend(username="carol")
        assert signups.verify(signups.last_code(CAROL), username="carol").status_code == 200


def test_resend_after_the_code_expired_gives_a_code_that_works(signups):
    signups.sign_up("carol", CAROL)
    with time_machine.travel(timezone.now() + VERIFICATION_LIFETIME + timedelta(seconds=1)):
        signups.resend(email=CAROL)
        assert signups.verify(signups.last_code(CAROL), email=CAROL).status_code == 200


def test_resend_answers_the_same_whether_or_not_the_account_exists(signups, alice):
    signups.sign_up("carol", CAROL)
    mail.outbox.clear()
    with time_machine.travel(timezone.now() + A_MINUTE_LATER):
        answers = [
            signups.resend(username="carol"),  # waiting for its code: gets one
            signups.resend(username="nobody"),
            signups.resend(email="nobody@example.com"),
            signups.resend(username="alice"),  # verified already: gets nothing
            signups.resend(email="alice@example.com"),
        ]
    assert {(r.status_code, r.content) for r in answers} == {(answers[0].status_code, answers[0].content)}
    assert [message.to for message in mail.outbox] == [[CAROL]]


def test_resend_sends_at_most_one_code_a_minute(signups):
    signups.sign_up("carol", CAROL)
    assert signups.resend(username="carol").status_code == 202
    assert len(mail.outbox) == 1
    with time_machine.travel(timezone.now() + A_MINUTE_LATER):
        signups.resend(username="carol")
    assert len(mail.outbox) == 2


def test_resend_sends_at_most_the_daily_limit_of_codes_however_many_addresses_ask(signups, settings):
    # Past the per-address rate limit, as if each request came from a different address.
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {**settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "signup_resend": "100/hour"},
    }
    signups.sign_up("carol", CAROL)
    start = timezone.now()
    for minute in range(1, VERIFICATION_CODES_PER_DAY + 3):
        with time_machine.travel(start + minute * A_MINUTE_LATER):
            assert signups.resend(username="carol").status_code == 202
    assert len(mail.outbox) == VERIFICATION_CODES_PER_DAY
    with time_machine.travel(start + timedelta(days=1, minutes=1)):
        signups.resend(username="carol")
    assert len(mail.outbox) == VERIFICATION_CODES_PER_DAY + 1


def test_resend_without_a_username_or_email_is_a_validation_problem(signups):
    response = signups.resend()
    assert response.status_code == 400
    assert response["Content-Type"] == "application/problem+json"
    assert set(response.json()["errors"]) == {"username"}


def test_resend_has_its_own_tighter_rate_limit_per_address_with_retry_after(signups, settings):
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {**settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "signup_resend": "2/hour"},
    }
    statuses = [signups.resend(username="nobody").status_code for _ in range(3)]
    assert statuses == [202, 202, 429]
    response = signups.resend(username="nobody")
    assert response["Content-Type"] == "application/problem+json"
    assert int(response["Retry-After"]) > 0
    assert response.json()["code"] == "throttled"


def test_the_schema_documents_resend_and_its_errors_as_problem_details():
    operation = SchemaGenerator().get_schema(request=None, public=True)["paths"]["/api/v1/players/resend/"]["post"]
    responses = operation["responses"]
    assert operation["operationId"] == "players_resend"
    assert set(responses) == {"202", "400", "429"}
    assert set(responses["400"]["content"]) == set(responses["429"]["content"]) == {"application/problem+json"}
    assert "Retry-After" in responses["429"]["headers"]


def test_a_nul_character_in_the_name_is_a_validation_error_not_a_lookup(signups):
    # PostgreSQL refuses NUL in text; the serializer must refuse it first.
    for who in ({"username": "car\x00ol"}, {"email": "carol\x00@example.com"}):
        response = signups.resend(**who)
        assert response.status_code == 400, who
