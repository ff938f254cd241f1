"""What the game page gives the site's service worker (front.pwa) to keep its
last board for reading offline: the account's cache name in the
``Board-Cache-Key`` header, and the moment the page was drawn for its hidden
"offline" banner, which the worker uncovers when it serves the kept copy.

The key names a cache, so that one person's boards never show to another on a
shared browser; it is a keyed hash of the account's id, not the id (which the
API shows nobody) and never a token: it opens nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from django.http import HttpRequest, HttpResponse
from django.utils import timezone
from django.utils.crypto import salted_hmac

from core.text import short_moment_words
from games.pages.session import Viewer

HEADER = "Board-Cache-Key"
# On every page of a signed-in account: whose boards the worker may show offline now.
ACCOUNT_HEADER = "Board-Cache-Account"


def board_cache_key(*, user_id: int) -> str:
    """The name of ``user_id``'s cache of boards: 32 hex digits, stable for the account."""
    return salted_hmac("games.pages.offline.board-cache", str(user_id)).hexdigest()[:32]


def drawn_at_words(viewer: Viewer) -> str:
    """Now, in the seat's time zone, as the page's language writes it; "" for a spectator."""
    if viewer.seat is None:
        return ""
    name = getattr(getattr(viewer.seat.user, "player", None), "time_zone", "") or "UTC"
    try:
        zone = ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        zone = ZoneInfo("UTC")
    local = timezone.now().astimezone(zone)
    return f"{short_moment_words(local)} {local.tzname() or 'UTC'}"


class BoardCacheAccountMiddleware:
    """Every HTML page of a signed-in account names the account's cache
    (``Board-Cache-Account``): the worker then shows offline only that account's
    boards, so a browser where a game link was opened and someone else then signs
    in shows the newcomer none of the first person's boards. Pages of nobody
    signed in name none and change nothing (a game link's page names its seat's
    account with ``Board-Cache-Key``)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        user = getattr(request, "user", None)
        if (
            user is not None
            and user.is_authenticated
            and str(response.get("Content-Type", "")).startswith("text/html")
        ):
            response[ACCOUNT_HEADER] = board_cache_key(user_id=user.pk)
        return response


def board_keepable(response: HttpResponse, viewer: Viewer) -> HttpResponse:
    """A seat's board (not a spectator's, not a refusal) carries its account's key."""
    if viewer.seat is not None and response.status_code == 200:
        response[HEADER] = board_cache_key(user_id=viewer.seat.user_id)
    return response
