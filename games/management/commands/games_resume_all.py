"""End every game's pauses for one reason (by default server): the clocks run
again, with the time they had left, where no other reason holds them."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from core.errors import DomainError
from games import services
from games.models import GamePause


class Command(BaseCommand):
    help = "Resume the clocks that were paused for a reason (default server) in every game."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--reason", default=GamePause.Reason.SERVER, choices=GamePause.Reason.values)

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            resumed = services.games_resume_all(reason=options["reason"])
        except DomainError as exc:
            raise CommandError(exc.message) from None
        self.stdout.write(f"{resumed} game(s) resumed ({options['reason']}).")
