"""Clocks: missed deadlines (a vacation day, the bot's move, or a forfeit),
pauses and their reasons, and vacation.

Deadlines live in an indexed column (``Game.deadline_at``) and are swept in
batches (``game_time_outs_queue``, run by beat, queues each overdue game for
the bots worker; ``game_time_out_overdue`` acts in-process), never scheduled as
long-ETA tasks: a deadline that moves (a pause, an extension) then needs no task
revoked.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

import engine
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext, ngettext

from core.db import retry_when_database_locked
from core.errors import InvalidInput
from core.queue import task_send
from core.text import listed
from games import errors, selectors
from games.models import Game, GameEvent, GamePause, PlayedBy, Seat, Vacation, is_public_id
from games.results import ResultReason
from games.services.change import GameBusy, GameWrites, game_change
from games.services.periodic import periodic_run_mark
from games.services.turns import (
    allowed_time,
    autoplay,
    bot_move,
    bot_seats,
    is_paused,
    record_move,
    seat_at,
    seat_leave,
    seats_left,
    settle,
    state_of,
)

if TYPE_CHECKING:
    from django.contrib.auth.models import User


logger = logging.getLogger(__name__)

SWEEP_BATCH = 100

# The task that acts on one game's missed deadline (games.tasks), on the bots worker.
TIME_OUT_GAME_TASK = "games.tasks.time_out_game"


def game_time_outs_queue(*, now: datetime | None = None) -> int:
    """The beat's deadline sweep: find every active game whose deadline has passed
    and queue TIME_OUT_GAME_TASK for each, by id; the bots worker then acts on it
    (``game_time_out``: a vacation day, the takeover bot's move with its
    ``turn_timed_out`` event in one change, or a forfeit), so the sweep itself
    plays no bot and stays short. Safe to queue a game twice: its deadline is
    re-checked under its lock. A broker that refuses a message is logged and the
    next sweep finds the game again. Returns how many were queued."""
    now = now or timezone.now()
    queued = 0
    seen: set[str] = set()
    while True:
        batch = selectors.game_overdue_ids(now=now, limit=SWEEP_BATCH, exclude=seen)
        if not batch:
            periodic_run_mark("deadline_sweep")
            return queued
        seen.update(batch)
        for game_id in batch:
            try:
                task_send(TIME_OUT_GAME_TASK, game_id)
            except Exception:
                logger.warning("could not queue the missed deadline of game %s", game_id, exc_info=True)
                continue
            queued += 1


def game_time_out_overdue(*, now: datetime | None = None) -> int:
    """Act on every active game whose deadline has passed (``game_time_out``), in
    this process: ``manage.py games_sweep_deadlines``, the cron alternative to the
    beat's ``game_time_outs_queue``. In batches of SWEEP_BATCH, each game in its
    own transaction under its row lock.
    Sweeps running at once share the work: a game another sweep holds is skipped
    (``skip_locked`` on PostgreSQL) and each deadline is re-checked under the
    lock, so each game is acted on once. Returns how many games were acted on."""
    now = now or timezone.now()
    acted = 0
    seen: set[str] = set()
    while True:
        batch = selectors.game_overdue_ids(now=now, limit=SWEEP_BATCH, exclude=seen)
        if not batch:
            periodic_run_mark("deadline_sweep")
            return acted
        seen.update(batch)
        for game_id in batch:
            acted += _time_out(game_id=game_id, now=now, skip_locked=True)


def game_time_out(*, game_id: str, now: datetime | None = None) -> bool:
    """The deadline of the seat to move has passed: a vacation day if the player
    has one left, else a timeout (the bot plays the turn, or the seat is forfeited
    on its ``forfeit_after``-th timeout in a row). Safe to run twice: returns
    False and changes nothing when the deadline has not passed."""
    return _time_out(game_id=game_id, now=now or timezone.now(), skip_locked=False)


@retry_when_database_locked
def _time_out(*, game_id: str, now: datetime, skip_locked: bool) -> bool:
    if not is_public_id(game_id):
        raise errors.GameNotFound.for_id(game_id)
    try:
        with game_change(game_id, with_seats=True, skip_locked=skip_locked) as writes:
            game = writes.game
            # No longer due: the deadline is re-checked under the lock.
            if game.status != Game.Status.ACTIVE or game.deadline_at is None or game.deadline_at > now:
                return False
            seat = seat_at(game.seats.all(), game.to_move)
            assert seat is not None  # an active game's seat to move is seated
            if seat.bot:
                # A seat handed to the bot: the bots worker plays it (its BotTurn), on no clock of its own.
                return False
            vacation_until = _vacation_day_locked(writes, seat, now)
            if vacation_until is None:
                _time_out_locked(writes, seat, now)
    except (GameBusy, errors.GameNotFound):
        return False  # another sweep holds it (and acts on it), or it is gone
    if vacation_until is not None:
        # The player's other games, each under its own lock after this one's is
        # released (locking them here could deadlock with another sweep).
        _vacation_pause_games(
            user_id=seat.user_id, until=vacation_until, notice_game_id=None, skip=game.pk, now=now
        )
    return True


def _time_out_locked(writes: GameWrites, seat: Seat, now: datetime) -> None:
    """One more timeout in a row for ``seat``: the ``forfeit_after``-th forfeits it
    (as a resignation, reason timeout); before that the bot plays the turn and the
    player stays in the game. The seat used all its time, so its bank is empty."""
    game = writes.game
    seat.consecutive_timeouts += 1
    seat.bank_seconds = 0
    seat.save(update_fields=["consecutive_timeouts", "bank_seconds"])
    writes.change(
        GameEvent.Kind.TURN_TIMED_OUT,
        {
            "seat": seat.index,
            "user_id": seat.user_id,
            "consecutive": seat.consecutive_timeouts,
            "forfeit_after": game.forfeit_after,
        },
    )
    if seat.consecutive_timeouts >= game.forfeit_after:
        seat_leave(writes, seat, reason=ResultReason.TIMEOUT, now=now)
        return
    state = state_of(game)
    assert seat.index is not None  # a seat that can time out has a place in the game
    move = bot_move(state, seat.index, game_id=game.pk)
    after = engine.apply(state, move)
    record_move(writes, before=state, move=move, after=after, played_by=PlayedBy.BOT, bot_reason="timeout")
    resigned, timed_out = seats_left(game)
    after = autoplay(writes, after, resigned, bot_seats(game.seats.all()))
    settle(writes, after, now, seats=game.seats.all(), resigned=resigned, timed_out=timed_out)


def _pause_locked(
    writes: GameWrites,
    *,
    reason: str,
    user_id: int | None,
    until: datetime | None,
    now: datetime,
    note: str = "",
    automatic: bool = False,
    notice: bool = True,
) -> GamePause:
    """Add a reason for the locked game's clock to stop (or extend the same
    reason's pause for the same person). The first pause keeps the time left on
    the clock and clears the deadline."""
    game = writes.game
    same = Q(user_id=user_id) if user_id is not None else Q(user__isnull=True)
    pause = GamePause.objects.filter(same, game=game, reason=reason, ended_at__isnull=True).first()
    if pause is None:
        pause = GamePause.objects.create(
            game=game, reason=reason, user_id=user_id, started_at=now, ends_at=until, note=note
        )
    else:
        pause.ends_at = None if until is None or pause.ends_at is None else max(pause.ends_at, until)
        if note:
            pause.note = note
        pause.save(update_fields=["ends_at", "note"])
    if not is_paused(game):
        left = game.deadline_at - now if game.deadline_at is not None else timedelta(0)
        game.clock_remaining = max(left, timedelta(0))
        game.deadline_at = game.turn_started_at = None
    writes.change(
        GameEvent.Kind.CLOCK_PAUSED,
        {
            "reason": reason,
            "user_id": user_id,
            "until": pause.ends_at.isoformat() if pause.ends_at is not None else None,
            "automatic": automatic,
            "notice": notice,
        },
    )
    return pause


def _resume_locked(writes: GameWrites, pauses: Sequence[GamePause], now: datetime) -> None:
    """End these pauses of the locked game; when none is left the clock runs
    again with the time it had left."""
    game = writes.game
    if not pauses:
        return
    GamePause.objects.filter(pk__in=[pause.pk for pause in pauses]).update(ended_at=now)
    still_paused = GamePause.objects.filter(game=game, ended_at__isnull=True).exists()
    if not still_paused and game.clock_remaining is not None:
        game.deadline_at = now + game.clock_remaining
        seat = seat_at(game.seats.all(), game.to_move)
        game.turn_started_at = game.deadline_at - allowed_time(game, seat)
        game.clock_remaining = None
    for reason in sorted({pause.reason for pause in pauses}):
        writes.change(GameEvent.Kind.CLOCK_RESUMED, {"reason": reason, "clock_running": not still_paused})


PAUSE_REASONS: list[str] = list(GamePause.Reason.values)


def _check_pause_reason(reason: str) -> None:
    if reason not in GamePause.Reason.values:
        raise InvalidInput(
            {
                "reason": [
                    gettext("%(reason)s is not a reason to pause a game; the reasons are %(reasons)s.")
                    % {"reason": repr(reason), "reasons": listed(PAUSE_REASONS)}
                ]
            }
        )


def _check_pause_allowed(game: Game, reason: str) -> None:
    if reason == GamePause.Reason.MODERATOR and not game.pauses_allowed:
        raise errors.PauseNotAllowed(
            gettext("This game's rules allow no pauses, so a moderator cannot pause its clock.")
        )
    if reason == GamePause.Reason.VACATION and not game.vacation_allowed:
        raise errors.PauseNotAllowed(
            gettext("This game's rules allow no vacation, so its clock runs during a vacation.")
        )


@retry_when_database_locked
def game_pause(
    *,
    game_id: str,
    reason: str,
    by_user_id: int | None = None,
    until: datetime | None = None,
    note: str = "",
    automatic: bool = False,
    notice: bool = True,
    now: datetime | None = None,
) -> GamePause:
    """Stop the game's clock for ``reason`` (vacation, moderator, server) until
    ``until`` (None: until ``game_resume``). Pauses for different reasons combine:
    the clock runs again only when the last one ends. Refusals: GameNotFound,
    GameNotActive, InvalidInput (a reason or an end that makes no sense),
    PauseNotAllowed (a moderator's pause in a game whose ``pauses_allowed`` is
    False, a vacation in one whose ``vacation_allowed`` is False; a pause for the
    server is always allowed)."""
    now = now or timezone.now()
    _check_pause_reason(reason)
    if until is not None and until <= now:
        raise InvalidInput(
            {"until": [gettext("A pause must end in the future; %(until)s has passed.") % {"until": until.isoformat()}]}
        )
    with game_change(game_id, with_seats=True) as writes:
        game = writes.game
        if game.status != Game.Status.ACTIVE:
            raise errors.GameNotActive(
                gettext("This game is %(status)s; only an active game's clock can be paused.")
                % {"status": errors.status_words(game.status)},
                game_status=game.status,
            )
        _check_pause_allowed(game, reason)
        pause = _pause_locked(
            writes,
            reason=reason,
            user_id=by_user_id,
            until=until,
            now=now,
            note=note,
            automatic=automatic,
            notice=notice,
        )
    return pause


@retry_when_database_locked
def game_resume(*, game_id: str, reason: str, user_id: int | None = None, now: datetime | None = None) -> bool:
    """End the game's pauses for ``reason`` (for vacation, only ``user_id``'s when
    given). False when there was none. The clock runs again, with the time it
    had left, once no other reason holds it."""
    now = now or timezone.now()
    _check_pause_reason(reason)
    with game_change(game_id, with_seats=True) as writes:
        game = writes.game
        pauses = GamePause.objects.filter(game=game, reason=reason, ended_at__isnull=True)
        if user_id is not None:
            pauses = pauses.filter(user_id=user_id)
        found = list(pauses)
        if not found:
            return False
        _resume_locked(writes, found, now)
    return True


def game_pauses_end_due(*, now: datetime | None = None) -> int:
    """End every pause whose ``ends_at`` has passed (the beat task
    ``games.tasks.end_pauses``). Returns how many games had pauses ended."""
    now = now or timezone.now()
    return sum(_end_due_pauses(game_id=game_id, now=now) for game_id in selectors.game_ids_with_due_pauses(now=now))


@retry_when_database_locked
def _end_due_pauses(*, game_id: str, now: datetime) -> bool:
    with game_change(game_id, with_seats=True) as writes:
        game = writes.game
        due = list(GamePause.objects.filter(game=game, ended_at__isnull=True, ends_at__lte=now))
        if not due:
            return False
        _resume_locked(writes, due, now)
    return True


def games_pause_all(
    *, reason: str, by_user_id: int | None = None, note: str = "", until: datetime | None = None
) -> int:
    """Pause every active game for ``reason`` (operators, after an outage). Each
    game in its own transaction; returns how many."""
    _check_pause_reason(reason)
    paused = 0
    for game_id in selectors.game_active_ids():
        try:
            game_pause(game_id=game_id, reason=reason, by_user_id=by_user_id, until=until, note=note)
        except errors.GameNotActive:
            continue  # it ended since the list was read
        except errors.PauseNotAllowed:
            continue  # its rules allow no such pause
        paused += 1
    return paused


def games_resume_all(*, reason: str) -> int:
    """End every game's pauses for ``reason``; returns how many games."""
    _check_pause_reason(reason)
    return sum(game_resume(game_id=game_id, reason=reason) for game_id in selectors.game_ids_paused_for(reason=reason))


