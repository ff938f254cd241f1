"""A message that cannot be read is recorded and dropped, and never stops a way
in: the IMAP poll goes on to the messages behind it, and the SMTP receiver
answers 250 (a 451 would have the sender's mail server retry it for days)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from django.db import DataError
from tests.factories import seat_to_move
from tests.notifications.email_helpers import start_game
from tests.notifications.inbound.mail_helpers import FakeImap, latest, reply_bytes

from games.models import Move
from notifications.inbound.tasks import imap_poll
from notifications.management.commands.smtpd import InboundHandler
from notifications.models import InboundMessage

Status = InboundMessage.Status


def _nested(depth: int) -> bytes:
    opening = b"".join(
        b"Content-Type: multipart/mixed; boundary=\"b%d\"\r\n\r\n--b%d\r\n" % (level, level) for level in range(depth)
    )
    closing = b"".join(b"\r\n--b%d--\r\n" % level for level in reversed(range(depth)))
    head = b"From: bob@example.com\r\nTo: play+1-abc@reply.splendor.test\r\nSubject: hi\r\nMessage-ID: <deep@x.example>\r\n"
    return head + opening + b"Content-Type: text/plain\r\n\r\ntake WUG\r\n" + closing


@pytest.mark.django_db
def test_the_imap_poll_gets_past_a_message_nested_a_thousand_deep(clock: Any, commit: Any, alice: Any, bob: Any) -> None:
    game = start_game(commit, alice, bob)
    player = seat_to_move(game).user
    valid = reply_bytes(latest(player, "Your turn"), sender=player.email, body="take WUG")
    imap = FakeImap({b"1": _nested(1000), b"2": valid})
    with commit():
        assert imap_poll(client=imap) == 2  # type: ignore[arg-type]
    assert sorted(imap.seen) == ["1", "2"]
    deep = InboundMessage.objects.get(status=Status.DROPPED)
    assert deep.outcome.startswith("unreadable: ")
    assert deep.raw is None
    assert list(Move.objects.filter(game=game).values_list("text", flat=True)) == ["take WUG"]


@pytest.mark.django_db
def test_a_message_the_database_refuses_is_recorded_without_its_content_and_the_poll_goes_on(
    commit: Any, alice: Any, monkeypatch: Any
) -> None:
    create = InboundMessage.objects.create

    def refuse_the_first(**fields: Any) -> InboundMessage:
        if fields.get("raw") and b"refuse me" in fields["raw"]:
            raise DataError("invalid byte sequence")
        return create(**fields)

    monkeypatch.setattr(InboundMessage.objects, "create", refuse_the_first)
    refused = reply_bytes(None, sender=alice.email, body="refuse me", to="new@reply.splendor.test")
    taken = reply_bytes(None, sender=alice.email, body="help", to="new@reply.splendor.test")
    imap = FakeImap({b"1": refused, b"2": taken})
    with commit():
        assert imap_poll(client=imap) == 2  # type: ignore[arg-type]
    assert sorted(imap.seen) == ["1", "2"]
    assert sorted(InboundMessage.objects.values_list("status", "outcome")) == [
        (Status.APPLIED, "sent help"),
        (Status.DROPPED, "unreadable: could not be stored (DataError)"),
    ]


class _Envelope:
    def __init__(self, content: bytes, recipients: list[str]) -> None:
        self.original_content = content
        self.rcpt_tos = recipients
        self.mail_from = "bob@example.com"


class _Session:
    peer = ("192.0.2.7", 40000)
    host_name = "mail.example.com"


@pytest.mark.django_db(transaction=True)
def test_the_smtp_receiver_answers_250_to_a_message_nested_a_thousand_deep() -> None:
    handler = InboundHandler("reply.splendor.test")
    envelope = _Envelope(_nested(1000), ["play+1-abc@reply.splendor.test"])
    answer = asyncio.run(handler.handle_DATA(None, _Session(), envelope))  # type: ignore[arg-type]
    assert answer.startswith("250 ")
    stored = InboundMessage.objects.get()
    assert stored.status == Status.DROPPED and stored.outcome.startswith("unreadable: ")
