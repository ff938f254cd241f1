"""The cost of the takeover bot: one deadline sweep batch of overdue games, with each bot.

    DATABASE_URL=postgres://.../splendor_bench python scripts/bench_takeover.py [--rounds 3]

On a database filled by `manage.py bench_make_games` (100 overdue games in 10,000
active ones: `--active 10000 --due-share 0.01`), one sweep batch
(games.selectors.game_overdue_ids, then games.services.game_time_out for each game,
as games.tasks.sweep_deadlines runs it) is timed with TAKEOVER_BOT=greedy and with
the search bot at several TAKEOVER_BOT_PLAYOUTS budgets, the bots alternated round
by round, each run in one process (one core) and in a transaction that is rolled
back, so every run acts on the same games and nothing is queued or sent. Prints the
median seconds of each (wall clock, and the CPU time of this process, which another
load on the machine does not inflate; PostgreSQL's own is not in it), and the bot's
own share (its choices timed alone on the same positions).

Not a test and not in CI. docs/benchmarks.md keeps the figures and the command.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "splendor_site.settings")
os.environ["CELERY_BROKER_URL"] = "memory://"
os.environ["CELERY_TASK_ALWAYS_EAGER"] = "true"
os.environ["EMAIL_BACKEND"] = "django.core.mail.backends.locmem.EmailBackend"

import django  # noqa: E402

django.setup()

from django.conf import settings  # noqa: E402
from django.db import connection, transaction  # noqa: E402
from django.utils import timezone  # noqa: E402

import engine  # noqa: E402
from games import selectors as game_selectors  # noqa: E402
from games import services as game_services  # noqa: E402
from games.models import Game  # noqa: E402
from games.services.turns import bot_choose  # noqa: E402


class Rollback(Exception):
    pass


def sweep_batch() -> tuple[float, float, int]:
    """One batch, rolled back: (seconds, this process's CPU seconds, games acted on)."""
    box: list[tuple[float, float, int]] = []
    try:
        with transaction.atomic():
            now = timezone.now()
            started, cpu = time.perf_counter(), time.process_time()
            ids = game_selectors.game_overdue_ids(now=now, limit=game_services.SWEEP_BATCH)
            for game_id in ids:
                game_services.game_time_out(game_id=game_id, now=now)
            box.append((time.perf_counter() - started, time.process_time() - cpu, len(ids)))
            raise Rollback
    except Rollback:
        pass
    return box[0]


def bot_alone(positions: list[tuple[str, engine.State]]) -> float:
    """The takeover bot's choices alone on the overdue games' positions (seconds)."""
    started = time.perf_counter()
    for game_id, state in positions:
        seat = engine.to_move(state)
        assert seat is not None
        bot_choose(state, seat, name=settings.TAKEOVER_BOT, game_id=game_id)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--playouts", default="100,200,400", help="search bot budgets to time, comma-separated")
    args = parser.parse_args()
    if connection.vendor != "postgresql":
        raise SystemExit("Run this on PostgreSQL (DATABASE_URL=postgres://.../<the bench database>).")
    settings.VACATION_DAYS_PER_YEAR = 0  # every overdue turn is played by the bot, none becomes a vacation day
    now = timezone.now()
    overdue = list(Game.objects.filter(status=Game.Status.ACTIVE, deadline_at__lte=now)
                   .order_by("deadline_at", "pk")[: game_services.SWEEP_BATCH])  # fmt: skip
    positions = [(g.pk, engine.from_dict(g.state)) for g in overdue if g.state]
    print(f"data: {Game.objects.filter(status=Game.Status.ACTIVE).count()} active games, "
          f"{len(overdue)} overdue in the batch; rounds: {args.rounds} (median shown, each run rolled back)")  # fmt: skip
    configs = [("greedy", 0)] + [("ismcts", int(p)) for p in args.playouts.split(",")]
    sweeps: dict[str, list[float]] = {}
    cpus: dict[str, list[float]] = {}
    alone: dict[str, list[float]] = {}
    acted = 0
    for _ in range(args.rounds):
        for name, playouts in configs:
            label = name if name == "greedy" else f"ismcts at {playouts} playouts"
            settings.TAKEOVER_BOT = name
            settings.TAKEOVER_BOT_PLAYOUTS = playouts or 1
            seconds, cpu, acted = sweep_batch()
            sweeps.setdefault(label, []).append(seconds)
            cpus.setdefault(label, []).append(cpu)
            alone.setdefault(label, []).append(bot_alone(positions))
    print(f"\n| takeover bot | one sweep batch of {acted} overdue games | its CPU in this process | "
          "the bot's choices alone | per game |")  # fmt: skip
    print("| --- | ---: | ---: | ---: | ---: |")
    for label, times in sweeps.items():
        sweep, cpu, bot = statistics.median(times), statistics.median(cpus[label]), statistics.median(alone[label])
        print(f"| {label} | {sweep:.1f} s | {cpu:.1f} s | {bot:.1f} s | {sweep / max(acted, 1) * 1000:.0f} ms |")


if __name__ == "__main__":
    main()
