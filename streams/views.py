"""``GET /api/v1/stream/`` (docs/stream.md).

One DRF view does what every request needs (the Bearer token, its ``read`` scope,
the format from ``Accept``, the problem answers) and opens the stream. What it
streams depends on who serves it: under ASGI (``splendor_site.asgi`` hands this
path to ``streams.asgi``) an asynchronous iterator that holds no thread while it
waits; under WSGI (``manage.py serve``'s development server, gunicorn) an iterator
that holds its worker thread and polls the database every
``STREAM_WSGI_POLL_SECONDS``: fine for a developer's few streams, not for many.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import AsyncIterator, Iterable, Iterator
from typing import Any

from asgiref.sync import sync_to_async
from django.conf import settings
from django.core.handlers.asgi import ASGIRequest
from django.db import close_old_connections
from django.http import HttpResponse, StreamingHttpResponse
from django.utils.translation import gettext
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework.exceptions import NotAcceptable, ValidationError
from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.renderers import BaseRenderer, JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.models import ApiToken
from accounts.permissions import CanRead
from games.schema import game_problems
from streams import bus, services
from streams.selectors import Frame
from streams.services import OpenStream

logger = logging.getLogger(__name__)

SSE = "text/event-stream"
NDJSON = "application/x-ndjson"


class _StreamRenderer(BaseRenderer):
    charset = "utf-8"

    def render(self, data: Any, accepted_media_type: str | None = None, renderer_context: Any = None) -> bytes:
        return b""  # never called: the view answers with a StreamingHttpResponse


class EventStreamRenderer(_StreamRenderer):
    media_type = SSE
    format = "sse"


class NDJSONRenderer(_StreamRenderer):
    media_type = NDJSON
    format = "ndjson"


class StreamNegotiation(DefaultContentNegotiation):
    """The format must be asked for by name: ``*/*`` or ``application/json`` is 406."""

    def select_renderer(
        self, request: Request, renderers: Iterable[BaseRenderer], format_suffix: str | None = None
    ) -> tuple[BaseRenderer, str]:
        asked = {media.split(";")[0].strip().lower() for media in self.get_accept_list(request)}
        for renderer in renderers:
            if renderer.media_type in asked:
                return renderer, renderer.media_type
        raise NotAcceptable(
            gettext(
                "The event stream is sent as `text/event-stream` (Server-Sent Events) or "
                "`application/x-ndjson` (one JSON object a line): ask for one in the Accept header."
            )
        )


# --- what goes on the wire ----------------------------------------------------------


def frame_bytes(frame: Frame, media_type: str) -> bytes:
    data = json.dumps(frame["data"], separators=(",", ":"), ensure_ascii=False)
    if media_type == SSE:
        return f"id: {frame['id']}\nevent: {frame['event']}\ndata: {data}\n\n".encode()
    return (json.dumps({"id": frame["id"], "event": frame["event"], "data": frame["data"]}, ensure_ascii=False) + "\n").encode()


def heartbeat_bytes(media_type: str) -> bytes:
    return b": ping\n\n" if media_type == SSE else b'{"event":"heartbeat"}\n'


def closed_bytes(media_type: str, reason: str) -> bytes:
    data = json.dumps({"reason": reason})
    if media_type == SSE:
        return f"event: closed\ndata: {data}\n\n".encode()
    return (json.dumps({"event": "closed", "data": {"reason": reason}}) + "\n").encode()


def preamble_bytes(media_type: str) -> bytes:
    # EventSource waits this long before reconnecting; NDJSON has no such field.
    return b"retry: 3000\n\n" if media_type == SSE else b""


# --- the two ways of serving it ------------------------------------------------------


def _pooled_read(stream: OpenStream, after: int) -> services.News:
    """A read in the shared thread pool, which no request's end tidies up after."""
    try:
        return services.stream_read(stream=stream, after=after)
    finally:
        close_old_connections()


def _pooled_close(stream: OpenStream) -> None:
    try:
        services.stream_close(stream=stream)
    finally:
        close_old_connections()


def sync_frames(stream: OpenStream, media_type: str) -> Iterator[bytes]:
    """Under WSGI: polls the database, holding the worker thread while it waits.
    The connection is forgotten however it ends, a client gone during the snapshot
    included."""
    try:
        yield preamble_bytes(media_type)
        for frame in stream.first:
            yield frame_bytes(frame, media_type)
        after, beat = stream.after, time.monotonic()
        while True:
            time.sleep(settings.STREAM_WSGI_POLL_SECONDS)
            news = services.stream_read(stream=stream, after=after)
            if news.ended is not None:
                yield closed_bytes(media_type, news.ended)
                return
            for frame in news.events:
                yield frame_bytes(frame, media_type)
                after = frame["id"]
            if time.monotonic() - beat >= settings.STREAM_HEARTBEAT_SECONDS:
                yield heartbeat_bytes(media_type)
                beat = time.monotonic()
    finally:
        services.stream_close(stream=stream)


async def async_frames(stream: OpenStream, media_type: str) -> AsyncIterator[bytes]:
    """Under ASGI: waits on this process's hub (streams.bus) without a thread, and
    reads the database in the shared pool only when woken or at a heartbeat."""
    read = sync_to_async(_pooled_read, thread_sensitive=False)
    hub = bus.hub()
    woken = hub.subscribe(stream.user_id)
    try:
        yield preamble_bytes(media_type)
        for frame in stream.first:
            yield frame_bytes(frame, media_type)
        after = stream.after
        # A replay longer than one batch, and anything stored while it was read; and
        # the stream of this token that this one replaced, if this process serves
        # it, reads its end now rather than at its heartbeat (the embedded default
        # publishes nothing; with Redis, stream_open's publish wakes it anywhere).
        hub.wake([stream.user_id])
        while True:
            try:
                await asyncio.wait_for(woken.wait(), timeout=settings.STREAM_HEARTBEAT_SECONDS)
            except TimeoutError:
                yield heartbeat_bytes(media_type)
            woken.clear()
            news = await read(stream, after)
            if news.ended is not None:
                yield closed_bytes(media_type, news.ended)
                return
            for frame in news.events:
                yield frame_bytes(frame, media_type)
                after = frame["id"]
            if len(news.events) >= services.READ_BATCH:
                woken.set()  # more to catch up on
    finally:
        hub.unsubscribe(stream.user_id, woken)
        await sync_to_async(_pooled_close, thread_sensitive=False)(stream)


def _last_event_id(request: Request) -> int | None:
    header = request.META.get("HTTP_LAST_EVENT_ID")
    raw = header or request.query_params.get("last_event_id")
    if raw is None or raw == "":
        return None
    if not raw.strip().isdigit():
        # Named as the client sent it: the header, or the query parameter.
        raise ValidationError(
            {"Last-Event-ID" if header else "last_event_id": [
                gettext("An event id is a whole number, as the stream's `id` gave it.")
            ]}
        )
    return int(raw)


class StreamView(APIView):
    permission_classes = [CanRead]
    renderer_classes = [EventStreamRenderer, NDJSONRenderer]
    content_negotiation_class = StreamNegotiation

    def finalize_response(self, request: Request, response: Any, *args: Any, **kwargs: Any) -> Any:
        # A problem (401, 403, 400) is JSON whatever format the stream was asked in.
        if isinstance(response, Response) and response.status_code >= 400:
            request.accepted_renderer = JSONRenderer()
            request.accepted_media_type = "application/problem+json"
        return super().finalize_response(request, response, *args, **kwargs)

    @extend_schema(
        operation_id="stream",
        summary="Your games' events, as they happen",
        description=(
            "Server-Sent Events (`Accept: text/event-stream`) or NDJSON (`Accept: application/x-ndjson`): "
            "the events of docs/events.md in the account's games, `your_turn` (the seat's view and legal moves), "
            "a `snapshot` to start with, a heartbeat at least every 15 s, `closed` when another stream of the "
            "same token replaces this one. Reconnect with `Last-Event-ID` (or `last_event_id`) to replay what "
            "was missed. See docs/stream.md."
        ),
        parameters=[
            OpenApiParameter(
                "Last-Event-ID", OpenApiTypes.INT, OpenApiParameter.HEADER,
                description="The last event id handled: the stream replays what followed.",
            ),
            OpenApiParameter(
                "last_event_id", OpenApiTypes.INT, OpenApiParameter.QUERY,
                description="As the Last-Event-ID header, for clients that cannot set headers.",
            ),
        ],
        responses={
            (200, SSE): OpenApiResponse(OpenApiTypes.STR, description="Server-Sent Events"),
            (200, NDJSON): OpenApiResponse(OpenApiTypes.STR, description="One JSON object a line"),
            **game_problems(
                extra={
                    400: "validation_error: `last_event_id` (or Last-Event-ID) is not a whole number.",
                    406: "not_acceptable: the Accept header names neither text/event-stream nor application/x-ndjson.",
                }
            ),
        },
    )
    def get(self, request: Request) -> HttpResponse | StreamingHttpResponse:
        token = request.auth
        assert isinstance(token, ApiToken)  # CanRead: a Bearer token with the read scope
        last_event_id = _last_event_id(request)
        media_type = request.accepted_media_type
        if request.method == "HEAD":
            # The headers, and no stream: opening one would close this token's open
            # stream (one stream per token), and a stream's body never ends.
            head = HttpResponse(content_type=f"{media_type}; charset=utf-8")
            head["Cache-Control"] = "no-cache, no-store"
            return head
        stream = services.stream_open(user_id=token.user_id, token_id=token.pk, last_event_id=last_event_id)
        frames: Iterator[bytes] | AsyncIterator[bytes]
        if isinstance(request._request, ASGIRequest):
            frames = async_frames(stream, media_type)
        else:
            frames = sync_frames(stream, media_type)
        response = StreamingHttpResponse(frames, content_type=f"{media_type}; charset=utf-8")
        response["Cache-Control"] = "no-cache, no-store"
        # nginx: pass each event on at once instead of buffering the answer.
        response["X-Accel-Buffering"] = "no"
        return response
