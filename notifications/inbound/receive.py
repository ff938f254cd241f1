"""Receiving play by email: each message stored once, with whether its sender is
authenticated, and its processing queued.

Every way in (``manage.py smtpd``, the email provider's inbound webhook, the
IMAP poll) ends in ``inbound_message_receive``, which stores the message once
(a unique row per Message-ID, so a second delivery applies nothing) and queues
``inbound_message_process`` (notifications.inbound.services) on commit, by the
task's name. Whether the From: is authenticated (a DMARC-aligned DKIM or SPF
pass) is settled here, as the message comes in (``sender_check``): by the SMTP
receiver itself, or read from the Authentication-Results header of the trusted
INBOUND_AUTHSERV_ID.
"""

from __future__ import annotations

import hashlib
import ipaddress
import logging
from dataclasses import dataclass

from django.conf import settings
from django.db import DatabaseError, IntegrityError, transaction
from django.utils import timezone

from notifications.addresses import address_digest
from notifications.inbound import inbound_parse
from notifications.inbound.authentication import (
    Resolver,
    SenderCheck,
    SystemResolver,
    sender_from_results,
    sender_verify,
)
from notifications.inbound.message import DROP_UNREADABLE
from notifications.inbound.replies import inbound_counted
from notifications.inbound.text import visible_text
from notifications.models import InboundMessage

logger = logging.getLogger(__name__)

Status = InboundMessage.Status
# The task's name (notifications.inbound.tasks), as it was before notifications was grouped by channel.
PROCESS_TASK = "notifications.inbound_tasks.process_inbound"


def reply_domain() -> str:
    """The domain of the reply addresses (``play+<token>@...``, ``new@...``)."""
    return str(settings.EMAIL_REPLY_DOMAIN or "")


@dataclass(frozen=True)
class SmtpPeer:
    """What the SMTP session knew of the client that handed the message over."""

    client_ip: str
    helo: str
    mail_from: str


def relay_is_trusted(client_ip: str) -> bool:
    """Whether ``client_ip`` is in INBOUND_TRUSTED_RELAYS (an IPv4 address seen
    as IPv6, ::ffff:a.b.c.d, counts as itself)."""
    try:
        address = ipaddress.ip_address(client_ip.split("%")[0])
    except ValueError:
        return False
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return any(address in network for network in settings.INBOUND_TRUSTED_RELAYS)


def sender_check(raw: bytes, *, peer: SmtpPeer | None, resolver: Resolver | None = None) -> SenderCheck:
    """Whether the message's From: domain is authenticated. Mail handed over by
    an SMTP client that is not a trusted relay is checked here (DKIM, SPF for the
    session's client and envelope sender, DMARC alignment); anything else (a
    trusted relay, the IMAP poll, the provider's webhook) is believed from the
    Authentication-Results header of INBOUND_AUTHSERV_ID, and only from it."""
    resolver = resolver or SystemResolver()
    try:
        if peer is not None and not relay_is_trusted(peer.client_ip):
            return sender_verify(
                raw, client_ip=peer.client_ip, helo=peer.helo, mail_from=peer.mail_from, resolver=resolver
            )
        return sender_from_results(raw, authserv_id=settings.INBOUND_AUTHSERV_ID, resolver=resolver)
    except Exception as error:  # a check that breaks proves nothing; the message is still stored
        logger.warning("sender check failed (%s); the sender counts as not authenticated", type(error).__name__)
        return SenderCheck(False, "", f"not checked: {type(error).__name__}")


def inbound_message_receive(
    *,
    raw: bytes,
    envelope_to: list[str] | None,
    source: str,
    peer: SmtpPeer | None = None,
    resolver: Resolver | None = None,
) -> InboundMessage | None:
    """Store one message, with whether its sender is authenticated, and queue
    its processing once the transaction commits. ``peer`` is the SMTP session's
    client (``manage.py smtpd``); the other ways in have none. Returns None for
    a message too large, or one stored already (a second delivery of the same
    Message-ID)."""
    if len(raw) > settings.INBOUND_MAX_MESSAGE_BYTES:
        logger.info("inbound message from %s refused: %s bytes is over the limit", source, len(raw))
        return None
    parsed = inbound_parse(raw, reply_domain=reply_domain(), envelope_to=envelope_to)
    recipients = [visible_text(address).lower()[:320] for address in (envelope_to or [])][:20]
    check = sender_check(raw, peer=peer, resolver=resolver) if not parsed.drop_reason else None
    try:
        with transaction.atomic():
            inbound = InboundMessage.objects.create(
                message_key=parsed.message_key,
                source=source[:16],
                raw=raw,
                envelope_to=recipients,
                sender_digest=address_digest(parsed.sender) if parsed.sender else "",
                authenticated=check is not None and check.authenticated,
                authentication=visible_text(check.detail)[:200] if check is not None else "",
            )
    except IntegrityError:
        logger.info("inbound message from %s is a repeat delivery; nothing done", source)
        return None
    except DatabaseError as error:
        # Something in this one message the database will not take: it is
        # recorded without its content, so that the way in goes on to the next
        # message (an IMAP poll that failed on it would never get past it). If
        # the database takes nothing at all, this fails too and the way in
        # retries later.
        return _record_unstorable(raw=raw, source=source, error=error)
    inbound_id = inbound.pk
    transaction.on_commit(lambda: _queue_process(inbound_id))
    logger.info("inbound message %s received from %s; sender %s", inbound_id, source,
                f"authenticated: {check.detail}" if check and check.authenticated
                else f"not authenticated: {check.detail}" if check else "not checked")  # fmt: skip
    return inbound


def _record_unstorable(*, raw: bytes, source: str, error: Exception) -> InboundMessage | None:
    try:
        with transaction.atomic():
            inbound = InboundMessage.objects.create(
                message_key=hashlib.sha256(raw).hexdigest(),
                source=source[:16],
                raw=None,
                status=Status.DROPPED,
                processed_at=timezone.now(),
                outcome=f"{DROP_UNREADABLE}: could not be stored ({type(error).__name__})",
            )
    except IntegrityError:
        return None
    inbound_counted(Status.DROPPED, "unreadable")
    logger.warning("inbound message %s from %s could not be stored (%s); recorded without its content",
                   inbound.pk, source, type(error).__name__)  # fmt: skip
    return inbound


def _queue_process(inbound_id: int) -> None:
    from celery import current_app

    try:
        task = current_app.tasks.get(PROCESS_TASK)
        if task is not None:
            task.apply_async(args=(inbound_id,), retry=False)
        else:
            current_app.send_task(PROCESS_TASK, args=(inbound_id,), retry=False)
    except Exception:
        logger.warning("could not queue inbound message %s; process_pending will", inbound_id, exc_info=True)
