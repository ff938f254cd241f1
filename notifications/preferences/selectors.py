"""A player's email preferences and per-game mutes, read; and when their next
digest is due.

``preferences_for`` answers with the player's row, or unsaved defaults for a
player who never changed anything, so callers never create rows by reading.
``digest_next_at`` is the moment of the next digest in the player's time zone:
the writes (notifications.preferences.services) keep ``Preferences.next_digest_at``
to it, and the digest sweep (notifications.reminders.services) moves it on.
"""

from __future__ import annotations

from datetime import datetime, time, timedelta
from typing import TYPE_CHECKING
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from accounts.models import Player
from notifications.models import GameMute, Preferences

if TYPE_CHECKING:
    from django.contrib.auth.models import User


def preferences_for(*, user: User) -> Preferences:
    """The player's preferences; unsaved defaults when they have no row."""
    found = Preferences.objects.filter(user=user).first()
    return found if found is not None else Preferences(user=user)


def muted_game_ids(*, user: User) -> list[str]:
    return list(GameMute.objects.filter(user=user).order_by("created_at", "pk").values_list("game_id", flat=True))


def game_is_muted(*, user_id: int, game_id: str) -> bool:
    return GameMute.objects.filter(user_id=user_id, game_id=game_id).exists()


def player_zone(*, user_id: int) -> ZoneInfo:
    """The player's time zone; UTC for a player without one or with a name this
    machine's time zone database no longer knows."""
    name = Player.objects.filter(user_id=user_id).values_list("time_zone", flat=True).first() or "UTC"
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return ZoneInfo("UTC")


def digest_next_at(*, zone: ZoneInfo, hour: int, after: datetime) -> datetime:
    """The first moment strictly after ``after`` at which the clock on the wall
    in ``zone`` reads ``hour``:00, in UTC. Computed from the local date, so a
    change to or from summer time moves the UTC instant, not the local hour. An
    hour that a spring change skips is taken as the hour after it (fold=0)."""
    local_day = after.astimezone(zone).date()
    for days in range(3):
        candidate = datetime.combine(local_day + timedelta(days=days), time(hour), tzinfo=zone)
        moment = candidate.astimezone(ZoneInfo("UTC"))
        if moment > after:
            return moment
    raise AssertionError("a local hour recurs within three days")  # pragma: no cover


def digest_local_date(*, zone: ZoneInfo, due_at: datetime) -> str:
    """The player's calendar date of a digest due at ``due_at``: one digest per date."""
    return due_at.astimezone(zone).date().isoformat()
