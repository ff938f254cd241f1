"""The stream under ASGI, beside Django's handler (``splendor_site.asgi``).

Django's own ASGI handler keeps a thread for each request while its answer streams
(the request's thread-sensitive context, which the site's synchronous middleware
use), so it would hold one thread per open stream. This application serves
``/api/v1/stream/`` (and the game page's ``/games/<id>/events/``, streams.page_stream): the view runs once in the shared thread pool (the
token, its scope, the format, opening the stream), and the events then stream
from ``streams.views.async_frames``, which waits on the process's hub without a
thread. The site's middleware are not run for it: the view answers for itself.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from asgiref.sync import sync_to_async
from django.core.handlers.asgi import ASGIRequest
from django.db import close_old_connections
from django.http import HttpResponseBase, StreamingHttpResponse
from django.utils import translation

from streams.page_stream import PATH as PAGE_PATH
from streams.page_stream import page_stream_response
from streams.views import StreamView

logger = logging.getLogger(__name__)

PATH = "/api/v1/stream/"
__all__ = ["PAGE_PATH", "PATH", "page_stream_app", "stream_app"]

Scope = dict[str, Any]
Message = Mapping[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[Message], Awaitable[None]]

_view = StreamView.as_view()


def _respond(request: ASGIRequest) -> HttpResponseBase:
    try:
        with translation.override(translation.get_language_from_request(request)):
            response = _view(request)
            render = getattr(response, "render", None)
            if callable(render) and not getattr(response, "is_rendered", True):
                render()
            return response
    finally:
        close_old_connections()


def _headers(response: HttpResponseBase) -> list[tuple[bytes, bytes]]:
    headers = [(name.lower().encode("latin-1"), str(value).encode("latin-1")) for name, value in response.items()]
    headers += [(b"set-cookie", cookie.output(header="").strip().encode("latin-1")) for cookie in response.cookies.values()]
    return headers


async def stream_app(scope: Scope, receive: Receive, send: Send) -> None:
    request = ASGIRequest(scope, io.BytesIO(b""))
    response = await sync_to_async(_respond, thread_sensitive=False)(request)
    await serve(response, receive, send)


async def page_stream_app(scope: Scope, receive: Receive, send: Send, game_id: str) -> None:
    """The game page's stream (streams.page_stream), served the same way."""
    request = ASGIRequest(scope, io.BytesIO(b""))
    response = await sync_to_async(page_stream_response, thread_sensitive=False)(request, game_id)
    await serve(response, receive, send)


async def serve(response: HttpResponseBase, receive: Receive, send: Send) -> None:
    """Send ``response``; a stream until it ends or the client hangs up."""
    await send({"type": "http.response.start", "status": response.status_code, "headers": _headers(response)})
    if not (isinstance(response, StreamingHttpResponse) and response.is_async):
        body = response.content if hasattr(response, "content") else b""
        await send({"type": "http.response.body", "body": body})
        return

    async def pump() -> None:
        async for chunk in response:
            await send({"type": "http.response.body", "body": chunk, "more_body": True})
        await send({"type": "http.response.body", "body": b""})

    async def hang_up() -> None:
        while (await receive())["type"] != "http.disconnect":
            pass

    tasks = [asyncio.ensure_future(pump()), asyncio.ensure_future(hang_up())]
    try:
        done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        for task in done:
            if not task.cancelled() and task.exception() is not None:
                exc = task.exception()
                if not isinstance(exc, OSError):  # the client went away mid-write
                    logger.error("stream failed", exc_info=exc)
    finally:
        for task in tasks:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
