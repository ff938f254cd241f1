"""Act on every active game whose move deadline has passed, after ending the
pauses whose end has come.

Run it periodically (cron, a systemd timer) when no Celery beat runs
games.tasks.sweep_deadlines and games.tasks.end_pauses. Each game is handled in
its own transaction and the service re-checks the deadline under the row lock,
so two sweepers running at once act on each game once.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from games import services


class Command(BaseCommand):
    help = "End pauses that are over, then time out the turns whose deadline has passed in active games."

    def handle(self, *args: Any, **options: Any) -> None:
        resumed = services.game_pauses_end_due()
        timed_out = services.game_time_out_overdue()
        self.stdout.write(f"{resumed} game(s) had a pause end; {timed_out} game(s) had a player run out of time.")
