"""The bots' turns, played by the bots worker one move per task, fairly across
accounts.

A change that makes a bot due writes the game's ``BotTurn`` in its own
transaction (``turns.bot_turn_write_if_due``: a practice game's or a sandbox's
bot, or a seat a moderator handed to the bot) and queues the dispatcher,
``bot_turns_dispatch``. Each run of it claims one row, the oldest due turn of the
share served least recently (an account's practice games and sandboxes are one
share; a real game is a share of its own), plays exactly one move through the
services, then writes the row again at the back of its share's line when a bot
is still due, or deletes it, and queues itself again while turns are due. So one
account's backlog never stands in front of another's next bot move, and no task
plays a whole game.

The `bots` queue holds one dispatcher message at a time (``BotDispatchPending``,
``turns.bot_turns_dispatch_queue``): a change queues one only when none is
waiting, and each run clears the mark as it starts and queues the next while
turns are due; more bots worker processes play more moves at once when changes
keep putting turns in line. A claim is a lease (BOT_TURN_LEASE_SECONDS): on
PostgreSQL concurrent bots workers skip each other's rows (``skip_locked``); a
worker that dies leaves its row to the next run after the lease, which the
beat's ``bot_turns_requeue`` queues.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta

import engine
from django.conf import settings
from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from core.db import retry_when_database_locked
from games import errors
from games.practice import selectors as practice_selectors
from games.models import BotTurn, Game, PlayedBy
from games.services.change import PLAY_FIELDS, game_change, game_lock
from games.services.moves import move_submit
from games.services.turns import (
    autoplay,
    bot_choose,
    bot_move,
    bot_seats,
    bot_dispatch_pending_clear,
    bot_turn_due,
    bot_turn_write_if_due,
    bot_turns_dispatch_queue,
    record_move,
    seats_left,
    settle,
    state_of,
)

logger = logging.getLogger(__name__)

# How long a dispatcher holds a claimed turn: far more than a search bot's move.
BOT_TURN_LEASE_SECONDS = 300


@dataclass(frozen=True)
class BotTurnPlayed:
    """What one run of the dispatcher did: the game whose turn it claimed, and
    whether a bot's move was played (False: the turn was no longer due, or
    another change moved first)."""

    game_id: str
    played: bool


def _due_q(now: datetime) -> Q:
    return Q(due_at__lte=now) & (Q(claimed_until__isnull=True) | Q(claimed_until__lt=now))


def bot_turns_due_count(*, now: datetime | None = None) -> int:
    """How many bot turns are due and not being played."""
    return BotTurn.objects.filter(_due_q(now or timezone.now())).count()


@retry_when_database_locked
def _claim(now: datetime) -> BotTurn | None:
    """Claim the oldest due turn of the share served least recently, and mark the
    share served now (every row of it, so that its other turns wait behind the
    other shares)."""
    with transaction.atomic():
        turn = (
            BotTurn.objects.filter(_due_q(now))
            .order_by(F("served_at").asc(nulls_first=True), "due_at", "pk")
            # A no-op on SQLite, whose IMMEDIATE transaction already holds the write lock.
            .select_for_update(skip_locked=True)
            .first()
        )
        if turn is None:
            return None
        turn.claimed_until = now + timedelta(seconds=BOT_TURN_LEASE_SECONDS)
        turn.served_at = now
        turn.save(update_fields=["claimed_until", "served_at"])
        if turn.account_id is not None:
            BotTurn.objects.filter(account_id=turn.account_id).exclude(pk=turn.pk).update(served_at=now)
    return turn


def _practice_move(game_id: str) -> bool:
    """One move of a practice game's or a sandbox's bot, through ``move_submit`` as
    its seat, on the version it was chosen on. The bot thinks outside the game's
    lock (a search bot takes a while); a move someone else made first refuses it."""
    game = Game.objects.filter(pk=game_id).prefetch_related("seats__user").first()
    if game is None or game.state is None:
        return False
    seat = bot_turn_due(game, list(game.seats.all()))
    if seat is None or seat.index is None or not seat.bot_name:
        return False
    # An opponent chosen to play against: the search bot at the budget of its
    # measured strength (PRACTICE_BOT_PLAYOUTS), not the takeover's lighter one.
    text = bot_choose(
        state_of(game), seat.index, name=seat.bot_name, game_id=game.pk, playouts=settings.PRACTICE_BOT_PLAYOUTS
    )
    try:
        move_submit(game_id=game.pk, user=seat.user, text=text, expected_version=game.version)
    except (errors.StaleVersion, errors.NotYourTurn, errors.GameNotActive):
        return False  # the game moved on: the row is looked at again
    return True


@retry_when_database_locked
def _handed_seat_move(game_id: str, now: datetime) -> bool:
    """One move of a seat a moderator handed to the bot, the takeover bot's
    (TAKEOVER_BOT), recorded as the bot's with ``bot_reason`` "moderator", in one
    change under the game's lock; then the server's own moves and the next turn."""
    with game_change(game_id, with_seats=True, save_fields=PLAY_FIELDS) as writes:
        game = writes.game
        seats = list(game.seats.all())
        seat = bot_turn_due(game, seats)
        if seat is None or seat.index is None or not seat.bot:
            return False
        state = state_of(game)
        move = bot_move(state, seat.index, game_id=game.pk)
        after = engine.apply(state, move)
        record_move(writes, before=state, move=move, after=after, played_by=PlayedBy.BOT, bot_reason="moderator")
        resigned, timed_out = seats_left(game)
        after = autoplay(writes, after, resigned, bot_seats(seats))
        settle(writes, after, now, seats=seats, resigned=resigned, timed_out=timed_out)
    return True


@retry_when_database_locked
def _release(turn: BotTurn, now: datetime) -> bool:
    """After the move: under the game's lock, write the turn again at the back of
    its share's line when a bot is still due, else delete it. True when due."""
    with transaction.atomic():
        try:
            game = game_lock(turn.game_id, with_seats=True)
        except errors.GameNotFound:
            return False  # deleted with its game
        due = bot_turn_due(game, list(game.seats.all())) is not None
        if due:
            BotTurn.objects.filter(pk=turn.pk).update(due_at=now, claimed_until=None)
        else:
            BotTurn.objects.filter(pk=turn.pk).delete()
    return due


