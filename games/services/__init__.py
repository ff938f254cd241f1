"""Every change to a game goes through one of these functions.

Each one runs in a single transaction that locks the game row, changes it,
bumps ``Game.version`` and writes one ``GameEvent`` per change: the outbox, the
one way news leaves this app. After commit the outbox's consumers (the
registered extensions, games.extensions) are run on its events, so this app
imports none of them. Reads live in ``games.selectors``.

The services speak the game, not HTTP: they take ids, users, move texts and
versions, return what happened, and raise ``games.errors`` (domain errors). A
REST view, an email reply, an admin action or a Celery task calls them alike.

The package is split along its seams; the names below are what its callers use:

- ``change``: ``game_change``, the one way to change a game (the row lock, the
  writes, the save), and its locking contract; ``change_sql``: a change's rows
  written in one statement on PostgreSQL (the row lock's reads are
  ``games.game_rows``);
- ``turns``: the turn machinery the others share (state, a turn's clock, the
  server's moves, settling and finishing);
- ``lifecycle``: create, join, start, resign, cancel, decline, expire;
- ``moves``: ``move_submit`` (and ``move_check``, which plays nothing);
- ``clocks``: missed deadlines, pauses, vacation;
- ``outbox``: dispatch, claims, redelivery;
- ``account_cleanup``: what a disabled or erased account leaves behind;
- ``periodic``: the beat's jobs recording when they ran;
- ``games.notes`` (its services, re-exported here): a seat holder's private
  notes on a game and its moves;
- ``games.practice`` (its services and sandbox, re-exported here): practice
  games against bots, sandboxes;
- ``bot_turns``: the bots' turns, one move per task, fairly across accounts;
- ``redaction``: a hidden or erased line of table talk blanked in its events.
"""

from games.services.account_cleanup import (
    idempotency_records_delete_expired,
    idempotency_records_forget_account,
    seats_leave_for_disabled_account,
)
from games.services.change import PLAY_FIELDS, GameWrites, game_change
from games.services.bot_turns import (
    BotTurnPlayed,
    bot_turn_wake,
    bot_turns_dispatch,
    bot_turns_due_count,
    bot_turns_requeue,
)
from games.services.clocks import (
    PAUSE_REASONS,
    SWEEP_BATCH,
    game_pause,
    game_pauses_end_due,
    game_resume,
    game_time_out,
    game_time_out_overdue,
    game_time_outs_queue,
    games_pause_all,
    games_resume_all,
    vacation_take,
)
from games.services.lifecycle import (
    DEFAULT_FORFEIT_AFTER,
    DEFAULT_MOVE_TIMEOUT_HOURS,
    MAX_BANK_HOURS,
    MAX_FORFEIT_AFTER,
    MAX_MOVE_TIMEOUT_HOURS,
    MAX_SEATS,
    MIN_SEATS,
    game_cancel,
    game_create,
    game_expire_open,
    game_resign,
    game_start,
    seat_decline,
    seat_join,
    seed_commitment_for,
)
from games.services.moves import MovePlayed, move_check, move_submit
from games.services.outbox import (
    PUBLISH_PAUSE_SECONDS,
    game_event_claim,
    game_event_consume,
    game_event_done,
    game_event_consume_by,
    game_events_consume_all,
    game_events_dispatch,
    game_events_redeliver,
)
from games.services.periodic import periodic_run_mark
from games.services.redaction import Redaction, game_events_redact
from games.notes.services import notes_forget_account, notes_store
from games.plans.services import plan_clear, plan_store
from games.practice.sandbox import sandbox_bots_allowed, sandbox_create
from games.practice.services import bot_names, practice_game_create
from games.services.turns import BotReason, bank_after_turn

__all__ = [
    "notes_forget_account",
    "notes_store",
    "plan_clear",
    "plan_store",
    "bot_names",
    "BotTurnPlayed",
    "bot_turn_wake",
    "bot_turns_dispatch",
    "bot_turns_due_count",
    "bot_turns_requeue",
    "practice_game_create",
    "sandbox_bots_allowed",
    "sandbox_create",
    "periodic_run_mark",
    "BotReason",
    "DEFAULT_FORFEIT_AFTER",
    "DEFAULT_MOVE_TIMEOUT_HOURS",
    "GameWrites",
    "MAX_BANK_HOURS",
    "MAX_FORFEIT_AFTER",
    "MAX_MOVE_TIMEOUT_HOURS",
    "MAX_SEATS",
    "MIN_SEATS",
    "MovePlayed",
    "PAUSE_REASONS",
    "PLAY_FIELDS",
    "PUBLISH_PAUSE_SECONDS",
    "Redaction",
    "SWEEP_BATCH",
    "bank_after_turn",
    "game_cancel",
    "game_change",
    "game_create",
    "game_event_claim",
    "game_event_consume",
    "game_event_done",
    "game_event_consume_by",
    "game_events_consume_all",
    "game_events_dispatch",
    "game_events_redeliver",
    "game_events_redact",
    "game_expire_open",
    "game_pause",
    "game_pauses_end_due",
    "game_resign",
    "game_resume",
    "game_start",
    "game_time_out",
    "game_time_out_overdue",
    "game_time_outs_queue",
    "games_pause_all",
    "games_resume_all",
    "idempotency_records_delete_expired",
    "idempotency_records_forget_account",
    "move_check",
    "move_submit",
    "seat_decline",
    "seat_join",
    "seats_leave_for_disabled_account",
    "seed_commitment_for",
    "vacation_take",
]
