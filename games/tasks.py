"""Celery tasks of the games app: thin adapters that call services.

`sweep_deadlines` runs on the beat schedule in settings (CELERY_BEAT_SCHEDULE,
every DEADLINE_SWEEP_SECONDS), `end_pauses` every PAUSE_SWEEP_SECONDS. They take
no arguments, so they carry nothing secret, and they are safe to run twice or
concurrently: each game is handled under its row lock, and its deadline or
pause re-checked there. The sweep only queues `time_out_game` per overdue game;
that task and `bot_turns_dispatch` (a bot's move, one per task) are the bots
worker's.
"""

from __future__ import annotations

from celery import shared_task

from core.log_context import log_context
from games import services
from games.errors import GameNotFound


@shared_task(name="games.tasks.sweep_deadlines", ignore_result=True)
def sweep_deadlines() -> int:
    """Find every active game whose deadline has passed and queue time_out_game
    for each (games.services.game_time_outs_queue): the sweep plays no bot itself.
    Returns how many were queued."""
    # `manage.py games_sweep_deadlines`, the cron alternative, acts in its own process.
    return services.game_time_outs_queue()


@shared_task(name="games.tasks.time_out_game", acks_late=True, ignore_result=True)
def time_out_game(game_id: str) -> bool:
    """A game's missed deadline, on the bots worker: a vacation day, the takeover
    bot's move with its turn_timed_out event in one change, or a forfeit
    (services.game_time_out). Safe to run twice: the deadline is re-checked under
    the game's lock. True when it acted."""
    with log_context(game_id=game_id):
        try:
            return services.game_time_out(game_id=game_id)
        except GameNotFound:
            return False  # gone since it was queued


@shared_task(name="games.tasks.end_pauses", ignore_result=True)
def end_pauses() -> int:
    """End the pauses whose end has come; clocks with no pause left run again.
    Returns how many games had pauses ended."""
    return services.game_pauses_end_due()


@shared_task(name="games.tasks.consume_events", acks_late=True, ignore_result=True)
def consume_events(event_ids: list[int]) -> None:
    """Every outbox consumer, on each event of one change (services.game_events_consume_all)."""
    with log_context(event_ids=event_ids):
        services.game_events_consume_all(event_ids=event_ids)


@shared_task(name="games.tasks.redeliver_events", ignore_result=True)
def redeliver_events() -> int:
    """Queue again the outbox events a consumer has not finished (its worker or
    the broker was down when they were written). Returns how many."""
    return services.game_events_redeliver()


@shared_task(name="games.tasks.housekeeping", ignore_result=True)
def housekeeping() -> dict[str, int]:
    """Hourly: abort open games nobody joined in time, and delete Idempotency-Key
    records past their time. Both are safe to run twice."""
    return {
        "open_games_expired": services.game_expire_open(),
        "idempotency_records_deleted": services.idempotency_records_delete_expired(),
    }


@shared_task(name="games.tasks.bot_turns_dispatch", acks_late=True, ignore_result=True)
def bot_turns_dispatch() -> str | None:
    """One bot move: the oldest due turn of the account served least recently
    (services.bot_turns_dispatch), queued again while turns are due. Takes no
    arguments. Returns the game whose turn it took, if any."""
    played = services.bot_turns_dispatch()
    return played.game_id if played is not None else None


@shared_task(name="games.tasks.play_bots", acks_late=True, ignore_result=True)
def play_bots(game_id: str) -> bool:
    """What messages queued before bot turns had rows ask for: put the game in
    line if its bot is to move, and queue bot_turns_dispatch (services.bot_turn_wake)."""
    with log_context(game_id=game_id):
        return services.bot_turn_wake(game_id=game_id)


@shared_task(name="games.tasks.requeue_bot_turns", ignore_result=True)
def requeue_bot_turns() -> int:
    """Queue bot_turns_dispatch again when a bot's turn has waited a while (its
    task was lost on the way). Returns how many turns waited that long."""
    return services.bot_turns_requeue()
