"""Celery tasks of the games app: thin adapters that call services.

`sweep_deadlines` runs on the beat schedule in settings (CELERY_BEAT_SCHEDULE,
every DEADLINE_SWEEP_SECONDS). It takes no arguments, so it carries nothing
secret, and it is safe to run twice or concurrently: `game_time_out`
re-checks each deadline under the game's row lock and changes nothing when it
has not passed.
"""

from __future__ import annotations

from celery import shared_task

from games import services


@shared_task(name="games.tasks.sweep_deadlines", ignore_result=True)
def sweep_deadlines() -> int:
    """Resign the seat to move in every active game whose deadline has passed.
    Returns how many games had a player run out of time."""
    # The same service as `manage.py games_sweep_deadlines`, the cron alternative.
    return services.game_time_out_overdue()


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
