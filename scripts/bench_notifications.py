"""Figures for the notification work on a database filled by `manage.py bench_make_games`.

    DATABASE_URL=postgres://.../splendor_bench python scripts/bench_notifications.py [--rounds 5]

Prints, each the median of --rounds runs (each run in a transaction that is rolled
back, so the database is the same for every run and nothing is queued or sent):

- one deadline sweep batch: finding up to games.services.SWEEP_BATCH overdue games
  (games.selectors.game_overdue_ids) and timing each of them out (the bot plays);
  with the EXPLAIN (ANALYZE) plan of the query that finds them;
- one reminder sweep batch: notifications.reminders.services._send_reminder_batch (finds up to
  BATCH_SIZE due reminders, claims them and records their notifications), with the
  plan of the query that finds them;
- emails rendered per second: notifications.email.render.email_render and
  notifications.email.services.message_build on the reminders just recorded (the text, the
  HTML with the board, the headers);
- events fanned out per second by one worker: move_played events handed to every
  outbox consumer (games.extensions.event_consumers) in this one process, as a
  worker runs them (games.services.game_events_consume_all).

Not a test and not in CI. docs/benchmarks.md keeps the figures and the command.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "splendor_site.settings")
# Nothing leaves this process: tasks queued on commit never run (every run rolls
# back), and email goes nowhere.
os.environ["CELERY_BROKER_URL"] = "memory://"
os.environ["CELERY_TASK_ALWAYS_EAGER"] = "true"
os.environ["EMAIL_BACKEND"] = "django.core.mail.backends.locmem.EmailBackend"

import django  # noqa: E402

django.setup()

from django.db import connection, transaction  # noqa: E402
from django.utils import timezone  # noqa: E402

from games import selectors as game_selectors  # noqa: E402
from games import services as game_services  # noqa: E402
from games.extensions import event_consumers  # noqa: E402
from games.models import Game, GameEvent  # noqa: E402
from notifications.reminders import services as reminders  # noqa: E402
from notifications.email import render as emails  # noqa: E402
from notifications.email import services as notification_services  # noqa: E402
from notifications.models import Notification, Reminder  # noqa: E402


class Rollback(Exception):
    pass


def rolled_back(run: Callable[[], Any]) -> Any:
    """Run inside a transaction that is always rolled back; returns run()'s value."""
    box: list[Any] = []
    try:
        with transaction.atomic():
            box.append(run())
            raise Rollback
    except Rollback:
        pass
    return box[0]


def median_of(rounds: int, run: Callable[[], tuple[float, int]]) -> tuple[float, int, list[float]]:
    """run() returns (seconds, count); the median seconds, the last count, all seconds."""
    times, count = [], 0
    for _ in range(rounds):
        seconds, count = rolled_back(run)
        times.append(seconds)
    return statistics.median(times), count, times


def explain(queryset: Any) -> str:
    return str(queryset.explain(analyze=True, buffers=True))


def uses_index(plan: str) -> bool:
    return "Index Scan" in plan or "Index Only Scan" in plan or "Bitmap Index Scan" in plan


def deadline_batch() -> tuple[float, int]:
    now = timezone.now()
    started = time.perf_counter()
    ids = game_selectors.game_overdue_ids(now=now, limit=game_services.SWEEP_BATCH)
    for game_id in ids:
        game_services.game_time_out(game_id=game_id, now=now)
    return time.perf_counter() - started, len(ids)


def deadline_find() -> tuple[float, int]:
    started = time.perf_counter()
    ids = game_selectors.game_overdue_ids(now=timezone.now(), limit=game_services.SWEEP_BATCH)
    return time.perf_counter() - started, len(ids)


def reminder_batch() -> tuple[float, int]:
    started = time.perf_counter()
    _, sent = reminders._send_reminder_batch(timezone.now())
    return time.perf_counter() - started, sent


def reminder_sweep() -> tuple[float, int]:
    """The whole beat task: batches until one is short (at most MAX_BATCHES). Due
    reminders of turns that are over (the deadline passed) are dropped, not sent."""
    started = time.perf_counter()
    sent = reminders.reminders_send_due(now=timezone.now())
    return time.perf_counter() - started, sent


