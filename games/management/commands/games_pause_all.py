"""Stop the clocks of every active game, for operators (after an outage, before
maintenance). The pauses stay until `games_resume_all` with the same reason, or
until --hours have passed."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils import timezone

from core.errors import DomainError
from games import services
from games.models import GamePause


class Command(BaseCommand):
    help = "Pause the clocks of every active game (reason server or moderator)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--reason", default=GamePause.Reason.SERVER, choices=GamePause.Reason.values)
        parser.add_argument("--note", default="", help="Why, for the record (kept with each pause).")
        parser.add_argument("--hours", type=int, default=None, help="End the pauses by themselves after this long.")

    def handle(self, *args: Any, **options: Any) -> None:
        hours = options["hours"]
        if hours is not None and hours < 1:
            raise CommandError("--hours must be at least 1.")
        until = timezone.now() + timedelta(hours=hours) if hours is not None else None
        try:
            paused = services.games_pause_all(reason=options["reason"], note=options["note"], until=until)
        except DomainError as exc:
            raise CommandError(exc.message) from None
        self.stdout.write(f"{paused} game(s) paused ({options['reason']}).")
