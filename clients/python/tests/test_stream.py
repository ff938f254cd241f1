"""The event stream: both formats, heartbeats, reconnecting with Last-Event-ID."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from client_fakes import SERVER, TOKEN, AsyncSleeps, DroppedStream, Sleeps, ndjson, problem
from hypothesis import given
from hypothesis import strategies as st
from splendor_client import AsyncClient, AuthError, Client, Event, Reconnect
from splendor_client.stream import NdjsonParser, SseParser

MOVE = {"game_id": "g1", "version": 12, "ply": 9, "seat": 1, "move": "take RGU"}


def stream_client(handler: Any) -> tuple[Client, Sleeps]:
    sleeps = Sleeps()
    return Client(SERVER, TOKEN, transport=httpx.MockTransport(handler), sleep=sleeps), sleeps


def test_ndjson_lines_become_events_and_a_heartbeat_is_marked_as_one() -> None:
    parser = NdjsonParser()
    assert parser.feed(json.dumps({"id": 42, "event": "move_played", "data": MOVE})) == Event("move_played", MOVE, 42)
    assert parser.feed('{"event": "heartbeat"}') == Event("heartbeat")
    assert parser.feed("") is None
    assert parser.feed("not json") is None


def test_sse_fields_make_an_event_at_the_blank_line() -> None:
    parser = SseParser()
    lines = ["retry: 3000", "", ": ping", "id: 42", "event: move_played", f"data: {json.dumps(MOVE)}", ""]
    events = [e for e in map(parser.feed, lines) if e is not None]
    assert events == [Event("heartbeat"), Event("move_played", MOVE, 42)]
    assert parser.retry_ms == 3000


def test_sse_data_over_several_lines_is_joined() -> None:
    parser = SseParser()
    for line in ["id: 7", "event: snapshot", 'data: {"games": [],', 'data:  "invitations": []}']:
        assert parser.feed(line) is None
    assert parser.feed("") == Event("snapshot", {"games": [], "invitations": []}, 7)


_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3),
    max_leaves=10,
)
_events = st.builds(
    Event,
    event=st.from_regex(r"[a-z_]{1,20}", fullmatch=True).filter(lambda k: k != "heartbeat"),
    data=st.dictionaries(st.text(), _json, max_size=4),
    id=st.integers(min_value=1, max_value=2**53),
)


@given(st.lists(_events, max_size=5))
def test_any_events_written_as_sse_read_back_the_same(events: list[Event]) -> None:
    parser = SseParser()
    read: list[Event] = []
    for e in events:
        # indent=1 spreads the JSON over several data lines
        text = "".join(f"data: {line}\n" for line in json.dumps(e.data, indent=1).split("\n"))
        for line in f"id: {e.id}\nevent: {e.event}\n{text}\n".split("\n"):
            event = parser.feed(line)
            if event is not None:
                read.append(event)
    assert read == events


@given(st.lists(_events, max_size=5))
def test_any_events_written_as_ndjson_read_back_the_same(events: list[Event]) -> None:
    parser = NdjsonParser()
    wire = ndjson(*({"id": e.id, "event": e.event, "data": e.data} for e in events)).decode()
    assert [parser.feed(line) for line in wire.splitlines()] == events


def test_the_stream_asks_for_ndjson_with_the_token_and_skips_heartbeats() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        body = ndjson(
            {"id": 5, "event": "snapshot", "data": {"games": [], "invitations": []}},
            {"event": "heartbeat"},
            {"id": 6, "event": "move_played", "data": MOVE},
            {"id": 7, "event": "closed", "data": {"reason": "replaced"}},
        )
        return httpx.Response(200, content=body, headers={"Content-Type": "application/x-ndjson"})

    client, _ = stream_client(handler)
    events = list(client.stream())
    assert [e.event for e in events] == ["snapshot", "move_played", "closed"]
    assert events[-1].data == {"reason": "replaced"}
    assert seen[0].url.path == "/api/v1/stream/"
    assert seen[0].headers["Accept"] == "application/x-ndjson"
    assert seen[0].headers["Authorization"] == f"Bearer {TOKEN}"
    assert "Last-Event-ID" not in seen[0].headers
    assert len(seen) == 1, "closed ends the stream: no reconnect"


def test_a_dropped_connection_reconnects_with_the_last_event_id_handled() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        if len(seen) == 1:
            first = ndjson({"id": 1, "event": "snapshot", "data": {"games": []}}, {"id": 2, "event": "move_played", "data": MOVE})
            return httpx.Response(200, stream=DroppedStream(first))
        if len(seen) == 2:
            raise httpx.ConnectError("connection refused")  # the server is restarting
        return httpx.Response(
            200, content=ndjson({"id": 3, "event": "game_finished", "data": {"game_id": "g1", "version": 13}},
                                {"id": 4, "event": "closed", "data": {"reason": "replaced"}})
        )

    client, sleeps = stream_client(handler)
    events = list(client.stream())
    assert [e.id for e in events] == [1, 2, 3, 4]
    assert [r.headers.get("Last-Event-ID") for r in seen] == [None, "2", "2"]
    assert len(sleeps.waits) == 2 and sleeps.waits[0] <= sleeps.waits[1]


def test_a_silent_stream_is_given_up_and_opened_again_after_the_idle_timeout() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        if len(seen) == 1:
            silence = httpx.ReadTimeout("nothing for 45 s")
            return httpx.Response(200, stream=DroppedStream(ndjson({"id": 8, "event": "snapshot", "data": {}}), error=silence))
        return httpx.Response(200, content=ndjson({"id": 9, "event": "closed", "data": {"reason": "replaced"}}))

    client, _ = stream_client(handler)
    assert [e.id for e in client.stream(idle_timeout=45)] == [8, 9]
    assert seen[1].headers["Last-Event-ID"] == "8"
    assert seen[0].extensions["timeout"]["read"] == 45


def test_a_stream_started_from_a_known_id_sends_it() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, content=ndjson({"id": 41, "event": "closed", "data": {"reason": "replaced"}}))

    client, _ = stream_client(handler)
    list(client.stream(last_event_id=40))
    assert seen[0].headers["Last-Event-ID"] == "40"


def test_sse_reconnects_after_the_server_s_retry_and_resumes_after_the_last_id() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        if len(seen) == 1:
            return httpx.Response(200, stream=DroppedStream(
                f"retry: 2000\n\n: ping\n\nid: 9\nevent: move_played\ndata: {json.dumps(MOVE)}\n\n".encode()
            ))
        return httpx.Response(200, content=b'id: 10\nevent: closed\ndata: {"reason": "replaced"}\n\n')

    client, sleeps = stream_client(handler)
    events = list(client.stream(format="sse"))
    assert [(e.id, e.event) for e in events] == [(9, "move_played"), (10, "closed")]
    assert seen[0].headers["Accept"] == "text/event-stream"
    assert seen[1].headers["Last-Event-ID"] == "9"
    assert 1.0 <= sleeps.waits[0] <= 2.0  # the server's retry, with jitter


def test_a_refused_token_ends_the_stream_at_once() -> None:
    client, sleeps = stream_client(lambda request: problem(401, "invalid_token", "This token is not valid."))
    with pytest.raises(AuthError) as caught:
        list(client.stream())
    assert caught.value.code == "invalid_token" and sleeps.waits == []


def test_a_busy_server_is_waited_for_as_retry_after_says() -> None:
    answers = [problem(503, "service_unavailable"), httpx.Response(200, content=ndjson({"id": 1, "event": "closed", "data": {}}))]
    answers[0].headers["Retry-After"] = "12"
    client, sleeps = stream_client(lambda request: answers.pop(0))
    assert [e.event for e in client.stream()] == ["closed"]
    assert sleeps.waits == [12.0]


def test_a_stream_that_keeps_failing_gives_up_after_max_attempts() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("connection refused")

    client, sleeps = stream_client(handler)
    with pytest.raises(httpx.ConnectError):
        list(client.stream(reconnect=Reconnect(initial=1, maximum=4, max_attempts=3)))
    assert len(sleeps.waits) == 3
    assert all(0.5 <= w <= 4 for w in sleeps.waits)


@pytest.mark.anyio
async def test_the_async_stream_reconnects_with_last_event_id_too() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        if len(seen) == 1:
            return httpx.Response(200, stream=DroppedStream(ndjson({"event": "heartbeat"}, {"id": 3, "event": "your_turn", "data": MOVE})))
        return httpx.Response(200, content=ndjson({"id": 4, "event": "closed", "data": {"reason": "replaced"}}))

    sleeps = AsyncSleeps()
    async with AsyncClient(SERVER, TOKEN, transport=httpx.MockTransport(handler), sleep=sleeps) as client:
        events = [e async for e in client.stream()]
    assert [(e.id, e.event) for e in events] == [(3, "your_turn"), (4, "closed")]
    assert seen[1].headers["Last-Event-ID"] == "3"
    assert len(sleeps.waits) == 1