def rendering() -> tuple[float, int]:
    reminders.reminders_send_due(now=timezone.now())  # records reminder notifications to render
    batch = list(
        Notification.objects.filter(kind="reminder").select_related("user", "user__player", "game", "event")[:200]
    )
    started = time.perf_counter()
    for notification in batch:
        notification_services.message_build(notification, emails.email_render(notification)).message()
    return time.perf_counter() - started, len(batch)


def fan_out(events: int) -> Callable[[], tuple[float, int]]:
    def run() -> tuple[float, int]:
        games = list(Game.objects.filter(status=Game.Status.ACTIVE, deadline_at__gt=timezone.now())[:events])
        written = [
            GameEvent.objects.create(
                game=game, kind=GameEvent.Kind.MOVE_PLAYED,
                payload={"ply": 0, "seat": 1 - (game.to_move or 0), "move": "take WUG", "automatic": False,
                         "played_by": "player", "version": game.version},
            )
            for game in games
        ]  # fmt: skip
        started = time.perf_counter()
        for event in written:
            game_services.game_events_consume_all(event_ids=[event.pk])
        return time.perf_counter() - started, len(written)

    return run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--events", type=int, default=200, help="move_played events per fan-out run")
    args = parser.parse_args()
    if connection.vendor != "postgresql":
        raise SystemExit("Run this on PostgreSQL (DATABASE_URL=postgres://.../<the bench database>).")

    now = timezone.now()
    counts = {
        "active games": Game.objects.filter(status=Game.Status.ACTIVE).count(),
        "finished games": Game.objects.filter(status=Game.Status.FINISHED).count(),
        "overdue games": Game.objects.filter(status=Game.Status.ACTIVE, deadline_at__lte=now).count(),
        "reminders": Reminder.objects.count(),
        "due reminders": Reminder.objects.filter(sent_at__isnull=True, due_at__lte=now).count(),
    }
    print("data: " + ", ".join(f"{value} {name}" for name, value in counts.items()))
    print(f"rounds: {args.rounds} (median shown, each run rolled back)\n")

    seconds, found, _ = median_of(args.rounds, deadline_find)
    print(f"deadline sweep, finding a batch: {seconds * 1000:.1f} ms for {found} games")
    seconds, acted, times = median_of(args.rounds, deadline_batch)
    print(f"deadline sweep, one batch acted on: {seconds * 1000:.0f} ms for {acted} games "
          f"({acted / seconds:.0f} games/s)")  # fmt: skip
    plan = explain(Game.objects.filter(status=Game.Status.ACTIVE, deadline_at__lte=timezone.now())
                   .order_by("deadline_at", "pk").values_list("pk", flat=True)[: game_services.SWEEP_BATCH])  # fmt: skip
    print(f"  plan (index used: {uses_index(plan)}):\n    " + plan.replace("\n", "\n    "))

    seconds, sent, _ = median_of(args.rounds, reminder_batch)
    print(f"\nreminder sweep, one batch: {seconds * 1000:.0f} ms for {sent} reminders "
          f"({sent / seconds if seconds else 0:.0f} reminders/s)")  # fmt: skip
    seconds, sent, _ = median_of(args.rounds, reminder_sweep)
    print(f"reminder sweep, the whole task: {seconds * 1000:.0f} ms, {sent} reminders sent "
          f"(of {counts['due reminders']} due; those whose deadline has passed are dropped)")  # fmt: skip
    plan = explain(Reminder.objects.filter(sent_at__isnull=True, due_at__lte=timezone.now())
                   .order_by("due_at", "pk").values_list("pk", flat=True)[: reminders.BATCH_SIZE])  # fmt: skip
    print(f"  plan (index used: {uses_index(plan)}):\n    " + plan.replace("\n", "\n    "))

    seconds, rendered, _ = median_of(args.rounds, rendering)
    print(f"\nemails rendered: {rendered / seconds:.0f} per second ({rendered} reminder emails, text + HTML + headers)")

    seconds, events, _ = median_of(args.rounds, fan_out(args.events))
    consumers = ", ".join(consumer.name for consumer in event_consumers())
    print(f"events fanned out by one worker: {events / seconds:.0f} per second "
          f"({events} move_played events, each to {consumers})")  # fmt: skip


if __name__ == "__main__":
    main()
