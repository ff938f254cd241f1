"""More than one address per account: /api/v1/me/emails/.

alice (tests/accounts/conftest.py) adds her phone's address, verifies it with the
code emailed to it, makes it primary and removes addresses; bob holds an address
of his own, which alice may not take.
"""

from __future__ import annotations

import logging

import pytest
from django.core import mail

from accounts.models import EmailAddress, EmailVerification, Player
from accounts.services import VERIFICATION_MAX_ATTEMPTS
from tests.accounts.conftest import SignupFlow, client_with

PHONE = "alice@phone.example"


@pytest.fixture
def alices(alice_play_token, django_capture_on_commit_callbacks):  # type: ignore[no-untyped-def]
    """alice's client with a `play` token; every request's on-commit work (the emails) is run."""
    client = client_with(alice_play_token[1])

    class Client:
        def get(self, path: str):  # type: ignore[no-untyped-def]
            return client.get(path)

        def post(self, path: str, body: dict | None = None):  # type: ignore[no-untyped-def]
            with django_capture_on_commit_callbacks(execute=True):
                return client.post(path, body or {}, format="json")

        def delete(self, path: str):  # type: ignore[no-untyped-def]
            with django_capture_on_commit_callbacks(execute=True):
                return client.delete(path)

    return Client()


def added(alices, address: str = PHONE) -> int:  # type: ignore[no-untyped-def]
    answer = alices.post("/api/v1/me/emails/", {"address": address})
    assert answer.status_code == 201, answer.json()
    return int(answer.json()["id"])


def verified(alices, address: str = PHONE) -> int:  # type: ignore[no-untyped-def]
    address_id = added(alices, address)
    answer = alices.post(f"/api/v1/me/emails/{address_id}/verify/", {"code": SignupFlow.last_code(address)})
    assert answer.status_code == 200, answer.json()
    return address_id


def test_the_list_shows_the_primary_address_first_without_an_id(alices):
    body = alices.get("/api/v1/me/emails/").json()
    assert [(entry["id"], entry["address"], entry["verified"], entry["primary"]) for entry in body] == [
        (None, "alice@example.com", True, True)
    ]


def test_an_added_address_is_emailed_a_code_and_waits_unverified(alices):
    answer = alices.post("/api/v1/me/emails/", {"address": PHONE})
    assert answer.status_code == 201
    assert answer.json()["address"] == PHONE
    assert (answer.json()["verified"], answer.json()["primary"]) == (False, False)
    assert [message.to for message in mail.outbox] == [[PHONE]]
    assert "address" in mail.outbox[0].subject
    listed = alices.get("/api/v1/me/emails/").json()
    assert [entry["address"] for entry in listed] == ["alice@example.com", PHONE]


def test_the_emailed_code_verifies_the_address(alices):
    address_id = added(alices)
    answer = alices.post(f"/api/v1/me/emails/{address_id}/verify/", {"code": SignupFlow.last_code(PHONE)})
    assert answer.status_code == 200
    assert answer.json()["verified"] is True and answer.json()["verified_at"]
    assert EmailAddress.objects.get(pk=address_id).is_verified


def test_the_code_is_read_whatever_its_case_and_spaces(alices):
    address_id = added(alices)
    code = f"  {SignupFlow.last_code(PHONE).lower()} "
    assert alices.post(f"/api/v1/me/emails/{address_id}/verify/", {"code": code}).status_code == 200


def test_a_wrong_code_says_how_many_tries_are_left_and_verifies_nothing(alices):
    address_id = added(alices)
    answer = alices.post(f"/api/v1/me/emails/{address_id}/verify/", {"code": "ZZZZZZZZZZ"})
    assert answer.status_code == 400
    assert answer.json()["code"] == "verification_failed"
    assert answer.json()["attempts_left"] == VERIFICATION_MAX_ATTEMPTS - 1
    assert not EmailAddress.objects.get(pk=address_id).is_verified


