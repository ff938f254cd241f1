"""Email about an account (not a game): a moderator's warning or suspension,
told by accounts' signals (accounts never imports notifications), and a league
admin's suspension of a player from their league, told by leagues' signals.

Both are ``account_notice`` notifications keyed by the moderation log's entry
(``account:<entry id>:account_notice:<user id>``), so each warning or
suspension is told once; the renderer reads the entry's action and reason.
A suspension made without a log entry (accounts.services.player_suspend
called directly) is keyed by its time and told without a reason.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.db import transaction
from django.dispatch import receiver

from accounts.signals import player_suspended, player_warned
from games.models import ModerationEntry
from leagues.signals import member_suspended, member_unsuspended
from notifications.services import notify

ACCOUNT_NOTICE = "account_notice"


def account_notice_key(*, user_id: int, entry_id: int | None = None, at: datetime | None = None) -> str:
    if entry_id is not None:
        return f"account:{entry_id}:{ACCOUNT_NOTICE}:{user_id}"
    stamp = at.isoformat() if at is not None else "now"
    return f"account:suspended-{stamp}:{ACCOUNT_NOTICE}:{user_id}"


@receiver(player_warned, dispatch_uid="notifications.player_warned")
def tell_a_warned_player(sender: Any, user_id: int, warning_id: int, **kwargs: Any) -> None:
    with transaction.atomic():
        notify(key=account_notice_key(user_id=user_id, entry_id=warning_id), kind=ACCOUNT_NOTICE, user_id=user_id)


@receiver(player_suspended, dispatch_uid="notifications.player_suspended")
def tell_a_suspended_player(sender: Any, user_id: int, suspended_at: datetime, **kwargs: Any) -> None:
    entry_id = (
        ModerationEntry.objects.filter(
            action=ModerationEntry.Action.PLAYER_SUSPENDED, target_user_id=user_id, at__gte=suspended_at
        )
        .order_by("-id")
        .values_list("id", flat=True)
        .first()
    )
    with transaction.atomic():
        notify(
            key=account_notice_key(user_id=user_id, entry_id=entry_id, at=suspended_at),
            kind=ACCOUNT_NOTICE,
            user_id=user_id,
        )


@receiver(member_suspended, dispatch_uid="notifications.member_suspended")
@receiver(member_unsuspended, dispatch_uid="notifications.member_unsuspended")
def tell_a_player_of_their_league_suspension(sender: Any, user_id: int, entry_id: int, **kwargs: Any) -> None:
    """A league admin suspended a player from their league, or lifted it: one
    ``account_notice``, keyed by the log's entry like a warning."""
    with transaction.atomic():
        notify(key=account_notice_key(user_id=user_id, entry_id=entry_id), kind=ACCOUNT_NOTICE, user_id=user_id)
