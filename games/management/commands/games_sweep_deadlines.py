"""Resign the seat to move in every active game whose move deadline has passed.

Run it periodically (cron, a Celery beat entry, a systemd timer). Each game is
handled in its own transaction and the service re-checks the deadline under the
row lock, so two sweepers running at once never resign a seat twice.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from games import services


class Command(BaseCommand):
    help = "Resign players who ran out of time (the per-move deadline) in active games."

    def handle(self, *args: Any, **options: Any) -> None:
        timed_out = services.game_time_out_overdue()
        self.stdout.write(f"{timed_out} game(s) had a player run out of time.")
