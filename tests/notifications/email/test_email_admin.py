"""The admin's view of game email: statuses, and trying failed ones again."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.test import Client
from tests.notifications import flaky_backend
from tests.notifications.email_helpers import headline_of, start_game

from notifications.models import Notification

pytestmark = pytest.mark.usefixtures("clock")


@pytest.fixture
def operator(db: None) -> Client:
    admin = get_user_model().objects.create_superuser("operator", "operator@example.com", "a long password 42")
    client = Client()
    client.force_login(admin)
    return client


def test_the_admin_lists_notifications_and_shows_one(alice: Any, bob: Any, commit: Any, operator: Client) -> None:
    start_game(commit, alice, bob)
    listing = operator.get("/admin/notifications/notification/")
    assert listing.status_code == 200
    assert b"your_turn" in listing.content
    row = Notification.objects.first()
    assert row is not None
    assert operator.get(f"/admin/notifications/notification/{row.pk}/change/").status_code == 200


def test_an_operator_can_try_a_failed_notification_again(
    alice: Any, bob: Any, commit: Any, operator: Client, settings: Any, clock: Any
) -> None:
    settings.EMAIL_BACKEND = flaky_backend.PATH
    flaky_backend.FAILURES[:] = [OSError("down")] * 3
    with commit():
        from games import services

        services.game_create(creator=alice, variant="base", seats=2, invited=[bob])
    from notifications.email.tasks import send_due

    for _ in range(2):
        clock.shift(timedelta(minutes=5))
        send_due()
    row = Notification.objects.get(user=bob)
    assert row.status == Notification.Status.FAILED
    with commit():
        response = operator.post(
            "/admin/notifications/notification/", {"action": "retry_now", "_selected_action": [row.pk]}
        )
    assert response.status_code == 302
    row.refresh_from_db()
    assert row.status == Notification.Status.SENT
    assert [headline_of(m) for m in mail.outbox] == ["Alice invites you to a game of Splendor"]
