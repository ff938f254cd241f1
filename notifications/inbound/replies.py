"""What play by email answers, and how a message's processing ends.

Every answer is a notification (``reply_*`` kinds, keyed by the inbound message,
rendered by notifications.inbound.reply_emails) and is counted: one address gets
at most INBOUND_REPLIES_PER_HOUR replies of any kind and INBOUND_ERROR_REPLIES_PER_HOUR
refusals, so no stream of messages, forged or not, turns into a stream of
email. ``inbound_message_finish`` records what became of a message and forgets
its raw text. Logs name messages by id and addresses redacted.
"""

from __future__ import annotations

import logging
import re
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.utils import timezone

from core import metrics
from core.errors import DomainError
from games.models import Game, Seat
from notifications.addresses import address_redacted
from notifications.email.services import notify
from notifications.models import InboundMessage, Notification

logger = logging.getLogger(__name__)

Status = InboundMessage.Status


class InboundRefusal(DomainError):
    """A command that cannot be carried out for a reason of the email door itself."""

    code = "email_command_refused"
    title = "The emailed command cannot be carried out"


_ADDRESS = re.compile(r"[^\s<>()'\"]+@[^\s<>()'\",]+")


def _redacted(text: str) -> str:
    """``text`` with every address in it redacted (it goes to a log line)."""
    return _ADDRESS.sub(lambda match: address_redacted(match.group(0)), text)


# What a dropped message's outcome counts as in splendor_inbound_replies_total
# (its reason label), by how the outcome begins.
_DROP_REASONS = (
    ("auto-reply", "auto_reply"),
    ("bulk or list mail", "auto_reply"),
    ("bounce", "bounce"),
    ("no sender address", "no_sender"),
    ("unreadable", "unreadable"),
    ("sender not authenticated", "unauthenticated"),
    ("sender is not the seat's player", "wrong_sender"),
    ("sender has no verified account", "unknown_sender"),
    ("reply address not valid", "bad_address"),
    ("error replies limit reached", "rate_limited"),
    ("no confirmation waits", "bad_code"),
    ("the code's account is no longer active", "account_inactive"),
    ("internal error", "internal_error"),
)
# A refused command's reason: its error code, these renamed.
_REFUSAL_REASONS = {"stale_version": "stale_turn", "too_many_requests": "rate_limited"}


def inbound_reason(status: str, outcome: str) -> str:
    """The reason label of a finished message: "" when applied; for a refusal its
    error code (the outcome begins with it); for a drop, by the table above."""
    if status == Status.APPLIED:
        return ""
    if status == Status.CHALLENGED:
        return "unauthenticated"
    if status == Status.REFUSED:
        code = outcome.split(":", 1)[0].strip()
        return _REFUSAL_REASONS.get(code, code or "other")
    for start, reason in _DROP_REASONS:
        if start in outcome[: len(start) + 40]:
            return reason
    if "codes limit per hour" in outcome:
        return "rate_limited"
    return "other"


def inbound_counted(status: str, reason: str) -> None:
    metrics.INBOUND.labels(status, reason).inc()


def inbound_message_finish(
    inbound: InboundMessage, status: str, outcome: str, *, reason: str | None = None, **fields: Any
) -> str:
    """Record what became of the message (its status, and the outcome with every
    address in it redacted) and forget its raw text; count it
    (``splendor_inbound_replies_total``, ``reason`` or read from the outcome).
    Returns the status."""
    inbound_counted(status, reason if reason is not None else inbound_reason(status, outcome))
    outcome = _redacted(outcome)
    inbound.status = status
    inbound.outcome = outcome[:300]
    inbound.raw = None  # kept only until processed: it holds addresses and words
    for name, value in fields.items():
        setattr(inbound, name, value)
    inbound.save()
    logger.info("inbound message %s %s: %s", inbound.pk, status, outcome)
    return status


def reply_allowed(user_id: int) -> bool:
    """Whether one more reply may go to this account's address this hour: every
    kind counts (confirmations, boards, help, codes, warnings, errors), so no
    stream of messages, forged or not, turns into a stream of email."""
    since = timezone.now() - timedelta(hours=1)
    sent = Notification.objects.filter(user_id=user_id, kind__startswith="reply_", created_at__gte=since).count()
    return sent < settings.INBOUND_REPLIES_PER_HOUR


def reply_send(inbound: InboundMessage, kind: str, user: Any, game: Game | None, **context: Any) -> bool:
    """Record what the reply shows and queue it; False when the hour's replies
    to the address are used up (nothing is sent)."""
    if not reply_allowed(user.pk):
        logger.info("inbound message %s: no %s sent, the replies limit per hour is reached", inbound.pk, kind)
        inbound.reply = {**inbound.reply, "not_sent": "replies limit reached"}
        inbound.save(update_fields=["reply"])
        return False
    inbound.reply = {**inbound.reply, **context}
    inbound.save(update_fields=["reply"])
    notify(
        key=f"inbound:{inbound.pk}:{kind}:{user.pk}",
        kind=kind,
        user_id=user.pk,
        game_id=game.pk if game is not None else None,
    )
    return True


def command_refuse(
    inbound: InboundMessage, user: Any, seat: Seat | None, error: DomainError, *, stale: bool = False
) -> str:
    """Answer a refused command with what was understood, why not (the rule, the
    engine's words) and the board, then finish the message as refused; past the
    sender's error replies for the hour, it is dropped unanswered."""
    since = timezone.now() - timedelta(hours=1)
    replied = InboundMessage.objects.filter(
        sender_digest=inbound.sender_digest, error_replied=True, received_at__gte=since
    ).count()
    outcome = f"{error.code}: {error.message}"
    reason = str(error.fields.get("reason") or _REFUSAL_REASONS.get(error.code, error.code))
    if replied >= settings.INBOUND_ERROR_REPLIES_PER_HOUR:
        return inbound_message_finish(
            inbound, Status.DROPPED, f"error replies limit reached; {outcome}", reason="rate_limited"
        )
    game = seat.game if seat is not None else inbound.game
    sent = reply_send(
        inbound,
        "reply_refused",
        user,
        game,
        understood=inbound.command,
        message=error.message,
        rule=str(error.fields.get("rule") or ""),
        code=error.code,
        choices=[str(choice) for choice in (error.fields.get("choices") or [])][:10],
        stale=stale,
    )
    if not sent:
        outcome = f"{outcome}; no reply (limit)"
    return inbound_message_finish(inbound, Status.REFUSED, outcome, reason=reason, error_replied=sent)


def owner_warn(inbound: InboundMessage, *, user_id: int, game: Game | None, reason: str) -> None:
    """Tell the account's owner that someone else used their reply address (or
    that their reply address was not valid), without a code."""
    # Whoever has a player's reply address could otherwise flood them with warnings.
    since = timezone.now() - timedelta(hours=1)
    warned = Notification.objects.filter(kind="reply_unauthorised", user_id=user_id, created_at__gte=since).count()
    if warned >= settings.INBOUND_ERROR_REPLIES_PER_HOUR or not reply_allowed(user_id):
        return
    inbound.reply = {**inbound.reply, "reason": reason}
    inbound.save(update_fields=["reply"])
    notify(
        key=f"inbound:{inbound.pk}:reply_unauthorised:{user_id}",
        kind="reply_unauthorised",
        user_id=user_id,
        game_id=game.pk if game is not None else None,
    )
