"""Who gets no email: recorded as suppressed, never sent."""

from __future__ import annotations

from typing import Any

import pytest
from django.core import mail
from tests.notifications.email_helpers import headlines_to, mail_to, play, start_game, user_to_move

from games import services
from notifications.addresses import address_digest
from notifications.models import GameMute, InvitationOptOut, Notification, Preferences

pytestmark = pytest.mark.usefixtures("clock")


def _suppressed(user: Any) -> list[str]:
    return list(
        Notification.objects.filter(user=user, status=Notification.Status.SUPPRESSED).values_list(
            "last_error", flat=True
        )
    )


def test_a_player_who_turned_email_off_gets_none(alice: Any, bob: Any, commit: Any) -> None:
    Preferences.objects.create(user=bob, mode=Preferences.Mode.OFF)
    start_game(commit, alice, bob)
    assert mail_to(bob) == []
    assert "mode off" in _suppressed(bob)


def test_a_player_on_the_daily_digest_gets_no_turn_emails_but_still_invitations(
    alice: Any, bob: Any, commit: Any
) -> None:
    Preferences.objects.create(user=alice, mode=Preferences.Mode.DIGEST)
    Preferences.objects.create(user=bob, mode=Preferences.Mode.DIGEST)
    game = start_game(commit, alice, bob)
    play(commit, game)
    assert headlines_to(bob) == ["Alice invites you to a game of Splendor"]
    assert [s for s in headlines_to(alice) if s.startswith("Your turn")] == []


def test_a_muted_game_sends_no_turn_email(alice: Any, bob: Any, commit: Any) -> None:
    game = start_game(commit, alice, bob)
    mover = user_to_move(game)
    other = bob if mover == alice else alice
    GameMute.objects.create(user=other, game=game)
    mail.outbox.clear()
    play(commit, game)
    assert mail_to(other) == []
    assert "game muted" in _suppressed(other)


def test_an_undeliverable_address_gets_no_email(alice: Any, bob: Any, commit: Any) -> None:
    from django.utils import timezone

    bob.player.email_undeliverable_at = timezone.now()
    bob.player.save()
    start_game(commit, alice, bob)
    assert mail_to(bob) == []
    assert "undeliverable address" in _suppressed(bob)


def test_an_address_that_opted_out_gets_no_invitations_but_still_its_turns(
    alice: Any, bob: Any, commit: Any
) -> None:
    InvitationOptOut.objects.create(address_digest=address_digest("Bob@Example.com"))
    game = start_game(commit, alice, bob)
    play(commit, game)
    assert not any(s.endswith("invites you to a game of Splendor") for s in headlines_to(bob))
    assert "opted out of invitations" in _suppressed(bob)
    assert any(s.startswith("Your turn") for s in headlines_to(bob))


def test_a_disabled_account_gets_no_email(alice: Any, bob: Any, commit: Any) -> None:
    bob.is_active = False
    bob.save()
    with commit():
        game = services.game_create(creator=alice, variant="base", seats=2)
    from notifications.email.services import notify

    with commit():
        notify(key="test:disabled", kind="invitation", user_id=bob.pk, game_id=game.pk)
    assert mail_to(bob) == []
    assert "inactive account" in _suppressed(bob)


def test_email_turned_off_after_queueing_is_not_sent(alice: Any, bob: Any, commit: Any, settings: Any) -> None:
    from tests.notifications import flaky_backend

    settings.EMAIL_BACKEND = flaky_backend.PATH
    flaky_backend.FAILURES[:] = [OSError("down")]
    with commit():
        services.game_create(creator=alice, variant="base", seats=2, invited=[bob])
    Preferences.objects.create(user=bob, mode=Preferences.Mode.OFF)
    from datetime import timedelta

    import time_machine
    from django.utils import timezone

    from notifications.email.tasks import send_due

    with time_machine.travel(timezone.now() + timedelta(minutes=5), tick=False):
        send_due()
    assert mail.outbox == []
    assert Notification.objects.get(user=bob).status == Notification.Status.SUPPRESSED
