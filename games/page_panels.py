"""Panels that apps above games add to the game page (``settings.GAME_PAGE_PANELS``).

games imports none of those apps: each setting entry names a function that takes
the request and the page's ``Viewer`` and returns a ``Panel`` (a template and its
context) or None, and the page includes what they return, in the setting's order,
in its side column (``games/game_page.html``).
"""

from __future__ import annotations

from typing import Any, TypedDict

from django.conf import settings
from django.http import HttpRequest
from django.utils.module_loading import import_string

from games.page_session import Viewer


class Panel(TypedDict):
    template: str
    context: dict[str, Any]


def game_page_panels(request: HttpRequest, viewer: Viewer) -> list[Panel]:
    """The panels the apps named in GAME_PAGE_PANELS give for this page, in order."""
    panels: list[Panel] = []
    for dotted_path in settings.GAME_PAGE_PANELS:
        panel: Panel | None = import_string(dotted_path)(request, viewer)
        if panel is not None:
            panels.append(panel)
    return panels
