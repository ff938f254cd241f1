"""Celery tasks of the games app: thin adapters that call services.

`sweep_deadlines` runs on the beat schedule in settings (CELERY_BEAT_SCHEDULE,
every DEADLINE_SWEEP_SECONDS), `end_pauses` every PAUSE_SWEEP_SECONDS. They take
no arguments, so they carry nothing secret, and they are safe to run twice or
concurrently: each game is handled under its row lock, and its deadline or
pause re-checked there.
"""

from __future__ import annotations

from celery import shared_task

from core.log_context import log_context
from games import services


@shared_task(name="games.tasks.sweep_deadlines", ignore_result=True)
def sweep_deadlines() -> int:
    """Act on every active game whose deadline has passed: a vacation day, the
    bot's move or a forfeit (games.services.game_time_out). Returns how many."""
    # The same service as `manage.py games_sweep_deadlines`, the cron alternative.
    return services.game_time_out_overdue()


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


@shared_task(name="games.tasks.play_bots", acks_late=True, ignore_result=True)
def play_bots(game_id: str) -> int:
    """Play the bots' turns of a practice game or a sandbox until a person is to
    move (services.bot_turns_play): queued when a change leaves a bot to move,
    never run in the request that made it. Safe to run twice. Returns how many."""
    with log_context(game_id=game_id):
        return services.bot_turns_play(game_id=game_id)


@shared_task(name="games.tasks.requeue_bot_turns", ignore_result=True)
def requeue_bot_turns() -> int:
    """Queue play_bots again for games whose bot has waited a while to move (its
    task was lost on the way). Returns how many."""
    return services.bot_turns_requeue()
