"""Notifications' part in games (games.extensions): two outbox consumers, each
with claims of its own, as before this app was grouped by channel.

- "email": the email each event sends, and to whom (notifications.email.game_events);
- "reminders": the reminders of the turn an event started (notifications.reminders).
"""

from __future__ import annotations

from typing_extensions import override

from games.extensions import GameExtension
from games.models import GameEvent
from notifications.email.game_events import event_handle
from notifications.reminders import services as reminders


class EmailExtension(GameExtension):
    name = "email"

    @override
    def handle_event(self, event: GameEvent) -> None:
        event_handle(event)


class RemindersExtension(GameExtension):
    name = "reminders"

    @override
    def handle_event(self, event: GameEvent) -> None:
        # The game's current turn, not the event's: a late or repeated event
        # reschedules what is true now.
        reminders.reminders_schedule_for_game(game_id=event.game_id)
