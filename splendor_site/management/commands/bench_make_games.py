"""manage.py bench_make_games --active N --finished M [--players P] [--due-share F] [--batch B]

Fills the database (PostgreSQL; made for a database of its own) with realistic rows
for scripts/bench_notifications.py: P players, N active two-seat games and M finished
ones, in batches of B rows with bulk_create, each batch one transaction.

- Every game's state is a real engine state (engine.new_game(...) through
  engine.to_dict), taken from a pool of deals, with its seed and seed commitment.
- Active games have a deadline: a share F of them (default 1%) is overdue, another
  share F has under two hours left, the rest 25 to 72 hours. Each active game's player
  to move has two reminders (24 and 2 hours before the deadline). In the second share
  the 2-hour one is due and the 24-hour one was sent; in the overdue share both were
  sent; elsewhere the 24-hour one may be due and the 2-hour one is not.
- Finished games have a result, no deadline and no reminders.

Not for a database anyone plays on: the rows are not made through the services, so
no outbox events are written for them.
"""

from __future__ import annotations

import hashlib
import random
import time
from argparse import ArgumentParser
from datetime import datetime, timedelta
from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from django.db import connection, transaction
from django.utils import timezone

import engine
from accounts.models import Player
from games.models import Game, Seat
from notifications.models import Reminder

DEALS = 64  # distinct engine states reused across the games
REMINDER_HOURS = (24, 2)


class Command(BaseCommand):
    help = "Bulk-create players, active and finished games, seats and reminders for the notification benchmarks."

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("--active", type=int, default=100_000)
        parser.add_argument("--finished", type=int, default=1_000_000)
        parser.add_argument("--players", type=int, default=20_000)
        parser.add_argument("--due-share", type=float, default=0.01, help="share of active games already overdue")
        parser.add_argument("--batch", type=int, default=5_000)
        parser.add_argument("--seed", type=int, default=1)

    def handle(self, *args: Any, **options: Any) -> None:
        if connection.vendor != "postgresql":
            raise CommandError("bench_make_games is for PostgreSQL: set DATABASE_URL=postgres://.../<a bench database>.")
        if min(options["active"], options["finished"], options["players"] - 2) < 0 or options["batch"] < 1:
            raise CommandError("--active and --finished must be 0 or more, --players at least 2, --batch at least 1.")
        if not 0 <= options["due_share"] <= 1:
            raise CommandError("--due-share is a share: from 0 to 1.")
        rng = random.Random(options["seed"])
        started = time.perf_counter()
        user_ids = self._players(options["players"], options["batch"])
        deals = _deals(rng)
        now = timezone.now()
        made = {"active": 0, "finished": 0}
        for status, total in (("active", options["active"]), ("finished", options["finished"])):
            while made[status] < total:
                size = min(options["batch"], total - made[status])
                with transaction.atomic():
                    self._games(status, size, user_ids, deals, rng, now, options["due_share"])
                made[status] += size
                self.stdout.write(f"{status}: {made[status]}/{total} ({time.perf_counter() - started:.0f} s)")
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")
        self.stdout.write(
            f"made {len(user_ids)} players, {made['active']} active and {made['finished']} finished games "
            f"in {time.perf_counter() - started:.0f} s"
        )

    def _players(self, count: int, batch: int) -> list[int]:
        User = get_user_model()
        prefix = f"bench{int(time.time())}"
        users = [
            User(username=f"{prefix}_{n}", email=f"{prefix}_{n}@bench.example", is_active=True)
            for n in range(count)
        ]
        for user in users:
            user.set_unusable_password()
        created = User.objects.bulk_create(users, batch_size=batch)
        Player.objects.bulk_create(
            [Player(user_id=user.pk, display_name=user.username, email_verified_at=timezone.now()) for user in created],
            batch_size=batch,
        )
        return [int(user.pk) for user in created]

    def _games(self, status: str, size: int, user_ids: list[int], deals: list[tuple[int, dict[str, Any]]],
               rng: random.Random, now: datetime, due_share: float) -> None:  # fmt: skip
        games: list[Game] = []
        pairs: list[tuple[int, int]] = []
        for _ in range(size):
            seed, state = deals[rng.randrange(len(deals))]
            first, second = rng.sample(user_ids, 2)
            started = now - timedelta(days=rng.uniform(1, 300))
            game = Game(
                variant=Game.Variant.BASE, seat_count=2, created_by_id=first, move_seconds=72 * 3600,
                seed=str(seed), seed_commitment=hashlib.sha256(str(seed).encode()).hexdigest(),
                state=state, version=rng.randint(3, 120), started_at=started,
            )  # fmt: skip
            if status == "active":
                game.status = Game.Status.ACTIVE
                game.to_move = rng.randint(0, 1)
                draw = rng.random()
                if draw < due_share:  # overdue: the deadline sweep acts on it
                    game.deadline_at = now - timedelta(seconds=rng.uniform(1, 3600))
                elif draw < 2 * due_share:  # under two hours left: its reminders are due
                    game.deadline_at = now + timedelta(minutes=rng.uniform(10, 110))
                else:
                    game.deadline_at = now + timedelta(hours=rng.uniform(25, 72))
                game.turn_started_at = game.deadline_at - timedelta(hours=72)
            else:
                game.status = Game.Status.FINISHED
                game.finished_at = started + timedelta(days=rng.uniform(1, 30))
                winner = rng.randint(0, 1)
                game.result = {"reason": "score", "winners": [winner], "places": [[winner], [1 - winner]],
                               "resigned": [], "timed_out": []}  # fmt: skip
            games.append(game)
            pairs.append((first, second))
        Game.objects.bulk_create(games)
        seats: list[Seat] = []
        reminders: list[Reminder] = []
        for game, (first, second) in zip(games, pairs):
            for index, user_id in enumerate((first, second)):
                seats.append(Seat(game=game, user_id=user_id, index=index, join_position=index, joined_at=game.started_at))
            if game.status == Game.Status.ACTIVE and game.deadline_at is not None:
                mover = (first, second)[game.to_move or 0]
                for hours in REMINDER_HOURS:
                    due_at = game.deadline_at - timedelta(hours=hours)
                    # Reminders that came due before the latest one were sent by earlier sweeps.
                    later_due = game.deadline_at - timedelta(hours=min(REMINDER_HOURS))
                    sent_at = due_at if (due_at < later_due and later_due <= now) or game.deadline_at <= now else None
                    reminders.append(Reminder(
                        game=game, user_id=mover, deadline_at=game.deadline_at, hours_before=hours,
                        due_at=due_at, sent_at=sent_at,
                    ))  # fmt: skip
        Seat.objects.bulk_create(seats)
        Reminder.objects.bulk_create(reminders)


def _deals(rng: random.Random) -> list[tuple[int, dict[str, Any]]]:
    """Real states a few moves into a game, from the engine."""
    deals = []
    for n in range(DEALS):
        seed = rng.randrange(2**31)
        state = engine.new_game(variant="base", players=2, seed=seed)
        for _ in range(rng.randint(0, 12)):
            moves = engine.legal_moves(state)
            if not moves or engine.outcome(state) is not None:
                break
            state = engine.apply(state, moves[rng.randrange(len(moves))])
        deals.append((seed, engine.to_dict(state)))
    return deals
