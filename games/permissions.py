"""Who may reach a game through the API: every view under ``/api/v1/games/{id}/``
names one of these beside its token-scope permission (accounts.permissions).

A private game is answered as an unknown id (404 ``game_not_found``) to anyone
who may not see it (``games.selectors.game_visible_q``), so that its existence
is not told; ``tests/games/test_private_games.py`` walks every such route.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rest_framework.permissions import BasePermission

from games import selectors

if TYPE_CHECKING:
    from rest_framework.request import Request
    from rest_framework.views import APIView


class CanSeeGame(BasePermission):
    """The game of the URL's ``game_id`` is one the caller may see in full."""

    open_seat = False

    def has_permission(self, request: Request, view: APIView) -> bool:
        game_id = str(view.kwargs.get("game_id", ""))
        selectors.game_check_visible(game_id=game_id, user=request.user, open_seat=self.open_seat)
        return True


class CanSeeGameOrOpenSeat(CanSeeGame):
    """As CanSeeGame, or the game is open with a seat anyone holding its id may
    take: its summary can be read (no board, no moves: it has not started) and
    the seat joined."""

    open_seat = True
