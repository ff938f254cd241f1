"""Email about an account (not a game): a moderator's warning or suspension,
told by accounts' signals (accounts never imports notifications), and a league
admin's suspension of a player from their league, told by leagues' signals.

Both are ``account_notice`` notifications keyed by the moderation log's entry
(``account:<entry id>:account_notice:<user id>``), so each warning or
suspension is told once; the renderer reads the entry's action and reason.
A suspension made without a log entry (accounts.services.player_suspend
called directly) is keyed by its time and told without a reason.

The kind's renderer is here too, registered with the email renderers
(notifications.email.render); the templates are
``notifications/email/account_notice*``.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.db import transaction
from django.dispatch import receiver

from accounts.signals import player_suspended, player_warned
from games.models import ModerationEntry
from leagues.signals import member_suspended, member_unsuspended
from notifications.email.render import KindContext, local_time, renderer
from notifications.email.services import notify
from notifications.models import Notification

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


# --- what the email says ---------------------------------------------------------------


def _moderation_entry(notification: Notification) -> ModerationEntry | None:
    parts = notification.key.split(":")
    if len(parts) < 2 or parts[0] != "account" or not parts[1].isdigit():
        return None
    return ModerationEntry.objects.filter(pk=int(parts[1]), target_user_id=notification.user_id).first()


@renderer(ACCOUNT_NOTICE)
def render_account_notice(notification: Notification) -> KindContext:
    """A moderator's warning or suspension of the recipient's account, or a league
    admin's warning or suspension from their league, with the reason (the
    moderation log's entry named by the key)."""
    entry = _moderation_entry(notification)
    action = entry.action if entry is not None else ModerationEntry.Action.PLAYER_SUSPENDED
    details = entry.details if entry is not None and isinstance(entry.details, dict) else {}
    return KindContext(
        {
            "suspended": action == ModerationEntry.Action.PLAYER_SUSPENDED,
            "league_suspended": action == ModerationEntry.Action.LEAGUE_SUSPENDED,
            "league_unsuspended": action == ModerationEntry.Action.LEAGUE_UNSUSPENDED,
            # A warning or a league suspension from a league's admin names the league.
            "league": str(details.get("league", "")),
            "reason": entry.reason if entry is not None else "",
            "about_game": entry.game_id if entry is not None and entry.game_id else "",
            "at": local_time(entry.at if entry is not None else notification.created_at, notification.user),
        }
    )
