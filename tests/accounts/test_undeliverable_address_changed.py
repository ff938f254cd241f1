"""A bounced address stops mail until the player has another one."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone

from accounts.models import Player
from accounts.services import player_create

pytestmark = pytest.mark.django_db


def _bounced(username: str) -> Player:
    user = player_create(username=username, email=f"{username}@example.com", password="a long passphrase 1")
    Player.objects.filter(user=user).update(email_undeliverable_at=timezone.now(), email_undeliverable_reason="550")
    return Player.objects.get(user=user)


def test_a_new_address_clears_the_bounce_warning() -> None:
    player = _bounced("alice")
    user = get_user_model().objects.get(pk=player.user_id)
    user.email = "alice@example.org"
    user.save()
    player.refresh_from_db()
    assert player.email_undeliverable_at is None and player.email_undeliverable_reason == ""


def test_saving_the_same_address_keeps_the_bounce_warning() -> None:
    player = _bounced("bob")
    user = get_user_model().objects.get(pk=player.user_id)
    user.email = "BOB@example.com"
    user.save()
    user.last_login = timezone.now()
    user.save(update_fields=["last_login"])
    player.refresh_from_db()
    assert player.email_undeliverable_at is not None
