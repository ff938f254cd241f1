"""The event stream's part in games (games.extensions): each change's events
written into the streams of the accounts concerned, in the change's transaction."""

from __future__ import annotations

from typing_extensions import override

from games.extensions import GameExtension
from games.models import Game, GameEvent
from streams import services


class StreamsExtension(GameExtension):
    name = "streams"

    @override
    def write_beside_events(self, game: Game, events: list[GameEvent]) -> None:
        services.stream_events_write(game, events)
