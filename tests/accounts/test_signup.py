"""Sign-up by email: an inactive account, a code by email, verification."""

import re
from datetime import timedelta

import pytest
import time_machine
from django.contrib.auth import get_user_model
from django.core import mail
from django.utils import timezone

from accounts.models import EmailVerification
from accounts.services import VERIFICATION_MAX_ATTEMPTS
from tests.accounts.conftest import client_with

pytestmark = pytest.mark.django_db

SIGNUP = {
    "username": "carol",
    "email": "carol@example.com",
    "password": "a long and unusual passphrase",
    "display_name": "Carol",
}


def sign_up(capture, **overrides):
    with capture(execute=True):
        return client_with().post("/api/v1/players/", {**SIGNUP, **overrides}, format="json")


def code_from_the_email() -> str:
    assert len(mail.outbox) == 1
    match = re.search(r"^\s+([2-9A-Z]{10})$", mail.outbox[0].body, re.MULTILINE)
    assert match, mail.outbox[0].body
    return match.group(1)


def verify(code, **who):
    return client_with().post("/api/v1/players/verify/", {"code": code, **(who or {"username": "carol"})}, format="json")


def test_sign_up_answers_202_and_emails_a_code(django_capture_on_commit_callbacks):
    response = sign_up(django_capture_on_commit_callbacks)
    assert response.status_code == 202
    assert "check your email" in response.json()["detail"].lower()
    assert mail.outbox[0].to == ["carol@example.com"]
    user = get_user_model().objects.get(username="carol")
    assert not user.is_active
    assert user.player.email_verified_at is None


def test_the_code_is_stored_hashed(django_capture_on_commit_callbacks):
    sign_up(django_capture_on_commit_callbacks)
    code = code_from_the_email()
    verification = EmailVerification.objects.get()
    assert code not in verification.code_hash


def test_the_emailed_code_activates_the_account(django_capture_on_commit_callbacks):
    sign_up(django_capture_on_commit_callbacks)
    response = verify(code_from_the_email())
    assert response.status_code == 200
    assert response.json()["username"] == "carol"
    assert response.json()["email_verified_at"] is not None
    assert get_user_model().objects.get(username="carol").is_active


def test_verification_also_works_by_email_address_and_in_lower_case(django_capture_on_commit_callbacks):
    sign_up(django_capture_on_commit_callbacks)
    response = verify(code_from_the_email().lower(), email="carol@example.com")
    assert response.status_code == 200


def test_a_verified_player_can_mint_a_token_with_the_password(django_capture_on_commit_callbacks):
    sign_up(django_capture_on_commit_callbacks)
    verify(code_from_the_email())
    response = client_with().post(
        "/api/v1/tokens/",
        {"name": "first", "username": "carol", "password": SIGNUP["password"]},
        format="json",
    )
    assert response.status_code == 201


def test_an_unverified_player_cannot_mint_a_token(django_capture_on_commit_callbacks):
    sign_up(django_capture_on_commit_callbacks)
    response = client_with().post(
        "/api/v1/tokens/",
        {"name": "first", "username": "carol", "password": SIGNUP["password"]},
        format="json",
    )
    assert response.status_code == 401
    assert response.json()["code"] == "invalid_credentials"


def test_a_wrong_code_is_refused_and_says_how_many_tries_are_left(django_capture_on_commit_callbacks):
    sign_up(django_capture_on_commit_callbacks)
    response = verify("ZZZZZZZZZZ")
    assert response.status_code == 400
    body = response.json()
    assert body["code"] == "verification_failed"
    assert body["attempts_left"] == VERIFICATION_MAX_ATTEMPTS - 1
    assert not get_user_model().objects.get(username="carol").is_active


def test_after_too_many_wrong_codes_even_the_right_one_is_refused(django_capture_on_commit_callbacks):
    sign_up(django_capture_on_commit_callbacks)
    code = code_from_the_email()
    for _ in range(VERIFICATION_MAX_ATTEMPTS):
        verify("ZZZZZZZZZZ")
    response = verify(code)
    assert response.status_code == 429
    assert response.json()["code"] == "too_many_attempts"
    assert "/api/v1/players/resend/" in response.json()["detail"]


def test_an_expired_code_is_refused(django_capture_on_commit_callbacks):
    sign_up(django_capture_on_commit_callbacks)
    code = code_from_the_email()
    with time_machine.travel(timezone.now() + timedelta(hours=24, seconds=1)):
        response = verify(code)
    assert response.status_code == 400
    assert response.json()["code"] == "verification_expired"
    assert "/api/v1/players/resend/" in response.json()["detail"]


def test_a_code_works_only_once(django_capture_on_commit_callbacks):
    sign_up(django_capture_on_commit_callbacks)
    code = code_from_the_email()
    assert verify(code).status_code == 200
    assert verify(code).status_code == 400


def test_verifying_an_unknown_player_is_refused():
    response = verify("ABCDEFGHJK", username="nobody")
    assert response.status_code == 400
    assert response.json()["code"] == "verification_failed"


def test_a_verified_account_keeps_its_username_and_email(django_capture_on_commit_callbacks):
    sign_up(django_capture_on_commit_callbacks)
    verify(code_from_the_email())
    response = sign_up(django_capture_on_commit_callbacks, username="CAROL", email="Carol@Example.com")
    assert response.status_code == 400
    body = response.json()
    assert response["Content-Type"] == "application/problem+json"
    assert body["code"] == "validation_error"
    assert set(body["errors"]) == {"username", "email"}
    assert len(mail.outbox) == 1


def test_a_weak_password_is_refused_with_the_reason(django_capture_on_commit_callbacks):
    response = sign_up(django_capture_on_commit_callbacks, password="123")
    assert response.status_code == 400
    body = response.json()
    assert body["code"] == "validation_error"
    assert body["errors"]["password"]
    assert body["detail"].startswith("password:")
    assert not mail.outbox


def test_sign_up_with_missing_fields_names_each_field():
    response = client_with().post("/api/v1/players/", {}, format="json")
    assert response.status_code == 400
    body = response.json()
    assert set(body["errors"]) == {"username", "email", "password"}
    assert body["detail"].startswith("Some fields are invalid")


def test_sign_up_keeps_a_time_zone_the_time_zone_database_knows_and_ignores_any_other(
    django_capture_on_commit_callbacks,
):
    from accounts.models import Player
    from accounts.services import signup_start

    with django_capture_on_commit_callbacks(execute=True):
        signup_start(**SIGNUP, client="192.0.2.1", time_zone="Europe/Rome")
        signup_start(**{**SIGNUP, "username": "dora", "email": "dora@example.com"}, client="192.0.2.2",
                     time_zone="Rome")
    assert Player.objects.get(user__username="carol").time_zone == "Europe/Rome"
    assert Player.objects.get(user__username="dora").time_zone == "UTC"
