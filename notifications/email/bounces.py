"""Hard bounces: addresses that mail cannot reach.

Three ways in: a recipient refused at send time (notifications.email.services), a
delivery status notification (RFC 3464) read by ``dsn_parse`` (the management
command ``notifications_bounce`` takes one on stdin), and the email provider's
tracking webhooks through django-anymail (``anymail_tracking``). Each ends in
``notifications.email.services.bounce_record``.
"""

from __future__ import annotations

import email
import email.policy
import logging
import re
from email.message import Message
from typing import Any

from anymail.signals import AnymailTrackingEvent, tracking  # type: ignore[import-untyped]  # no stubs
from django.dispatch import receiver

from notifications.email.services import bounce_record

logger = logging.getLogger(__name__)

_STATUS = re.compile(r"^([245])\.\d{1,3}\.\d{1,3}$")

# Rejections a provider makes because of the address itself (anymail's reject_reason).
HARD_REJECT_REASONS = frozenset({"bounced", "invalid"})


def _address(value: str) -> str:
    """The address from an RFC 3464 recipient field: ``rfc822; a@b.example``."""
    _, _, address = value.partition(";")
    address = (address or value).strip().strip("<>").strip()
    return address


def _status_groups(report: Message) -> list[Message]:
    """The per-recipient field groups of a message/delivery-status part."""
    payload = report.get_payload()
    if isinstance(payload, list):
        groups = [part for part in payload if isinstance(part, Message)]
        return groups[1:]  # the first group is about the message as a whole
    # Some parsers leave the part as text: read its blank-line-separated groups.
    text = payload if isinstance(payload, str) else ""
    blocks = [b for b in re.split(r"\r?\n\s*\r?\n", text.strip()) if b.strip()]
    return [email.message_from_string(block) for block in blocks[1:]]


def dsn_parse(raw: bytes) -> list[tuple[str, str, str]]:
    """The hard failures a delivery status notification reports:
    ``[(address, status, diagnostic)]``, one per recipient whose Action is
    ``failed`` with a 5.x.x status. Anything else (a delay, a success, a
    message that is not a DSN) gives an empty list."""
    message = email.message_from_bytes(raw, policy=email.policy.compat32)
    if message.get_content_type() != "multipart/report":
        return []
    if (message.get_param("report-type") or "").__str__().lower() != "delivery-status":
        return []
    failures: list[tuple[str, str, str]] = []
    for part in message.walk():
        if part.get_content_type() not in ("message/delivery-status", "message/global-delivery-status"):
            continue
        for group in _status_groups(part):
            action = (group.get("Action") or "").strip().lower()
            status = (group.get("Status") or "").strip().split(" ")[0]
            recipient = group.get("Final-Recipient") or group.get("Original-Recipient") or ""
            if action != "failed" or not _STATUS.match(status) or not status.startswith("5"):
                continue
            address = _address(str(recipient))
            if "@" not in address:
                continue
            diagnostic = " ".join(str(group.get("Diagnostic-Code") or "").split())
            failures.append((address, status, diagnostic))
    return failures


def dsn_record(raw: bytes) -> int:
    """Record every hard failure a DSN reports. Returns how many addresses it named."""
    failures = dsn_parse(raw)
    for address, status, _diagnostic in failures:
        # The diagnostic often quotes the address: the reason keeps the status only.
        bounce_record(address=address, reason=f"bounced ({status})", source="dsn")
    return len(failures)


def tracking_event_record(event: AnymailTrackingEvent) -> bool:
    """Mark the address undeliverable for a provider's hard bounce or a rejection
    for the address itself. True when the event was one."""
    address = event.recipient or ""
    if not address:
        return False
    if event.event_type == "bounced":
        reason = "bounced (reported by the email provider)"
    elif event.event_type == "rejected" and (event.reject_reason or "") in HARD_REJECT_REASONS:
        reason = f"rejected by the email provider ({event.reject_reason})"
    else:
        return False
    bounce_record(address=address, reason=reason, source="provider")
    return True


@receiver(tracking, dispatch_uid="notifications.bounces.anymail_tracking")
def anymail_tracking(sender: Any, event: AnymailTrackingEvent, esp_name: str, **kwargs: Any) -> None:
    tracking_event_record(event)