def _vacation_days_left(user_id: int, year: int) -> int:
    return max(0, settings.VACATION_DAYS_PER_YEAR - selectors.vacation_days_used(user_id=user_id, year=year))


def _lock_user(user_id: int) -> None:
    # One player's vacation days are counted and taken one call at a time.
    get_user_model().objects.select_for_update().filter(pk=user_id).first()


def _vacation_day_locked(writes: GameWrites, seat: Seat, now: datetime) -> datetime | None:
    """A deadline of ``seat`` passed: if its player is on vacation, or has a day
    left this year (one is taken now), the game pauses for them instead of a
    timeout. A game that allows no vacation (``vacation_allowed`` False) never
    pauses and takes no day: the timeout happens. Returns when the vacation
    ends, or None when there is none (or the game allows none)."""
    if not writes.game.vacation_allowed:
        return None
    _lock_user(seat.user_id)
    current = selectors.vacation_current(user_id=seat.user_id, now=now)
    if current is not None:
        until = current.ends_at
    elif _vacation_days_left(seat.user_id, now.year) >= 1:
        until = now + timedelta(days=1)
        Vacation.objects.create(user_id=seat.user_id, starts_at=now, ends_at=until, days=1, automatic=True)
    else:
        return None
    _pause_locked(
        writes, reason=GamePause.Reason.VACATION, user_id=seat.user_id, until=until, now=now, automatic=True
    )
    return until


