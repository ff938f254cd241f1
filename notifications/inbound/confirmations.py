"""Codes that confirm a command by email: ``confirm K7QD-2XMA-9FPT``.

A code is asked for before anything that cannot be undone by a reply (a
resignation, a new game that invites people) and, as a challenge, before any
command whose From: could not be authenticated: it goes to a verified address
of the account only (the one the command came from: a reply from a verified
added address is answered there, notifications.inbound.reply_emails), so sending
it back shows the sender reads that mailbox.
It acts once, for the account it was made for, within INBOUND_CONFIRMATION_HOURS
(carried out by notifications.inbound.services). Codes mailed to one address
are limited per hour (INBOUND_CHALLENGES_PER_HOUR).
"""

from __future__ import annotations

import secrets
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.utils import timezone

from games.models import Game
from notifications.inbound.commands import CODE_ALPHABET
from notifications.inbound.replies import inbound_message_finish, reply_send
from notifications.models import InboundMessage, PendingConfirmation

Status = InboundMessage.Status


def confirmation_code() -> tuple[str, str]:
    """A new code: as shown (``K7QD-2XMA-9FPT``, 12 letters of Crockford's base 32,
    60 bits) and as stored (lower case, no dashes: confirmation_code_normalize)."""
    letters = "".join(secrets.choice(CODE_ALPHABET) for _ in range(12))
    return "-".join(letters[start : start + 4] for start in (0, 4, 8)), letters.lower()


def _codes_allowed(user_id: int) -> bool:
    """Codes mailed to one address are limited per hour: a challenge is an email
    that anyone can make the service send, by forging the address."""
    since = timezone.now() - timedelta(hours=1)
    made = PendingConfirmation.objects.filter(user_id=user_id, created_at__gte=since).count()
    return made < settings.INBOUND_CHALLENGES_PER_HOUR


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
    if not _codes_allowed(user.pk):
        refused = f"{action}: the codes limit per hour is reached; nothing sent"
        return inbound_message_finish(inbound, Status.DROPPED, refused)
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
