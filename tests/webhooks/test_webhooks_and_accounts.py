"""A disabled account's webhooks stop; an erased account's are deleted. The
admin never shows a secret."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from accounts.services import player_disable, player_erase
from games.models import GameEvent
from tests.webhooks.webhook_helpers import Committed, FakeDNS, Transport, new_game, register
from webhooks.models import Endpoint

pytestmark = pytest.mark.django_db


def test_a_disabled_accounts_webhooks_are_sent_nothing_more(
    alice: Any, bob: Any, transport: Transport, committed: Committed
) -> None:
    endpoint = register(bob)
    game = new_game(alice, bob, committed)
    assert len(transport.to(endpoint.url)) == 3

    with committed():
        player_disable(user=bob)  # his seat leaves the game: events he is no longer sent

    endpoint.refresh_from_db()
    assert not endpoint.is_active and endpoint.disabled_reason == "The account was disabled."
    assert GameEvent.objects.filter(game=game).count() > 3
    assert len(transport.to(endpoint.url)) == 3


def test_an_erased_accounts_webhooks_are_deleted(alice: Any, dns: FakeDNS, committed: Committed) -> None:
    register(alice)
    with committed():
        player_erase(user=alice)

    assert not Endpoint.objects.exists()


def test_the_admin_shows_a_webhook_but_never_its_secret(
    alice: Any, bob: Any, transport: Transport, committed: Committed, django_user_model: Any
) -> None:
    endpoint = register(alice)
    new_game(alice, bob, committed)
    admin = django_user_model.objects.create_superuser("root", "root@example.com", "a long admin password")
    client = Client()
    client.force_login(admin)

    pages = [
        client.get("/admin/webhooks/endpoint/"),
        client.get(f"/admin/webhooks/endpoint/{endpoint.pk}/change/"),
        client.get("/admin/webhooks/delivery/"),
        client.get(f"/admin/webhooks/delivery/{endpoint.deliveries.first().pk}/change/"),  # type: ignore[union-attr]
    ]

    assert [page.status_code for page in pages] == [200] * 4
    assert endpoint.url in pages[1].content.decode()
    secret_part = endpoint.secret.removeprefix("whsec_")
    assert all(secret_part not in page.content.decode() for page in pages)
