"""Parts that apps above games add to a game's export (``settings.GAME_EXPORT_EXTRAS``).

games imports none of those apps: each setting entry names a function that takes
the game and the reader (``game=``, ``user=``) and returns the keys it adds to the
export's body (table talk: ``chat``), already in their JSON form.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.utils.module_loading import import_string

from games.models import Game

if TYPE_CHECKING:
    from django.contrib.auth.models import AnonymousUser, User


def game_export_extras(*, game: Game, user: User | AnonymousUser | None) -> dict[str, Any]:
    """What the apps named in GAME_EXPORT_EXTRAS add to the game's export, in order."""
    extras: dict[str, Any] = {}
    for dotted_path in settings.GAME_EXPORT_EXTRAS:
        extras.update(import_string(dotted_path)(game=game, user=user))
    return extras