def test_the_last_wrong_code_kills_it_and_the_right_one_no_longer_works(alices):
    address_id = added(alices)
    for _ in range(VERIFICATION_MAX_ATTEMPTS - 1):
        alices.post(f"/api/v1/me/emails/{address_id}/verify/", {"code": "ZZZZZZZZZZ"})
    last = alices.post(f"/api/v1/me/emails/{address_id}/verify/", {"code": "ZZZZZZZZZZ"})
    assert last.status_code == 429 and last.json()["code"] == "too_many_attempts"
    right = alices.post(f"/api/v1/me/emails/{address_id}/verify/", {"code": SignupFlow.last_code(PHONE)})
    assert right.status_code == 429
    assert not EmailAddress.objects.get(pk=address_id).is_verified


def test_an_expired_code_is_refused_and_adding_again_sends_a_new_one(alices):
    address_id = added(alices)
    old = SignupFlow.last_code(PHONE)
    EmailVerification.objects.filter(email_address_id=address_id).update(expires_at="2000-01-01T00:00:00Z")
    expired = alices.post(f"/api/v1/me/emails/{address_id}/verify/", {"code": old})
    assert expired.status_code == 400 and expired.json()["code"] == "verification_expired"
    assert added(alices) == address_id  # the same address, a new code
    new = SignupFlow.last_code(PHONE)
    assert alices.post(f"/api/v1/me/emails/{address_id}/verify/", {"code": new}).status_code == 200


def test_a_code_for_one_address_does_not_verify_another(alices):
    phone = added(alices)
    work = added(alices, "alice@work.example")
    answer = alices.post(f"/api/v1/me/emails/{work}/verify/", {"code": SignupFlow.last_code(PHONE)})
    assert answer.status_code == 400
    assert not EmailAddress.objects.get(pk=work).is_verified and not EmailAddress.objects.get(pk=phone).is_verified


def test_another_accounts_primary_address_is_refused_with_its_own_code(alices, bob):
    answer = alices.post("/api/v1/me/emails/", {"address": "BOB@example.com"})
    assert answer.status_code == 409
    assert answer.json()["code"] == "email_address_taken"
    assert answer.json()["type"].endswith("/problems/email_address_taken/")
    assert mail.outbox == []


def test_an_address_another_account_verified_is_refused(alices, bob):
    EmailAddress.objects.create(user=bob, address=PHONE, verified_at="2026-01-01T00:00:00Z")
    answer = alices.post("/api/v1/me/emails/", {"address": PHONE})
    assert answer.status_code == 409 and answer.json()["code"] == "email_address_taken"


def test_an_address_another_account_only_added_does_not_stop_its_owner(alices, bob):
    # Anyone may type any address; only its code proves whose it is.
    EmailAddress.objects.create(user=bob, address=PHONE)
    verified(alices)
    assert not EmailAddress.objects.filter(user=bob).exists()


def test_verifying_refuses_an_address_another_account_verified_meanwhile(alices, bob):
    address_id = added(alices)
    EmailAddress.objects.create(user=bob, address=PHONE.upper(), verified_at="2026-01-01T00:00:00Z")
    answer = alices.post(f"/api/v1/me/emails/{address_id}/verify/", {"code": SignupFlow.last_code(PHONE)})
    assert answer.status_code == 409 and answer.json()["code"] == "email_address_taken"
    assert not EmailAddress.objects.get(pk=address_id).is_verified


def test_a_verified_added_address_cannot_sign_up_another_account(alices, signups):
    verified(alices)
    answer = signups.sign_up("mallory", PHONE)
    assert answer.status_code == 400
    assert "email" in answer.json()["errors"]


def test_the_primary_address_and_a_verified_one_cannot_be_added_again(alices):
    primary = alices.post("/api/v1/me/emails/", {"address": "Alice@Example.com"})
    assert primary.status_code == 400 and "address" in primary.json()["errors"]
    verified(alices)
    again = alices.post("/api/v1/me/emails/", {"address": PHONE})
    assert again.status_code == 400 and "address" in again.json()["errors"]


@pytest.mark.parametrize("body", [{"address": "not an address"}, {}, {"address": PHONE, "primary": True}])
def test_bad_input_is_a_validation_error_not_a_server_error(alices, body):
    answer = alices.post("/api/v1/me/emails/", body)
    assert answer.status_code == 400 and answer.json()["code"] == "validation_error"


