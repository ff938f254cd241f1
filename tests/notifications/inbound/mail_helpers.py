"""Replies as mail clients write them, built from the emails the service sent
(the locmem outbox), and received through the one inbound service.

A reply is authenticated by default, as most real mail is: it carries the
Authentication-Results header that the trusted mail host (AUTHSERV_ID, trusted
by the tests' settings in conftest.py) writes for a DMARC pass of the From:
domain, so the tests go through the real check. ``authenticated=False`` leaves
it out, as a forger's or an unauthenticated sender's mail comes in."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from contextlib import AbstractContextManager
from email.utils import formatdate
from typing import Any

from django.core import mail
from django.core.mail import EmailMessage

from tests.notifications.email_helpers import says_first
from tests.notifications.inbound.sender_helpers import AUTHSERV_ID

from notifications.inbound.receive import inbound_message_receive
from notifications.models import InboundMessage, Notification

Commit = Callable[[], AbstractContextManager[Any]]
_numbers = itertools.count(1)


def latest(user: Any, start: str = "") -> EmailMessage:
    """The newest email to ``user`` that says first what happened in words starting
    so: its first line (an email about a game, whose subject names only the game),
    or its subject (an email about no game)."""
    for message in reversed(mail.outbox):
        if user.email in message.to and says_first(message, start):
            return message
    raise AssertionError(f"no email to {user.email} starting {start!r}")


def answer(user: Any, kind: str) -> EmailMessage:
    """The newest reply of ``kind`` (reply_done, reply_refused, reply_board,
    reply_confirm, ...) sent to ``user``. Replies are found by kind, not by
    subject: a reply's subject is "Re: " and the subject it answers."""
    sent = set(
        Notification.objects.filter(user=user, kind=kind, status=Notification.Status.SENT).values_list(
            "message_id", flat=True
        )
    )
    for message in reversed(mail.outbox):
        if user.email in message.to and message.extra_headers.get("Message-ID") in sent:
            return message
    raise AssertionError(f"no {kind} email to {user.email}")


def reply_bytes(
    message: EmailMessage | None,
    *,
    sender: str,
    body: str,
    to: str | None = None,
    message_id: str | None = None,
    headers: tuple[str, ...] = (),
    authenticated: bool = True,
) -> bytes:
    """A Gmail-style top-posted reply to ``message``: the body, then the quote."""
    lines = [authentication_results(sender)] if authenticated else []
    lines.append(f"From: Someone <{sender}>")
    lines.append(f"To: {to or (message.reply_to[0] if message is not None and message.reply_to else 'x@nowhere')}")
    lines.append(f"Subject: Re: {message.subject if message is not None else 'hello'}")
    lines.append(f"Date: {formatdate()}")
    lines.append(f"Message-ID: {message_id or f'<reply{next(_numbers)}@mail.example.com>'}")
    if message is not None:
        lines.append(f"In-Reply-To: {message.extra_headers['Message-ID']}")
        lines.append(f"References: {message.extra_headers['Message-ID']}")
    lines += ["MIME-Version: 1.0", "Content-Type: text/plain; charset=utf-8", *headers]
    quote = ""
    if message is not None:
        quote = "\n\nOn Mon, 2 Mar 2026 at 09:00, Splendor by post wrote:\n" + "\n".join(
            "> " + line for line in str(message.body).splitlines()
        )
    return ("\r\n".join(lines) + "\r\n\r\n" + (body + quote).replace("\n", "\r\n") + "\r\n").encode()


def authentication_results(sender: str, *, result: str = "pass") -> str:
    """The header the trusted mail host writes for a DMARC check of ``sender``'s domain."""
    domain = sender.rpartition("@")[2]
    return f"Authentication-Results: {AUTHSERV_ID}; dmarc={result} (p=none) header.from={domain}"


def receive(commit: Commit, raw: bytes) -> InboundMessage | None:
    """Deliver one message as a way in does; its processing runs on commit."""
    with commit():
        inbound = inbound_message_receive(raw=raw, envelope_to=None, source="test")
    if inbound is not None:
        inbound.refresh_from_db()
    return inbound


def examples_in(message: EmailMessage) -> list[str]:
    """The moves a turn email lists under "Some moves you could play:"."""
    lines = str(message.body).splitlines()
    if "Some moves you could play:" not in lines:
        return []
    start = lines.index("Some moves you could play:") + 1
    moves: list[str] = []
    for line in lines[start:]:
        if not line.startswith("  "):
            break
        moves.append(line.strip())
    return moves


class FakeImap:
    """What imap_poll asks of imaplib: select, UID SEARCH/FETCH/STORE."""

    def __init__(self, messages: dict[bytes, bytes]) -> None:
        self.messages = messages
        self.seen: list[str] = []
        self.folder = ""

    def select(self, folder: str) -> tuple[str, list[bytes]]:
        self.folder = folder
        return "OK", [str(len(self.messages)).encode()]

    def uid(self, command: str, *args: Any) -> tuple[str, list[Any]]:
        if command == "SEARCH":
            unseen = [uid for uid in self.messages if uid.decode() not in self.seen]
            return "OK", [b" ".join(unseen)]
        if command == "FETCH":
            uid = args[0].encode()
            return "OK", [(uid + b" (BODY[] {1})", self.messages[uid]), b")"]
        if command == "STORE":
            self.seen.append(args[0])
            return "OK", []
        raise AssertionError(command)
