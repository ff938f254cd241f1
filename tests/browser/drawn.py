"""Waiting for the game page to be drawn at a version, whole.

The page redraws itself with ``window.location.replace`` when the game moves on.
The new document's ``#game`` element (which carries ``data-version``) comes early
in its HTML, and a long list of legal moves (hundreds of take-and-return moves)
comes late: waiting for the element alone can read the page while its document
is still being parsed, with the last moves not in it yet. This waits for the
version *and* for the parse to have ended (``document.readyState`` past
``loading``) in the same document.
"""

from __future__ import annotations

from typing import Any

_DRAWN = """version => document.readyState !== "loading"
  && document.getElementById("game") !== null
  && document.getElementById("game").getAttribute("data-version") === version"""


def wait_for_drawn(page: Any, version: int, *, timeout: int = 15_000) -> None:
    """Return once ``page`` shows the game at ``version`` and its document is parsed."""
    page.wait_for_function(_DRAWN, arg=str(version), timeout=timeout)
