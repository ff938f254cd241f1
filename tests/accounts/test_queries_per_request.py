"""Authentication is one query: the token with its user and the user's player."""

import pytest
from django.contrib.auth import get_user_model

from accounts.models import Player
from accounts.services import token_create
from tests.accounts.conftest import client_with


def test_me_is_answered_from_the_token_lookup_alone(alice_play_token, django_assert_num_queries):
    _, plain = alice_play_token
    client = client_with(plain)
    client.get("/api/v1/me/")  # the token's once-a-minute record of its last use
    with django_assert_num_queries(1):
        answer = client.get("/api/v1/me/")
    assert answer.json()["username"] == "alice" and answer.json()["display_name"] == "Alice"


@pytest.mark.django_db
def test_a_user_made_without_a_player_gets_one_on_first_use():
    admin = get_user_model().objects.create_user(username="root", email="root@example.com")
    _, plain = token_create(user=admin, name="t", scopes=["read"])
    answer = client_with(plain).get("/api/v1/me/")
    assert answer.status_code == 200 and answer.json()["display_name"] == "root"
    assert Player.objects.filter(user=admin).exists()
