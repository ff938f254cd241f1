"""``GET /games/<id>/events/``: the game page's own stream, under ASGI.

The game page redraws itself when its game moves on. Where uvicorn serves the site
(``splendor_site.asgi``) the page listens here instead of polling
``/games/<id>/version``: Server-Sent Events ``version`` (``{"version", "status"}``)
at the start and whenever the game's version changes, a heartbeat comment in
between. It is opened with the page's session (its cookie: a logged-in account,
or the seat a game link put in the session), never a token in the page, and asks
exactly what ``/games/<id>/version`` asks (``games.pages.game.game_version``),
which answers the refusals. Every tab has its own: several may be open at once,
and one never closes another (unlike the API's one stream a token).

A player's page is woken by the process's hub (``streams.bus``), as the API's
stream is; a spectator's, who has no account news to wake it, reads the game's
version every ``STREAM_PAGE_POLL_SECONDS``. Either way it holds no thread while it
waits. Under WSGI the page polls and never links here (``game_version_stream``
answers 404 there).
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import AsyncIterator

from asgiref.sync import sync_to_async
from django.conf import settings
from django.contrib.auth.middleware import AuthenticationMiddleware
from django.contrib.sessions.middleware import SessionMiddleware
from django.db import close_old_connections
from django.http import HttpRequest, HttpResponse, HttpResponseBase, JsonResponse, StreamingHttpResponse
from django.utils import translation

from games.models import Game
from games.pages.game import game_version
from streams import bus

PATH = re.compile(r"/games/(?P<game_id>[A-Za-z0-9]{1,32})/events/")


def _checked(request: HttpRequest, game_id: str) -> HttpResponseBase:
    """``/games/<id>/version``'s answer for this request, through the session's
    middleware: 200 with the version for a viewer, its refusal otherwise."""

    def view(request: HttpRequest) -> HttpResponse:
        return game_version(request, game_id)

    with translation.override(translation.get_language_from_request(request)):
        answer = SessionMiddleware(AuthenticationMiddleware(view))(request)
    assert isinstance(answer, HttpResponseBase)  # synchronous middleware around a synchronous view
    return answer


def _version_of(game_id: str) -> tuple[int, str] | None:
    try:
        found = Game.objects.filter(pk=game_id).values_list("version", "status").first()
        return (int(found[0]), str(found[1])) if found is not None else None
    finally:
        close_old_connections()


def _event(version: int, status: str) -> bytes:
    return f"event: version\ndata: {json.dumps({'version': version, 'status': status})}\n\n".encode()


async def _frames(game_id: str, user_id: int | None, version: int, status: str) -> AsyncIterator[bytes]:
    read = sync_to_async(_version_of, thread_sensitive=False)
    hub = bus.hub()
    woken = hub.subscribe(user_id) if user_id is not None else asyncio.Event()
    wait = settings.STREAM_HEARTBEAT_SECONDS if user_id is not None else settings.STREAM_PAGE_POLL_SECONDS
    try:
        yield b"retry: 3000\n\n" + _event(version, status)
        quiet = 0.0
        while True:
            try:
                await asyncio.wait_for(woken.wait(), timeout=wait)
            except TimeoutError:
                quiet += wait
            woken.clear()
            now = await read(game_id)
            if now is None:
                return  # the game is gone: the page's next request says so
            if now[0] != version:
                version, status = now
                quiet = 0.0
                yield _event(version, status)
            elif quiet >= settings.STREAM_HEARTBEAT_SECONDS:
                quiet = 0.0
                yield b": ping\n\n"
    finally:
        if user_id is not None:
            hub.unsubscribe(user_id, woken)


def page_stream_response(request: HttpRequest, game_id: str) -> HttpResponseBase:
    """Run in the shared thread pool: the refusal, or the stream to send."""
    try:
        checked = _checked(request, game_id)
        if checked.status_code != 200 or not isinstance(checked, JsonResponse):
            return checked
        found = json.loads(checked.content)
        user = getattr(request, "user", None)
        user_id = user.pk if user is not None and user.is_authenticated else None
        response = StreamingHttpResponse(
            _frames(game_id, user_id, int(found["version"]), str(found["status"])),
            content_type="text/event-stream; charset=utf-8",
        )
        response["Cache-Control"] = "no-cache, no-store"
        response["X-Accel-Buffering"] = "no"  # nginx passes each event on at once (docs/deploy.md)
        return response
    finally:
        close_old_connections()
