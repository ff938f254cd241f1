"""Fakes for the client's tests: every server is an ``httpx.MockTransport``
(no network, no Django)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx

SERVER = "https://splendor.test"
# A token shaped like the service's; the tests check it never reaches a log.
TOKEN = "spl_test_5ecret_t0ken_value_that_must_never_be_logged"


def ndjson(*events: dict[str, Any]) -> bytes:
    return b"".join(json.dumps(e).encode() + b"\n" for e in events)


def problem(status: int, code: str, detail: str = "refused", **extra: Any) -> httpx.Response:
    body = {"type": f"{SERVER}/problems/{code}/", "title": code, "status": status, "detail": detail, "code": code}
    body.update(extra)
    return httpx.Response(status, json=body, headers={"Content-Type": "application/problem+json"})


class DroppedStream(httpx.SyncByteStream, httpx.AsyncByteStream):
    """A body that sends ``chunks`` and then fails as a dropped connection does."""

    def __init__(self, *chunks: bytes, error: Exception | None = None) -> None:
        self.chunks = chunks
        self.error = error or httpx.ReadError("connection reset by peer")

    def __iter__(self) -> Iterator[bytes]:
        yield from self.chunks
        raise self.error

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for chunk in self.chunks:
            yield chunk
        raise self.error


class Sleeps:
    """A ``sleep`` that records what it was asked to wait instead of waiting."""

    def __init__(self) -> None:
        self.waits: list[float] = []

    def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)


class AsyncSleeps(Sleeps):
    async def __call__(self, seconds: float) -> None:  # type: ignore[override]
        self.waits.append(seconds)


class LastMoveBot:
    """A bot for MODULE:CLASS: always the last legal move."""

    def choose(self, view: dict[str, Any], legal: list[str]) -> str:
        return legal[-1]


class TimedBot:
    """A bot that takes the clock: records it."""

    clocks: list[float | None] = []

    def choose(self, view: dict[str, Any], legal: list[str], clock: float | None = None) -> str:
        TimedBot.clocks.append(clock)
        return legal[0]


class WrongBot:
    """A bot that answers a move that is never legal."""

    def choose(self, view: dict[str, Any], legal: list[str]) -> str:
        return "take ZZZ"


class QueueStream(httpx.AsyncByteStream):
    """A stream body fed by the test while the runner reads it; None ends it."""

    def __init__(self, queue: asyncio.Queue[dict[str, Any] | None]) -> None:
        self.queue = queue

    async def __aiter__(self) -> AsyncIterator[bytes]:
        while True:
            event = await self.queue.get()
            if event is None:
                return
            yield ndjson(event)


class FakeServer:
    """Just enough of the API for the runner: the account ``alice``, games by id,
    the moves and joins it was sent, and a stream the test (or a move) feeds."""

    def __init__(self) -> None:
        self.events: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue()
        self.games: dict[str, dict[str, Any]] = {}
        self.legal: dict[str, dict[str, Any]] = {}
        self.requests: list[httpx.Request] = []
        self.move_answers: list[httpx.Response] = []
        self.on_move: Any = None
        self.on_join: Any = None
        self.next_id = 100
        self.scopes = ["play", "read"]  # the token's, as GET /api/v1/me/ gives them

    def push(self, event: str, data: dict[str, Any]) -> None:
        self.next_id += 1
        self.events.put_nowait({"id": self.next_id, "event": event, "data": data})

    def posted(self, suffix: str) -> list[dict[str, Any]]:
        return [json.loads(r.content) for r in self.requests if r.method == "POST" and r.url.path.endswith(suffix)]

    async def handler(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        path = request.url.path.removeprefix("/api/v1/")
        if path == "me/":
            return httpx.Response(200, json={"username": "alice", "scopes": self.scopes})
        if path == "stream/":
            return httpx.Response(200, stream=QueueStream(self.events), headers={"Content-Type": "application/x-ndjson"})
        if path == "games/" and request.method == "POST":
            game = {"id": "g1", "status": "open", "version": 1, "variant": "base", "created_by": "alice", "seats": []}
            # A test may have set the game up as it will be once started.
            return httpx.Response(201, json=self.games.setdefault("g1", game))
        parts = path.split("/")
        game_id, action = parts[1], parts[2] if len(parts) > 3 else ""
        if action == "" and request.method == "GET":
            return httpx.Response(200, json=self.games[game_id])
        if action == "legal-moves":
            return httpx.Response(200, json=self.legal[game_id])
        if action == "join":
            if self.on_join:
                self.on_join(game_id)
            return httpx.Response(200, json=self.games[game_id])
        if action == "moves" and request.method == "POST":
            body = json.loads(request.content)
            if self.move_answers:
                return self.move_answers.pop(0)
            if self.on_move:
                self.on_move(game_id, body)
            return httpx.Response(201, json={"move": body["move"], "ply": 1, "game": self.games.get(game_id, {})})
        return httpx.Response(404, json={"code": "not_found", "detail": path, "status": 404})