def bot_turns_dispatch(*, now: datetime | None = None) -> BotTurnPlayed | None:
    """Play one due bot turn: the oldest of the share served least recently
    (``_claim``), exactly one move, through the services (a practice bot's through
    ``move_submit``; a handed seat's as the bot's, reason "moderator"). Then the
    turn goes to the back of its share's line or away, and the dispatcher is
    queued again (once this run's writes are committed) while turns are due.
    Safe to run twice or at once: a run that finds no turn due does nothing.
    Returns what it did, or None when nothing was due.

    A bot that raises leaves its turn claimed: it is tried again after the
    lease, not at once in a loop."""
    # This run's message has left the queue: a change may queue the next one.
    bot_dispatch_pending_clear()
    claimed_at = now or timezone.now()
    turn = _claim(claimed_at)
    if turn is None:
        return None
    if turn.kind == BotTurn.Kind.MODERATOR:
        played = _handed_seat_move(turn.game_id, claimed_at)
    else:
        played = _practice_move(turn.game_id)
    finished_at = timezone.now() if now is None else now
    _release(turn, finished_at)
    if bot_turns_due_count(now=finished_at):
        transaction.on_commit(bot_turns_dispatch_queue, robust=True)
    return BotTurnPlayed(game_id=turn.game_id, played=played)


def bot_turn_wake(*, game_id: str) -> bool:
    """Make sure a game whose bot is to move is in line, and queue the dispatcher:
    what a ``play_bots`` message still in a queue from before bot turns had rows
    asks for. True when its bot is due."""
    with transaction.atomic():
        try:
            game = game_lock(game_id, with_seats=True)
        except errors.GameNotFound:
            return False
        seats = list(game.seats.all())
        due = bot_turn_due(game, seats) is not None
        if due and not bot_turn_write_if_due(game, seats):
            transaction.on_commit(bot_turns_dispatch_queue, robust=True)
    return due


def bot_turns_requeue(*, now: datetime | None = None) -> int:
    """The beat's safety net: put in line every practice game or sandbox whose bot
    has waited practice_selectors.BOT_TURN_STALE_SECONDS with no row (a game from before rows), and
    queue the dispatcher when a turn has been due that long (its task was lost).
    Returns how many turns were waiting that long."""
    now = now or timezone.now()
    for game_id in practice_selectors.practice_game_ids_waiting_on_bots(now=now):
        if not BotTurn.objects.filter(game_id=game_id).exists():
            bot_turn_wake(game_id=game_id)
    stale_since = now - timedelta(seconds=practice_selectors.BOT_TURN_STALE_SECONDS)
    stale = BotTurn.objects.filter(_due_q(now), due_at__lte=stale_since).count()
    if stale:
        # Whatever message the queue was thought to hold never came.
        bot_turns_dispatch_queue(force=True)
    return stale
