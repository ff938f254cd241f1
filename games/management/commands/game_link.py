"""Print the link to a game's page as one seat, for an operator to pass on by hand."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from core.errors import DomainError
from games import links


class Command(BaseCommand):
    help = (
        "Print the signed link to GAME's page as SEAT: the seat's play order (your_seat in the API) once the game "
        "has started, before that the seat's place among the joined and invited players (0 is the creator)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("game", help="The game's public id.")
        parser.add_argument("seat", type=int, help="The seat number, from 0.")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            seat = links.seat_by_number(game_id=options["game"], number=options["seat"])
        except DomainError as error:
            raise CommandError(error.message) from None
        self.stdout.write(links.seat_link_url(seat=seat))
