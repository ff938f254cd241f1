"""What a reminder and the daily digest show: built from the database when the
email is rendered, plain data only. The board comes from games.presentation
(engine.observe for the reader's own seat), so no other seat's hidden cards can
reach it. Both renderers are registered with the email renderers
(notifications.email.render) from here; their templates are
``notifications/email/reminder*`` and ``digest*``.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.utils import timezone
from django.utils.translation import gettext, ngettext, pgettext

from games.models import Game, Seat
from notifications.email.render import KindContext, board_for, local_time, renderer, seat_of, seat_url, site_url
from notifications.models import Notification, Reminder
from notifications.reminders.services import games_waiting_on


def _days(n: int) -> str:
    return ngettext("%(count)d day", "%(count)d days", n) % {"count": n}


def _hours(n: int) -> str:
    return ngettext("%(count)d hour", "%(count)d hours", n) % {"count": n}


def _minutes(n: int) -> str:
    return ngettext("%(count)d minute", "%(count)d minutes", n) % {"count": n}


def time_left_text(delta: timedelta) -> str:
    """'3 days 5 hours', '24 hours', '5 hours 10 minutes', '12 minutes': how
    long is left (in hours up to two days, which reads closer than '1 day'), in
    the active language, each count in the plural form it needs."""
    minutes = max(0, int(delta.total_seconds()) // 60)
    days, rest = divmod(minutes, 24 * 60) if minutes >= 48 * 60 else (0, minutes)
    hours, minutes = divmod(rest, 60)

    def both(larger: str, smaller: str) -> str:
        return pgettext("a duration", "%(larger)s %(smaller)s") % {"larger": larger, "smaller": smaller}

    if days:
        return both(_days(days), _hours(hours)) if hours else _days(days)
    if hours:
        return both(_hours(hours), _minutes(minutes)) if minutes else _hours(hours)
    return _minutes(minutes)


def timeout_policy_text(game: Game, seat: Seat | None = None) -> str:
    """What happens when the deadline passes, as the game's timeout policy
    (Game.forfeit_after) and the seat's timeouts in a row say."""
    forfeit_after = getattr(game, "forfeit_after", None)
    in_a_row = getattr(seat, "consecutive_timeouts", 0) if seat is not None else 0
    if not isinstance(forfeit_after, int) or forfeit_after <= 0:
        return gettext("If you have not moved by then, the bot plays a move for you.")
    if not isinstance(in_a_row, int):
        in_a_row = 0
    if in_a_row + 1 >= forfeit_after:
        text = gettext("If you have not moved by then, your seat is forfeited and you leave the game.")
        if in_a_row:
            already = ngettext(
                "You have let %(count)d deadline pass in a row.",
                "You have let %(count)d deadlines pass in a row.",
                in_a_row,
            ) % {"count": in_a_row}
            text = f"{text} {already}"
        return text
    text = " ".join(
        [
            gettext("If you have not moved by then, the bot plays a move for you."),
            ngettext(
                "After %(count)d timeout in a row your seat is forfeited.",
                "After %(count)d timeouts in a row your seat is forfeited.",
                forfeit_after,
            )
            % {"count": forfeit_after},
        ]
    )
    if in_a_row:
        so_far = ngettext("You have %(count)d so far.", "You have %(count)d so far.", in_a_row) % {"count": in_a_row}
        text = f"{text} {so_far}"
    return text


def _reminder_of(notification: Notification) -> Reminder | None:
    kind, _, reminder_id = notification.key.partition(":")
    if kind != "reminder" or not reminder_id.isdigit():
        return None
    return Reminder.objects.filter(pk=int(reminder_id)).first()


@renderer("reminder")
def reminder_email_context(notification: Notification, *, now: datetime | None = None) -> KindContext:
    """What a reminder email shows: how long is left, the deadline in the
    player's time zone, what happens at the deadline, the board as the player's
    own seat sees it and the player's link."""
    now = now or timezone.now()
    game = notification.game
    if game is None:
        raise ValueError("a reminder notification needs a game")
    reminder = _reminder_of(notification)
    deadline = reminder.deadline_at if reminder is not None else game.deadline_at
    seat = seat_of(game, notification.user_id)
    return KindContext(
        {
            "time_left": time_left_text(deadline - now) if deadline is not None else "",
            "deadline": local_time(deadline, notification.user),
            "policy": timeout_policy_text(game, seat),
            "board": board_for(game, seat.index if seat is not None else None),
            "game_url": seat_url(seat) if seat is not None else f"{site_url()}/games/{game.pk}/",
        },
        seat=seat,
    )


@renderer("digest")
def digest_email_context(notification: Notification, *, now: datetime | None = None) -> KindContext:
    """What the digest lists: each game waiting on the player, with how long is
    left, its deadline in the player's time zone and the player's link. No
    boards: the link shows each one."""
    now = now or timezone.now()
    user = notification.user
    entries = []
    for game in games_waiting_on(user_id=user.pk):
        seat = seat_of(game, user.pk)
        entries.append(
            {
                "id": game.pk,
                "variant": game.get_variant_display(),
                "deadline": local_time(game.deadline_at, user),
                "time_left": time_left_text(game.deadline_at - now) if game.deadline_at else "",
                "paused": game.deadline_at is None,
                "game_url": seat_url(seat) if seat is not None else f"{site_url()}/games/{game.pk}/",
            }
        )
    return KindContext({"games": entries, "count": len(entries)})