def _vacation_pause_games(
    *, user_id: int, until: datetime, notice_game_id: str | None, skip: str | None, now: datetime
) -> int:
    """Pause the player's active games (where they still play) for their vacation
    until ``until``; each game in its own transaction. Games that allow no
    vacation are left running."""
    paused = 0
    for game_id in selectors.game_ids_playing(user_id=user_id):
        if game_id == skip:
            continue
        try:
            game_pause(
                game_id=game_id,
                reason=GamePause.Reason.VACATION,
                by_user_id=user_id,
                until=until,
                automatic=skip is not None,
                notice=game_id == notice_game_id,
                now=now,
            )
        except errors.GameNotActive:
            continue  # it ended since the list was read
        except errors.PauseNotAllowed:
            continue  # its rules allow no vacation: its clock runs
        paused += 1
    return paused


@retry_when_database_locked
def _vacation_record(*, user_id: int, days: int, now: datetime) -> Vacation:
    with transaction.atomic():
        _lock_user(user_id)
        left = _vacation_days_left(user_id, now.year)
        if days > left:
            raise errors.NotEnoughVacation(
                ngettext(
                    "You asked for %(n)s day of vacation but have %(left)s left this year (of %(year)s).",
                    "You asked for %(n)s days of vacation but have %(left)s left this year (of %(year)s).",
                    days,
                )
                % {
                    "n": days,
                    "left": ngettext("%(n)s day", "%(n)s days", left) % {"n": left},
                    "year": settings.VACATION_DAYS_PER_YEAR,
                },
                days_left=left,
            )
        current = selectors.vacation_current(user_id=user_id, now=now)
        # Days taken during a vacation follow on from it.
        starts_at = current.ends_at if current is not None else now
        return Vacation.objects.create(
            user_id=user_id, starts_at=starts_at, ends_at=starts_at + timedelta(days=days), days=days
        )


def vacation_take(*, user: User, days: int, now: datetime | None = None) -> Vacation:
    """Take ``days`` of vacation from now (after the current vacation, if on one):
    the player's clocks stop in all their active games until it ends. Refusals:
    InvalidVacation (fewer than one day), NotEnoughVacation (with ``days_left``)."""
    now = now or timezone.now()
    if days < 1:
        raise errors.InvalidVacation(
            gettext("Take at least one day of vacation; you asked for %(asked)s.") % {"asked": days}
        )
    vacation = _vacation_record(user_id=user.pk, days=days, now=now)
    games = selectors.game_ids_playing(user_id=user.pk)
    _vacation_pause_games(
        user_id=user.pk, until=vacation.ends_at, notice_game_id=games[0] if games else None, skip=None, now=now
    )
    return vacation
