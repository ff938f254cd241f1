"""Personas for the accounts tests.

- alice: a verified player with tokens; the one acting in most tests.
- bob: another player, so tests can show alice cannot see or touch his tokens.
"""

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
