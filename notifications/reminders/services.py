"""Reminders before a deadline and the daily digest: scheduling and sweeping.

Reminders. When a turn starts (any outbox event after which the game is active
with a deadline), ``reminders_schedule_for_game`` writes one ``Reminder`` row
per reminder hour of the player to move, due that many hours before the
deadline, and drops the game's unsent rows for any other deadline or player.
``reminders_send_due`` sweeps the due rows: each is claimed with a conditional
UPDATE of ``sent_at`` (and locked with SKIP LOCKED where the database has it),
so two sweeps never send one reminder twice. A row whose turn is over (the
player moved, the game was paused, ended or its deadline moved) is dropped.

Digest. ``Preferences.next_digest_at`` holds the UTC moment of each digest
player's next digest (notifications.preferences.services keeps it true);
``digests_send_due`` claims due rows by moving that moment on to the next day's
digest hour with a conditional UPDATE, and records one notification per player
and local date, none when no game waits on them.

What the two emails show is in notifications.reminders.emails.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime, timedelta
from django.db import connection, transaction
from django.db.models import Exists, F, OuterRef
from django.utils import timezone

from games.audience import real_games_q
from games.models import Game, Seat
from games.services import periodic_run_mark
from notifications.email.services import notify
from notifications.models import GameMute, Preferences, Reminder
from notifications.preferences.selectors import (
    digest_local_date,
    digest_next_at,
    player_zone,
    preferences_for,
)

logger = logging.getLogger(__name__)

BATCH_SIZE = 200
MAX_BATCHES = 10


# --- who is to move ----------------------------------------------------------------


def _seat_to_move(game: Game) -> Seat | None:
    """The seat whose turn it is while the game's clock runs, else None."""
    if game.status != Game.Status.ACTIVE or game.deadline_at is None or game.to_move is None:
        return None
    return Seat.objects.filter(game=game, index=game.to_move, resigned=False).select_related("user").first()


# --- scheduling ----------------------------------------------------------------------


def reminders_schedule_for_game(*, game_id: str, now: datetime | None = None, game: Game | None = None) -> int:
    """Make the game's unsent reminders match its current turn: rows for the
    player to move at each of their reminder hours still ahead, none for any
    other deadline or player. Safe to run any number of times. Returns how many
    rows were written. ``game``: the row, when the caller has just read it.

    One delete of whatever no longer matches and one insert of what is missing
    (the rows are unique per game, player, deadline and hour), so that a turn
    costs the same few queries whatever the player's reminder hours."""
    now = now or timezone.now()
    game = game if game is not None else Game.objects.filter(pk=game_id).first()
    if game is None:
        return 0
    seat = _seat_to_move(game)
    unsent = Reminder.objects.filter(game_id=game_id, sent_at__isnull=True)
    if seat is None:
        unsent.delete()
        return 0
    assert game.deadline_at is not None  # _seat_to_move checked it
    preferences = preferences_for(user=seat.user)
    wanted = [] if preferences.mode == Preferences.Mode.OFF else list(preferences.reminder_hours)
    unsent.exclude(user_id=seat.user_id, deadline_at=game.deadline_at, hours_before__in=wanted).delete()
    rows = [
        Reminder(
            game_id=game_id,
            user_id=seat.user_id,
            deadline_at=game.deadline_at,
            hours_before=hours,
            due_at=game.deadline_at - timedelta(hours=hours),
        )
        for hours in wanted
        if game.deadline_at - timedelta(hours=hours) > now
    ]
    if not rows:
        return 0
    have = set(
        Reminder.objects.filter(game_id=game_id, user_id=seat.user_id, deadline_at=game.deadline_at).values_list(
            "hours_before", flat=True
        )
    )
    missing = [row for row in rows if row.hours_before not in have]
    # ignore_conflicts: a second worker scheduling the same turn at once writes nothing twice.
    Reminder.objects.bulk_create(missing, ignore_conflicts=True)
    return len(missing)


def _waiting_on(user_id: int) -> Exists:
    return Exists(Seat.objects.filter(game=OuterRef("pk"), user_id=user_id, index=OuterRef("to_move"), resigned=False))


def reminders_schedule_for_user(*, user_id: int, now: datetime | None = None) -> None:
    """Reschedule the games waiting on this player (their preferences changed)."""
    game_ids = Game.objects.filter(_waiting_on(user_id), status=Game.Status.ACTIVE, deadline_at__isnull=False)
    for game_id in list(game_ids.values_list("pk", flat=True)):
        reminders_schedule_for_game(game_id=game_id, now=now)


# --- sending reminders ------------------------------------------------------------------


