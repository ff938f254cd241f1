"""Driving an ASGI application in process: one request, its answer read as it streams."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from tests.streams.stream_helpers import parse_sse


class AsgiStream:
    def __init__(self, app: Any, *, headers: dict[str, str], query: str = "", path: str = "/api/v1/stream/") -> None:
        self.sent: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.incoming: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        scope = {
            "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "GET",
            "scheme": "http", "path": path, "raw_path": path.encode(), "query_string": query.encode(),
            "root_path": "", "client": ("127.0.0.1", 50000), "server": ("testserver", 80),
            "headers": [(name.lower().encode(), value.encode()) for name, value in headers.items()],
        }
        self.incoming.put_nowait({"type": "http.request", "body": b"", "more_body": False})
        self.task = asyncio.ensure_future(app(scope, self.incoming.get, self.sent.put))
        self.status: int | None = None
        self.headers: dict[str, str] = {}
        self.frames: list[dict[str, Any]] = []
        self.ended = False

    async def start(self) -> int:
        message = await asyncio.wait_for(self.sent.get(), 20)
        assert message["type"] == "http.response.start"
        self.status = message["status"]
        self.headers = {name.decode(): value.decode() for name, value in message["headers"]}
        return message["status"]

    async def body(self) -> bytes:
        """The whole body of an answer that is not a stream."""
        chunks = []
        while True:
            message = await asyncio.wait_for(self.sent.get(), 20)
            chunks.append(message.get("body", b""))
            if not message.get("more_body"):
                return b"".join(chunks)

    async def next_frame(self, timeout: float = 20) -> dict[str, Any]:
        while not self.frames:
            message = await asyncio.wait_for(self.sent.get(), timeout)
            if not message.get("more_body"):
                self.ended = True
            text = message.get("body", b"").decode()
            if self.headers.get("content-type", "").startswith("text/event-stream"):
                self.frames += parse_sse(text)
            else:
                self.frames += [json.loads(line) for line in text.splitlines() if line.strip()]
            if self.ended and not self.frames:
                raise EOFError("the stream ended")
        return self.frames.pop(0)

    async def next_event(self, timeout: float = 20) -> dict[str, Any]:
        while True:
            frame = await self.next_frame(timeout)
            if frame.get("event") not in (None, "heartbeat"):
                return frame

    async def hang_up(self) -> None:
        await self.incoming.put({"type": "http.disconnect"})
        await asyncio.wait_for(self.task, 20)
