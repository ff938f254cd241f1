"""Parts that apps above games add to a game's export (``GameExtension.export_extra``).

games imports none of those apps: each registered extension is given the game and
the reader and returns the keys it adds to the export's body (table talk:
``chat``), already in their JSON form.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from games.extensions import extensions
from games.models import Game

if TYPE_CHECKING:
    from django.contrib.auth.models import AnonymousUser, User


def game_export_extras(*, game: Game, user: User | AnonymousUser | None) -> dict[str, Any]:
    """What the registered extensions add to the game's export, in order."""
    extras: dict[str, Any] = {}
    for extension in extensions():
        extras.update(extension.export_extra(game, user))
    return extras
