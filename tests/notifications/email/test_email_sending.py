"""Sending: headers, retries after mail-server errors, refused recipients, and
one send per notification however many workers try."""

from __future__ import annotations

import smtplib
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from django.core import mail
from tests.notifications import flaky_backend
from tests.notifications.email_helpers import headline_of, mail_to, play, start_game, user_to_move

from games.models import Move
from notifications.email import services
from notifications.email.tasks import send_due
from notifications.inbound.reply_tokens import reply_token_for, seat_for_reply_token
from notifications.models import Notification

Status = Notification.Status


@pytest.fixture
def flaky(settings: Any) -> Iterator[list[BaseException]]:
    settings.EMAIL_BACKEND = flaky_backend.PATH
    flaky_backend.FAILURES.clear()
    yield flaky_backend.FAILURES
    flaky_backend.FAILURES.clear()


def test_every_email_says_it_is_automatic_and_offers_one_click_unsubscribe(
    alice: Any, bob: Any, commit: Any, clock: Any
) -> None:
    game = start_game(commit, alice, bob)
    message = mail_to(user_to_move(game))[-1]
    headers = message.extra_headers
    assert headers["Auto-Submitted"] == "auto-generated"
    assert headers["List-Unsubscribe"].startswith("<https://splendor.test/notifications/unsubscribe/")
    assert headers["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    assert message.alternatives[0][1] == "text/html"


def test_a_turn_email_replies_to_the_seats_own_address_and_its_message_id_carries_the_token(
    alice: Any, bob: Any, commit: Any, clock: Any
) -> None:
    game = start_game(commit, alice, bob)
    mover = user_to_move(game)
    seat = game.seats.get(user=mover)
    token = reply_token_for(seat=seat)
    message = mail_to(mover)[-1]
    assert message.reply_to == [f"play+{token}@reply.splendor.test"]
    assert message.extra_headers["Message-ID"].endswith(f".{token}.v{game.version}@reply.splendor.test>")
    assert seat_for_reply_token(token) == seat
    assert seat_for_reply_token(token.upper()) == seat  # mail servers may change case


def test_a_reply_token_stops_working_when_the_seats_reply_key_changes(alice: Any, bob: Any, commit: Any) -> None:
    game = start_game(commit, alice, bob)
    seat = game.seats.get(user=bob)
    token = reply_token_for(seat=seat)
    seat.reply_key = "rotated"
    seat.save()
    assert seat_for_reply_token(token) is None
    assert seat_for_reply_token("1-" + "0" * 24) is None
    assert seat_for_reply_token("not a token") is None


def test_a_mail_server_error_is_retried_later_then_sent(
    alice: Any, bob: Any, commit: Any, clock: Any, flaky: list[BaseException]
) -> None:
    flaky.append(smtplib.SMTPServerDisconnected("connection lost"))
    with commit():
        from games import services as games

        game = games.game_create(creator=alice, variant="base", seats=2, invited=[bob])
    assert mail.outbox == []
    row = Notification.objects.get(user=bob, kind="invitation")
    assert (row.status, row.attempts, row.last_error) == (Status.QUEUED, 1, "SMTPServerDisconnected")
    assert send_due() == 0  # not due yet
    clock.shift(timedelta(seconds=61))
    assert send_due() == 1
    row.refresh_from_db()
    assert (row.status, row.attempts) == (Status.SENT, 2)
    assert row.message_id and row.sent_at is not None
    assert [headline_of(m) for m in mail.outbox] == ["Alice invites you to a game of Splendor"]
    assert game.pk in mail.outbox[0].body


def test_a_notification_is_given_up_after_the_last_attempt(
    alice: Any, bob: Any, commit: Any, clock: Any, flaky: list[BaseException]
) -> None:
    flaky.extend(OSError("connection refused") for _ in range(3))
    with commit():
        from games import services as games

        games.game_create(creator=alice, variant="base", seats=2, invited=[bob])
    for seconds in (61, 121):
        clock.shift(timedelta(seconds=seconds))
        send_due()
    row = Notification.objects.get(user=bob, kind="invitation")
    assert (row.status, row.attempts) == (Status.FAILED, 3)
    clock.shift(timedelta(hours=1))
    assert send_due() == 0
    assert mail.outbox == []


def test_a_failing_mail_server_never_fails_a_move(
    alice: Any, bob: Any, commit: Any, clock: Any, flaky: list[BaseException]
) -> None:
    game = start_game(commit, alice, bob)
    flaky.extend(smtplib.SMTPServerDisconnected("down") for _ in range(5))
    play(commit, game, "take WUG")
    assert Move.objects.filter(game=game).count() == 1
    queued = Notification.objects.get(game=game, kind="your_turn", status=Status.QUEUED)
    assert queued.user == user_to_move(game)


def test_a_recipient_refused_outright_marks_the_address_undeliverable(
    alice: Any, bob: Any, commit: Any, clock: Any, flaky: list[BaseException]
) -> None:
    flaky.append(smtplib.SMTPRecipientsRefused({"bob@example.com": (550, b"5.1.1 no such user")}))
    with commit():
        from games import services as games

        games.game_create(creator=alice, variant="base", seats=2, invited=[bob])
    bob.player.refresh_from_db()
    assert bob.player.email_undeliverable_at is not None
    assert "550" in bob.player.email_undeliverable_reason
    row = Notification.objects.get(user=bob)
    assert row.status == Status.FAILED
    clock.shift(timedelta(hours=1))
    assert send_due() == 0


def test_a_recipient_refused_for_now_is_retried(
    alice: Any, bob: Any, commit: Any, clock: Any, flaky: list[BaseException]
) -> None:
    flaky.append(smtplib.SMTPRecipientsRefused({"bob@example.com": (450, b"4.2.1 try later")}))
    with commit():
        from games import services as games

        games.game_create(creator=alice, variant="base", seats=2, invited=[bob])
    bob.player.refresh_from_db()
    assert bob.player.email_undeliverable_at is None
    clock.shift(timedelta(seconds=61))
    assert send_due() == 1


def test_two_workers_sending_one_notification_send_it_once(alice: Any, bob: Any, commit: Any, clock: Any) -> None:
    with commit():
        row = services.notify(key="test:once", kind="invitation", user_id=bob.pk, game_id=_open_game(alice, bob))
    assert row is not None
    mail.outbox.clear()
    Notification.objects.filter(pk=row.pk).update(status=Status.QUEUED, next_attempt_at=None)
    assert services.notification_send(notification_id=row.pk) == "sent"
    assert services.notification_send(notification_id=row.pk) == "not-due"
    assert send_due() == 0
    assert len(mail.outbox) == 1


def test_notify_records_one_notification_per_key(alice: Any, bob: Any, commit: Any, clock: Any) -> None:
    game_id = _open_game(alice, bob)
    with commit():
        first = services.notify(key="test:key", kind="invitation", user_id=bob.pk, game_id=game_id)
        second = services.notify(key="test:key", kind="invitation", user_id=bob.pk, game_id=game_id)
    assert first is not None and second is None
    assert Notification.objects.filter(key="test:key").count() == 1


def test_notify_refuses_a_kind_without_a_renderer(bob: Any) -> None:
    with pytest.raises(LookupError, match="no renderer is registered for notifications of kind 'telegram'"):
        services.notify(key="test:unknown", kind="telegram", user_id=bob.pk)


def test_addresses_are_logged_redacted(
    alice: Any, bob: Any, commit: Any, clock: Any, caplog: pytest.LogCaptureFixture, log_format: str
) -> None:
    caplog.set_level("INFO", logger="notifications")
    start_game(commit, alice, bob)
    # Each line as LOG_FORMAT writes it, context fields included.
    logged = "\n".join(caplog.handler.format(r) for r in caplog.records if r.name.startswith("notifications"))
    assert "sent to b***@example.com" in logged
    assert "bob@example.com" not in logged and "alice@example.com" not in logged
    assert "play+" not in logged and "seat=" not in logged


def _open_game(alice: Any, bob: Any) -> str:
    from games.models import Game, Seat

    game = Game.objects.create(created_by=alice, seat_count=2)
    Seat.objects.create(game=game, user=bob, invited=True)
    return game.pk


def test_the_sent_message_carries_the_headers_and_both_parts(alice: Any, bob: Any, commit: Any, clock: Any) -> None:
    game = start_game(commit, alice, bob)
    message = mail_to(user_to_move(game))[-1].message()
    assert message["Auto-Submitted"] == "auto-generated"
    assert message["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    assert message["Reply-To"].startswith("play+")
    assert message["Message-ID"].endswith("@reply.splendor.test>")
    assert message.get_content_type() == "multipart/alternative"
    assert [part.get_content_type() for part in message.get_payload()] == ["text/plain", "text/html"]


def test_the_html_uses_inline_styles_and_loads_nothing_from_elsewhere(
    alice: Any, bob: Any, commit: Any, clock: Any
) -> None:
    from games import services as games

    game = start_game(commit, alice, bob)
    play(commit, game)
    with commit():
        games.game_resign(game=game, user=alice)
    assert len(mail.outbox) >= 4
    for message in mail.outbox:
        html = message.alternatives[0][0].lower()
        for tag in ("<img", "<style", "<link", "<script", "url("):
            assert tag not in html, (tag, message.subject)


def test_an_unexpected_backend_error_counts_as_an_attempt_and_is_retried(
    alice: Any, bob: Any, commit: Any, clock: Any, flaky: list[BaseException]
) -> None:
    flaky.append(RuntimeError("the provider's API answered 502"))
    with commit():
        from games import services as games

        games.game_create(creator=alice, variant="base", seats=2, invited=[bob])
    row = Notification.objects.get(user=bob)
    assert (row.status, row.attempts, row.last_error) == (Status.QUEUED, 1, "RuntimeError")
    clock.shift(timedelta(seconds=61))
    assert send_due() == 1