def _reminder_still_wanted(reminder: Reminder, now: datetime) -> bool:
    game = reminder.game
    if game.deadline_at != reminder.deadline_at or reminder.deadline_at <= now:
        return False
    # A sweep that comes late (the beat was down) sends only the nearest of the turn's due reminders.
    superseded = Reminder.objects.filter(
        game_id=reminder.game_id,
        user_id=reminder.user_id,
        deadline_at=reminder.deadline_at,
        hours_before__lt=reminder.hours_before,
        due_at__lte=now,
    ).exists()
    if superseded:
        return False
    seat = _seat_to_move(game)
    return seat is not None and seat.user_id == reminder.user_id


def _due_reminder_ids(now: datetime) -> list[int]:
    due = Reminder.objects.filter(sent_at__isnull=True, due_at__lte=now).order_by("due_at", "pk")
    if connection.features.has_select_for_update_skip_locked:
        due = due.select_for_update(skip_locked=True)
    return list(due.values_list("pk", flat=True)[:BATCH_SIZE])


def _send_reminder_batch(now: datetime) -> tuple[int, int]:
    """One batch in one transaction: (rows looked at, reminders sent)."""
    sent = 0
    with transaction.atomic():
        ids = _due_reminder_ids(now)
        for reminder in Reminder.objects.filter(pk__in=ids).select_related("game").order_by("due_at", "pk"):
            # The claim: only one sweep's UPDATE finds sent_at still empty.
            if not Reminder.objects.filter(pk=reminder.pk, sent_at__isnull=True).update(sent_at=now):
                continue
            if not _reminder_still_wanted(reminder, now):
                Reminder.objects.filter(pk=reminder.pk).delete()
                continue
            notify(key=f"reminder:{reminder.pk}", kind="reminder", user_id=reminder.user_id, game_id=reminder.game_id)
            sent += 1
    return len(ids), sent


def _in_batches(send_batch: Callable[[datetime], tuple[int, int]], now: datetime) -> int:
    """Run ``send_batch`` (rows looked at, rows sent) until a batch comes back short,
    at most MAX_BATCHES times; returns how many were sent."""
    sent = 0
    for _ in range(MAX_BATCHES):
        looked_at, batch_sent = send_batch(now)
        sent += batch_sent
        if looked_at < BATCH_SIZE:
            break
    return sent


def reminders_send_due(*, now: datetime | None = None) -> int:
    """Send every due reminder whose turn is still waiting; returns how many."""
    sent = _in_batches(_send_reminder_batch, now or timezone.now())
    periodic_run_mark("reminders")
    return sent


# --- digests -----------------------------------------------------------------------------


def games_waiting_on(*, user_id: int) -> list[Game]:
    """Active games in which it is this player's turn, leaving out muted ones,
    soonest deadline first (paused games, with no deadline, last)."""
    muted = GameMute.objects.filter(user_id=user_id).values("game_id")
    # Practice games and sandboxes wait on nobody's digest.
    games = Game.objects.filter(_waiting_on(user_id), real_games_q(), status=Game.Status.ACTIVE).exclude(
        pk__in=muted
    )
    return list(games.order_by(F("deadline_at").asc(nulls_last=True), "pk"))


def _due_digest_rows(now: datetime) -> list[tuple[int, int, datetime]]:
    due = Preferences.objects.filter(mode=Preferences.Mode.DIGEST, next_digest_at__lte=now).order_by(
        "next_digest_at", "pk"
    )
    if connection.features.has_select_for_update_skip_locked:
        due = due.select_for_update(skip_locked=True)
    return [
        (pk, user_id, due_at)
        for pk, user_id, due_at in due.values_list("pk", "user_id", "next_digest_at")[:BATCH_SIZE]
        if due_at is not None
    ]


def _send_digest_batch(now: datetime) -> tuple[int, int]:
    sent = 0
    with transaction.atomic():
        rows = _due_digest_rows(now)
        for pk, user_id, due_at in rows:
            preferences = Preferences.objects.get(pk=pk)
            zone = player_zone(user_id=user_id)
            following = digest_next_at(zone=zone, hour=preferences.digest_hour, after=max(now, due_at))
            # The claim: only one sweep moves this row's next_digest_at on.
            claimed = Preferences.objects.filter(pk=pk, next_digest_at=due_at).update(
                next_digest_at=following, updated_at=now
            )
            if not claimed or not games_waiting_on(user_id=user_id):
                continue
            local_date = digest_local_date(zone=zone, due_at=due_at)
            if notify(key=f"digest:{user_id}:{local_date}", kind="digest", user_id=user_id) is not None:
                sent += 1
    return len(rows), sent


def digests_send_due(*, now: datetime | None = None) -> int:
    """Send every due digest that lists at least one game; returns how many."""
    return _in_batches(_send_digest_batch, now or timezone.now())
