"""The reviews' part in games (games.extensions): the review's panel on the
replay page of a game that is over, and its mistakes marked in the replay's list
of moves (reviews.pages)."""

from __future__ import annotations

from django.http import HttpRequest
from typing_extensions import override

from games.extensions import GameExtension, MoveMark, PageViewer, Panel, ReplayPosition
from reviews import pages


class ReviewsExtension(GameExtension):
    name = "reviews"

    @override
    def replay_panel(self, request: HttpRequest, viewer: PageViewer, position: ReplayPosition) -> Panel | None:
        return pages.replay_panel(request, viewer, position)

    @override
    def replay_move_marks(self, request: HttpRequest, viewer: PageViewer) -> dict[int, MoveMark]:
        return pages.replay_move_marks(request, viewer)