def test_making_a_verified_address_primary_swaps_it_with_the_old_primary(alices, alice):
    phone = verified(alices)
    mail.outbox.clear()
    answer = alices.post(f"/api/v1/me/emails/{phone}/primary/")
    assert answer.status_code == 200
    listed = [(entry["address"], entry["verified"], entry["primary"]) for entry in answer.json()]
    assert listed == [(PHONE, True, True), ("alice@example.com", True, False)]
    alice.refresh_from_db()
    assert alice.email == PHONE and Player.objects.get(user=alice).email_verified_at is not None
    assert alices.get("/api/v1/me/").json()["email"] == PHONE
    # The old primary is told, and the old id no longer names anything.
    assert [message.to for message in mail.outbox] == [["alice@example.com"]]
    assert alices.post(f"/api/v1/me/emails/{phone}/primary/").status_code == 404


def test_an_unverified_address_cannot_be_made_primary(alices, alice):
    phone = added(alices)
    answer = alices.post(f"/api/v1/me/emails/{phone}/primary/")
    assert answer.status_code == 409 and answer.json()["code"] == "email_address_unverified"
    alice.refresh_from_db()
    assert alice.email == "alice@example.com"


def test_making_an_address_primary_forgets_a_bounce_of_the_old_one(alices, alice):
    phone = verified(alices)
    Player.objects.filter(user=alice).update(email_undeliverable_at="2026-01-01T00:00:00Z")
    alices.post(f"/api/v1/me/emails/{phone}/primary/")
    assert Player.objects.get(user=alice).email_undeliverable_at is None


def test_an_added_address_can_be_removed(alices):
    phone = verified(alices)
    assert alices.delete(f"/api/v1/me/emails/{phone}/").status_code == 204
    assert [entry["address"] for entry in alices.get("/api/v1/me/emails/").json()] == ["alice@example.com"]
    assert alices.delete(f"/api/v1/me/emails/{phone}/").status_code == 404


def test_another_accounts_address_cannot_be_touched(alices, bob):
    bobs = EmailAddress.objects.create(user=bob, address="bob@phone.example", verified_at="2026-01-01T00:00:00Z")
    for answer in (
        alices.delete(f"/api/v1/me/emails/{bobs.pk}/"),
        alices.post(f"/api/v1/me/emails/{bobs.pk}/primary/"),
        alices.post(f"/api/v1/me/emails/{bobs.pk}/verify/", {"code": "ZZZZZZZZZZ"}),
    ):
        assert answer.status_code == 404 and answer.json()["code"] == "not_found"
    assert EmailAddress.objects.filter(pk=bobs.pk, user=bob).exists()


def test_reading_needs_read_and_changing_needs_play(alice_read_token):
    reader = client_with(alice_read_token[1])
    assert reader.get("/api/v1/me/emails/").status_code == 200
    refused = reader.post("/api/v1/me/emails/", {"address": PHONE}, format="json")
    assert refused.status_code == 403 and refused.json()["code"] == "insufficient_scope"
    assert reader.delete("/api/v1/me/emails/1/").status_code == 403
    assert reader.post("/api/v1/me/emails/1/primary/").status_code == 403
    assert not EmailAddress.objects.exists()


def test_without_a_token_nothing_is_shown(db):
    answer = client_with().get("/api/v1/me/emails/")
    assert answer.status_code == 401 and answer.json()["code"] == "not_authenticated"


def test_an_account_gets_at_most_five_address_codes_a_day(alices):
    for number in range(5):
        added(alices, f"alice{number}@phone.example")
    answer = alices.post("/api/v1/me/emails/", {"address": "alice9@phone.example"})
    assert answer.status_code == 429 and answer.json()["code"] == "too_many_codes"
    assert int(answer["Retry-After"]) > 0


def test_adding_and_verifying_an_address_logs_neither_the_address_nor_the_code(alices, caplog, log_format):
    caplog.set_level(logging.DEBUG)
    verified(alices)
    code = SignupFlow.last_code(PHONE)
    assert PHONE not in caplog.text and "phone.example" not in caplog.text
    assert code not in caplog.text
