"""Webhooks' part in games (games.extensions): the outbox consumer "webhooks",
which turns each game event into deliveries for the endpoints of those who hear
of it (games.audience)."""

from __future__ import annotations

from typing_extensions import override

from games.extensions import GameExtension
from games.models import GameEvent
from webhooks import services


class WebhooksExtension(GameExtension):
    name = "webhooks"

    @override
    def handle_event(self, event: GameEvent) -> None:
        services.event_fan_out(event=event)
