"""Reading the stream in tests: its frames parsed, from the WSGI iterator or raw bytes."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any


def parse_sse(text: str) -> list[dict[str, Any]]:
    """SSE blocks as {"id", "event", "data"} ({"comment": ...} for a comment, {"retry": n})."""
    frames: list[dict[str, Any]] = []
    for block in text.split("\n\n"):
        if not block.strip():
            continue
        frame: dict[str, Any] = {}
        for line in block.split("\n"):
            field, _, value = line.partition(":")
            value = value[1:] if value.startswith(" ") else value
            if field == "":
                frame["comment"] = value
            elif field == "id":
                frame["id"] = int(value)
            elif field == "event":
                frame["event"] = value
            elif field == "data":
                frame["data"] = json.loads(value)
            elif field == "retry":
                frame["retry"] = int(value)
        frames.append(frame)
    return frames


# Every stream a test opened, closed when the test ends (tests/streams/conftest.py): an
# iterator left to the garbage collector would run its clean-up (a query) whenever
# the collector runs, in the middle of another test's query on the same connection.
OPENED: list["WsgiStream"] = []


class WsgiStream:
    """The development server's iterator, read frame by frame."""

    def __init__(self, response: Any, media_type: str = "text/event-stream") -> None:
        OPENED.append(self)
        assert response.status_code == 200, response.content if not response.streaming else response.status_code
        self.response = response
        self.chunks: Iterator[bytes] = iter(response.streaming_content)
        self.media_type = media_type
        self.buffer: list[dict[str, Any]] = []

    def _more(self) -> None:
        chunk = next(self.chunks).decode()
        if self.media_type == "text/event-stream":
            self.buffer += parse_sse(chunk)
        else:
            self.buffer += [json.loads(line) for line in chunk.splitlines() if line.strip()]

    def next_event(self, *, limit: int = 50) -> dict[str, Any]:
        """The next frame with an event (heartbeats and the retry field skipped)."""
        for _ in range(limit):
            while self.buffer:
                frame = self.buffer.pop(0)
                if frame.get("event") not in (None, "heartbeat"):
                    return frame
            self._more()
        raise AssertionError(f"no event in {limit} reads")

    def events_until(self, kind: str, *, limit: int = 50) -> list[dict[str, Any]]:
        seen: list[dict[str, Any]] = []
        for _ in range(limit):
            frame = self.next_event()
            seen.append(frame)
            if frame["event"] == kind:
                return seen
        raise AssertionError(f"no {kind} among {[f['event'] for f in seen]}")

    def raw_frames(self, count: int) -> list[dict[str, Any]]:
        """The next ``count`` frames whatever they are (heartbeats included)."""
        while len(self.buffer) < count:
            self._more()
        taken, self.buffer = self.buffer[:count], self.buffer[count:]
        return taken

    def close(self) -> None:
        # The test client wraps the view's generator in one that closes the response
        # when it is closed, with the database connection kept (the test's
        # transaction is on it). streaming_content is a map over that wrapper, and a
        # map has no close(): the wrapper is the response's _iterator. Closed here,
        # the view's clean-up (a query) runs now, between two of the test's own
        # queries, not whenever the garbage collector finds it.
        wrapper = getattr(self.response, "_iterator", None)
        close = getattr(wrapper, "close", None)
        assert close is not None, f"a streaming response of the test client, not {self.response!r}"
        close()
