"""A player's email preferences and per-game mutes: the writes.

Everything is checked before anything is saved. Writes keep
``Preferences.next_digest_at`` true to the player's digest hour in their time
zone (``digest_next_at``), so the digest sweep is an index scan, and a change of
reminder hours or mode reschedules the reminders of the turns waiting on the
player (notifications.reminders.services). The reads are in
notifications.preferences.selectors.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any

from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext, ngettext

from core.errors import InvalidInput
from core.text import listed
from games import selectors as game_selectors
from games.errors import NotAPlayer
from games.models import Game, Seat
from notifications.models import GameMute, Preferences
from notifications.preferences.selectors import digest_next_at, player_zone
from notifications.reminders.services import reminders_schedule_for_user

if TYPE_CHECKING:
    from django.contrib.auth.models import User

MODES = [choice.value for choice in Preferences.Mode]
# Which kinds of news also go by push (notifications.push), one switch each.
PUSH_PREFERENCES = ("push_your_turn", "push_reminder", "push_invitation", "push_chat_line", "push_game_over")
PREFERENCE_NAMES = ("mode", "digest_hour", "reminder_hours", *PUSH_PREFERENCES)
MAX_REMINDERS = 5
MAX_REMINDER_HOURS = 168  # a week: no game's move time is longer


def preferences_check(changes: dict[str, Any]) -> None:
    """Raise InvalidInput, field by field, for changes preferences_update would refuse."""
    errors: dict[str, list[str]] = {}
    unknown = sorted(set(changes) - set(PREFERENCE_NAMES))
    for name in unknown:
        errors[name] = [
            gettext("There is no such preference; they are %(names)s.") % {"names": listed(list(PREFERENCE_NAMES))}
        ]
    for name in PUSH_PREFERENCES:
        if name in changes and not isinstance(changes[name], bool):
            errors[name] = [gettext("Send true or false.")]
    if "mode" in changes and changes["mode"] not in MODES:
        errors["mode"] = [
            gettext("%(mode)s is not a mode; choose one of %(modes)s.")
            % {"mode": repr(changes["mode"]), "modes": ", ".join(MODES)}
        ]
    if "digest_hour" in changes:
        hour = changes["digest_hour"]
        if isinstance(hour, bool) or not isinstance(hour, int) or not 0 <= hour <= 23:
            errors["digest_hour"] = [
                gettext("%(hour)s is not an hour of the day; send a whole number from 0 to 23.") % {"hour": repr(hour)}
            ]
    if "reminder_hours" in changes:
        problem = _reminder_hours_problem(changes["reminder_hours"])
        if problem:
            errors["reminder_hours"] = [problem]
    if errors:
        raise InvalidInput(errors)


def _reminder_hours_problem(hours: Any) -> str | None:
    if not isinstance(hours, list):
        return gettext("Send a list of whole numbers of hours before the deadline, such as [24, 2].")
    if len(hours) > MAX_REMINDERS:
        return ngettext(
            "At most %(most)s reminders per turn; this list has %(count)s.",
            "At most %(most)s reminders per turn; this list has %(count)s.",
            len(hours),
        ) % {"most": MAX_REMINDERS, "count": len(hours)}
    for value in hours:
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_REMINDER_HOURS:
            return gettext("%(value)s is not a number of hours from 1 to %(most)s.") % {
                "value": repr(value),
                "most": MAX_REMINDER_HOURS,
            }
    duplicates = sorted({value for value in hours if hours.count(value) > 1})
    if duplicates:
        return ngettext(
            "Each number of hours may appear once; %(numbers)s appears more than once.",
            "Each number of hours may appear once; %(numbers)s appear more than once.",
            len(duplicates),
        ) % {"numbers": listed([str(value) for value in duplicates])}
    return None


def _refresh_next_digest(preferences: Preferences, *, now: datetime) -> None:
    if preferences.mode != Preferences.Mode.DIGEST:
        preferences.next_digest_at = None
        return
    zone = player_zone(user_id=preferences.user_id)
    preferences.next_digest_at = digest_next_at(zone=zone, hour=preferences.digest_hour, after=now)


def preferences_update(*, user: User, now: datetime | None = None, **changes: Any) -> Preferences:
    """Change some of the player's preferences (mode, digest_hour, reminder_hours, push_*).
    Everything is checked before anything is saved. Reminders already scheduled
    for the player's waiting turns follow new reminder hours or mode at once."""
    preferences_check(changes)
    now = now or timezone.now()
    with transaction.atomic():
        preferences, _ = Preferences.objects.select_for_update().get_or_create(user=user)
        before = (preferences.mode, list(preferences.reminder_hours))
        for name, value in changes.items():
            setattr(preferences, name, sorted(value, reverse=True) if name == "reminder_hours" else value)
        _refresh_next_digest(preferences, now=now)
        preferences.save()
        if (preferences.mode, list(preferences.reminder_hours)) != before:
            reminders_schedule_for_user(user_id=user.pk, now=now)
    return preferences


def preferences_time_zone_changed(*, user_id: int, now: datetime | None = None) -> None:
    """Move the next digest to the digest hour in the player's new time zone."""
    now = now or timezone.now()
    with transaction.atomic():
        preferences = Preferences.objects.select_for_update().filter(user_id=user_id).first()
        if preferences is None:
            return
        _refresh_next_digest(preferences, now=now)
        preferences.save(update_fields=["next_digest_at", "updated_at"])


def _seated_game(*, user: User, game_id: str) -> Game:
    # The same 404 for an unknown id as every games endpoint.
    game = game_selectors.game_get(game_id=game_id)
    if not Seat.objects.filter(game=game, user=user).exists():
        raise NotAPlayer(
            "You have no seat in this game, so there is nothing to mute; you only get email about your own games."
        )
    return game


def game_mute(*, user: User, game_id: str) -> GameMute:
    """No more email about this game for this player. Muting twice is one mute."""
    game = _seated_game(user=user, game_id=game_id)
    try:
        with transaction.atomic():
            mute, _ = GameMute.objects.get_or_create(user=user, game=game)
    except IntegrityError:  # a concurrent request muted it first
        mute = GameMute.objects.get(user=user, game=game)
    return mute


def game_unmute(*, user: User, game_id: str) -> None:
    """Email about this game again. Unmuting a game that is not muted is fine."""
    game = _seated_game(user=user, game_id=game_id)
    GameMute.objects.filter(user=user, game=game).delete()
