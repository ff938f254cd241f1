"""Table talk's part in games (games.extensions): the panel beside the board, the
``chat`` part of a game's export, who hears of a line, and the outbox consumer
"chat" that emails each new line to the players who asked for one."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.http import HttpRequest
from typing_extensions import override

from chat import pages, selectors, services
from games.extensions import GameExtension, PageViewer, Panel
from games.models import Game, GameEvent

if TYPE_CHECKING:
    from django.contrib.auth.models import AnonymousUser, User


class ChatExtension(GameExtension):
    name = "chat"

    @override
    def handle_event(self, event: GameEvent) -> None:
        if event.kind == GameEvent.Kind.CHAT:
            services.chat_line_emails_send(event=event)

    @override
    def event_recipients(self, event: GameEvent) -> set[int] | None:
        # A line reaches its thread's listeners: not its author, not who muted it.
        return selectors.chat_event_recipients(event) if event.kind == GameEvent.Kind.CHAT else None

    @override
    def page_panel(self, request: HttpRequest, viewer: PageViewer) -> Panel | None:
        return pages.game_page_panel(request, viewer)

    @override
    def export_extra(self, game: Game, user: User | AnonymousUser | None) -> dict[str, Any]:
        return dict(selectors.game_export_chat(game=game, user=user))
