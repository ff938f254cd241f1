"""Panels that apps above games add to the game page (``GameExtension.page_panel``)
and to the replay page (``GameExtension.replay_panel``, and ``replay_move_marks``
beside the moves in its list).

games imports none of those apps: each registered extension may return a
``Panel`` (a template and its context) for the request and the page's ``Viewer``,
and the page includes what they return, in the extensions' order, in its side
column (``games/game_page.html``); the replay page below its list of moves
(``games/replay.html``).
"""

from __future__ import annotations

from django.http import HttpRequest

from games.extensions import MoveMark, Panel, ReplayPosition, extensions
from games.pages.session import Viewer


def game_page_panels(request: HttpRequest, viewer: Viewer) -> list[Panel]:
    """The panels the registered extensions give for this page, in order."""
    panels: list[Panel] = []
    for extension in extensions():
        panel = extension.page_panel(request, viewer)
        if panel is not None:
            panels.append(panel)
    return panels


def game_replay_panels(request: HttpRequest, viewer: Viewer, position: ReplayPosition) -> list[Panel]:
    """The panels the registered extensions give for the replay page, in order."""
    panels: list[Panel] = []
    for extension in extensions():
        panel = extension.replay_panel(request, viewer, position)
        if panel is not None:
            panels.append(panel)
    return panels


def game_replay_marks(request: HttpRequest, viewer: Viewer) -> dict[int, list[MoveMark]]:
    """The marks the registered extensions put beside moves in the replay's list, by ply."""
    marks: dict[int, list[MoveMark]] = {}
    for extension in extensions():
        for ply, mark in extension.replay_move_marks(request, viewer).items():
            marks.setdefault(ply, []).append(mark)
    return marks
