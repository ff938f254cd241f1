"""The event stream (``GET /api/v1/stream/``, docs/stream.md): its events and the
two wire formats, read line by line.

``NdjsonParser`` and ``SseParser`` turn lines into ``Event`` values; a heartbeat
becomes an event named ``heartbeat`` (the clients use it to know the connection
is alive and never pass it on). Reconnecting lives in ``Client.stream`` and
``AsyncClient.stream``."""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass, field
from typing import Any, Literal

logger = logging.getLogger("splendor_client.stream")

Format = Literal["ndjson", "sse"]

ACCEPT: dict[str, str] = {"ndjson": "application/x-ndjson", "sse": "text/event-stream"}

HEARTBEAT = "heartbeat"
CLOSED = "closed"
SNAPSHOT = "snapshot"
YOUR_TURN = "your_turn"

#: docs/stream.md: a client that has heard nothing for 45 seconds should reconnect.
IDLE_TIMEOUT_SECONDS = 45.0


@dataclass(frozen=True)
class Event:
    """One event of the stream. ``id`` is the account's own sequence (None for a
    heartbeat); ``event`` its kind (``move_played``, ``your_turn``, ``snapshot``,
    ``closed``, ...); ``data`` its JSON object."""

    event: str
    data: dict[str, Any] = field(default_factory=dict)
    id: int | None = None

    @property
    def game_id(self) -> str | None:
        value = self.data.get("game_id")
        return value if isinstance(value, str) else None

    @property
    def version(self) -> int | None:
        value = self.data.get("version")
        return value if isinstance(value, int) and not isinstance(value, bool) else None


def _event_id(value: Any) -> int | None:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())
    return None


def _data(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {"value": value}


class NdjsonParser:
    """``application/x-ndjson``: one JSON object a line."""

    def feed(self, line: str) -> Event | None:
        text = line.strip()
        if not text:
            return None
        try:
            obj = json.loads(text)
        except ValueError:
            logger.warning("stream: skipped a line that is not JSON (%d characters)", len(text))
            return None
        if not isinstance(obj, dict) or not isinstance(obj.get("event"), str):
            logger.warning("stream: skipped a line that names no event")
            return None
        return Event(event=obj["event"], data=_data(obj.get("data", {})), id=_event_id(obj.get("id")))


class SseParser:
    """``text/event-stream`` (the HTML standard's event stream): fields up to a
    blank line make one event; ``: ping`` comments are heartbeats; ``retry:``
    sets the reconnection delay the server asks for (``retry_ms``)."""

    def __init__(self) -> None:
        self.retry_ms: int | None = None
        self._reset()

    def _reset(self) -> None:
        self._event = ""
        self._data: list[str] = []
        self._id: str | None = None

    def feed(self, line: str) -> Event | None:
        line = line.rstrip("\r\n")
        if not line:
            return self._dispatch()
        if line.startswith(":"):
            return Event(event=HEARTBEAT)
        name, _, value = line.partition(":")
        value = value.removeprefix(" ")
        if name == "event":
            self._event = value
        elif name == "data":
            self._data.append(value)
        elif name == "id":
            if "\0" not in value:
                self._id = value
        elif name == "retry":
            if value.isdigit():
                self.retry_ms = int(value)
        return None

    def _dispatch(self) -> Event | None:
        if not self._data and not self._event:
            self._reset()
            return None
        kind = self._event or "message"
        text = "\n".join(self._data)
        event_id = _event_id(self._id)
        self._reset()
        try:
            data = json.loads(text) if text else {}
        except ValueError:
            logger.warning("stream: skipped a %s event whose data is not JSON", kind)
            return None
        return Event(event=kind, data=_data(data), id=event_id)


def parser_for(fmt: Format) -> NdjsonParser | SseParser:
    if fmt == "ndjson":
        return NdjsonParser()
    if fmt == "sse":
        return SseParser()
    raise ValueError(f"unknown stream format {fmt!r}: use 'ndjson' or 'sse'")


def accept_header(fmt: Format) -> str:
    try:
        return ACCEPT[fmt]
    except KeyError:
        raise ValueError(f"unknown stream format {fmt!r}: use 'ndjson' or 'sse'") from None


class Reconnect:
    """When to come back after a stream ended or failed: exponential backoff from
    ``initial`` seconds (or the server's SSE ``retry``) up to ``maximum``, started
    over once a connection has carried something; ``max_attempts`` failures in a
    row end the stream with the last error (None: never give up)."""

    def __init__(self, *, initial: float = 1.0, maximum: float = 30.0, max_attempts: int | None = None) -> None:
        self.initial = initial
        self.maximum = maximum
        self.max_attempts = max_attempts
        self.failures = 0

    def connected(self) -> None:
        self.failures = 0

    def next_delay(self, retry_ms: int | None = None) -> float | None:
        """Seconds to wait before the next try, or None to give up."""
        self.failures += 1
        if self.max_attempts is not None and self.failures > self.max_attempts:
            return None
        first = retry_ms / 1000 if retry_ms is not None else self.initial
        return min(first * 2.0 ** (self.failures - 1), self.maximum)


__all__ = ["CLOSED", "HEARTBEAT", "SNAPSHOT", "YOUR_TURN", "Event", "NdjsonParser", "Reconnect", "SseParser"]
