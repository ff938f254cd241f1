"""Codes that confirm a command by email: ``confirm K7QD-2XMA-9FPT``.

A code is asked for before anything that cannot be undone by a reply (a
resignation, a new game that invites people) and, as a challenge, before any
command whose From: could not be authenticated: it goes to a verified address
of the account only (the one the command came from: a reply from a verified
added address is answered there, notifications.inbound.reply_emails), so sending
it back shows the sender reads that mailbox.
It acts once, for the account it was made for, within INBOUND_CONFIRMATION_HOURS
(carried out by notifications.inbound.services). Codes mailed to one account
are limited per hour (INBOUND_CHALLENGES_PER_HOUR); past the limit its owner is
told once an hour when codes work again (kind ``reply_codes_limit``).
"""

from __future__ import annotations

import secrets
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.utils import timezone

from games.models import Game
from notifications.inbound.commands import CODE_ALPHABET
from notifications.inbound.replies import inbound_message_finish, reply_send
from notifications.models import InboundMessage, Notification, PendingConfirmation

Status = InboundMessage.Status
# The answer that says the hour's codes are used up, and when they work again.
LIMIT_KIND = "reply_codes_limit"


def confirmation_code() -> tuple[str, str]:
    """A new code: as shown (``K7QD-2XMA-9FPT``, 12 letters of Crockford's base 32,
    60 bits) and as stored (lower case, no dashes: confirmation_code_normalize)."""
    letters = "".join(secrets.choice(CODE_ALPHABET) for _ in range(12))
    return "-".join(letters[start : start + 4] for start in (0, 4, 8)), letters.lower()


def _codes_made(user_id: int) -> list[datetime]:
    """When the codes of the last hour were made for the account, oldest first."""
    since = timezone.now() - timedelta(hours=1)
    return list(
        PendingConfirmation.objects.filter(user_id=user_id, created_at__gte=since)
        .order_by("created_at")
        .values_list("created_at", flat=True)
    )


def _codes_again_at(made: list[datetime]) -> datetime:
    """The first whole minute at which the hour holds fewer codes than the limit
    again (a time shown to the minute must not come too early)."""
    freed = made[max(0, len(made) - settings.INBOUND_CHALLENGES_PER_HOUR)] + timedelta(hours=1)
    return freed.replace(second=0, microsecond=0) + timedelta(minutes=1)


def _codes_limit_reached(inbound: InboundMessage, user: Any, action: str, made: list[datetime]) -> str:
    """No code: the account had the hour's codes. Its owner is told once an hour
    (the first message past the limit; the later ones get nothing, or a forger
    could still flood them) when codes work again, and, for mail not proven to
    be theirs, how signed mail needs none."""
    since = timezone.now() - timedelta(hours=1)
    outcome = f"{action}: the codes limit per hour is reached; nothing sent"
    told = Notification.objects.filter(kind=LIMIT_KIND, user_id=user.pk, created_at__gte=since).exists()
    if told:
        return inbound_message_finish(inbound, Status.DROPPED, outcome)
    again = _codes_again_at(made)
    if reply_send(inbound, LIMIT_KIND, user, None, again_at=again.isoformat(), codes=len(made)):
        outcome = f"{action}: the codes limit per hour is reached; its owner is told when codes work again"
    return inbound_message_finish(inbound, Status.DROPPED, outcome)


def confirmation_ask(
    inbound: InboundMessage,
    user: Any,
    action: str,
    game: Game | None,
    details: dict[str, Any],
    *,
    status: str = Status.APPLIED,
    outcome: str = "",
) -> str:
    """Mail the account's address a new code that carries ``action`` out when sent
    back, and finish the message with ``status`` (applied: the command asked for
    a code; challenged: its sender could not be authenticated)."""
    made = _codes_made(user.pk)
    if len(made) >= settings.INBOUND_CHALLENGES_PER_HOUR:
        return _codes_limit_reached(inbound, user, action, made)
    shown, stored = confirmation_code()  # bound to the account, for INBOUND_CONFIRMATION_HOURS
    PendingConfirmation.objects.create(
        code=stored,
        action=action,
        user=user,
        game=game,
        details=details,
        expires_at=timezone.now() + timedelta(hours=settings.INBOUND_CONFIRMATION_HOURS),
    )
    reply_send(inbound, "reply_confirm", user, game, action=action, confirm_code=shown, details=details,
               hours=settings.INBOUND_CONFIRMATION_HOURS)  # fmt: skip
    return inbound_message_finish(inbound, status, outcome or f"{action} waits for confirmation")
