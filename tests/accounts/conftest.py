"""Personas for the accounts tests.

- alice: a verified player with tokens; the one acting in most tests.
- bob: another player, so tests can show alice cannot see or touch his tokens.
- carol (in the sign-up tests): signs up through the API and reads her email.
- mallory (in the sign-up tests): signs up with carol's address, which she
  cannot read, to try to keep carol out.
"""

import re

import pytest
from rest_framework.test import APIClient

from accounts.services import player_create, token_create


def client_with(token: str | None = None) -> APIClient:
    client = APIClient()
    if token:
        client.credentials(HTTP_AUTHORIZATION=f"Bearer {token}")
    return client


@pytest.fixture
def alice(db):
    return player_create(username="alice", email="alice@example.com", display_name="Alice", password="correct horse battery")


@pytest.fixture
def bob(db):
    return player_create(username="bob", email="bob@example.com", display_name="Bob")


@pytest.fixture
def alice_play_token(alice):
    return token_create(user=alice, name="laptop", scopes=["play"])


@pytest.fixture
def alice_read_token(alice):
    return token_create(user=alice, name="dashboard", scopes=["read"])


class SignupFlow:
    """The sign-up endpoints as a person uses them, with the emails they receive.

    Requests run inside the test's transaction, so the on-commit email is sent
    by running the captured callbacks.
    """

    SIGNUP_PASSWORD = "a long and unusual passphrase"

    def __init__(self, capture_on_commit) -> None:  # type: ignore[no-untyped-def]
        self._capture = capture_on_commit

    def _post(self, path: str, body: dict):  # type: ignore[no-untyped-def]
        with self._capture(execute=True):
            return client_with().post(path, body, format="json")

    def sign_up(self, username: str, email: str, **extra: str):  # type: ignore[no-untyped-def]
        body = {"username": username, "email": email, "password": self.SIGNUP_PASSWORD, **extra}
        return self._post("/api/v1/players/", body)

    def verify(self, code: str, **who: str):  # type: ignore[no-untyped-def]
        return self._post("/api/v1/players/verify/", {"code": code, **who})

    def resend(self, **who: str):  # type: ignore[no-untyped-def]
        return self._post("/api/v1/players/resend/", who)

    def burn_the_code(self, **who: str) -> None:
        from accounts.services import VERIFICATION_MAX_ATTEMPTS

        for _ in range(VERIFICATION_MAX_ATTEMPTS):
            self.verify("ZZZZZZZZZZ", **who)

    @staticmethod
    def last_code(to: str) -> str:
        """The code in the latest email sent to `to`."""
        from django.core import mail

        sent = [message for message in mail.outbox if message.to == [to]]
        assert sent, f"no email to {to}"
        match = re.search(r"^\s+([2-9A-Z]{10})$", sent[-1].body, re.MULTILINE)
        assert match, sent[-1].body
        return match.group(1)


@pytest.fixture
def signups(django_capture_on_commit_callbacks) -> SignupFlow:  # type: ignore[no-untyped-def]
    return SignupFlow(django_capture_on_commit_callbacks)
