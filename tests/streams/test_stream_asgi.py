"""The stream as uvicorn serves it (splendor_site.asgi): no thread per stream, woken
by the hub (a database poll on the embedded default, Redis pub/sub in production)."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from asgiref.sync import sync_to_async

from accounts.services import token_create
from games.models import Game
from splendor_site.asgi import application
from streams.models import StreamConnection
from tests.games.game_helpers import play_moves, start_two_player_game, user_to_move
from tests.streams.asgi_harness import AsgiStream

# Several threads use the database at once (the stream's reads in the shared pool,
# the moves in another thread): the in-memory SQLite of the tests cannot, so these
# run on PostgreSQL. The end-to-end tests serve the stream from a SQLite file.
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.postgres]


@pytest.fixture(autouse=True)
def _pool_connections_closed_after_use(monkeypatch: pytest.MonkeyPatch) -> None:
    # The pool's threads outlive each test's event loop: their connections must not
    # outlive the test database (they close after each use, as with CONN_MAX_AGE=0).
    from django.db import connections

    monkeypatch.setitem(connections.settings["default"], "CONN_MAX_AGE", 0)


def bearer(user: Any, scopes: tuple[str, ...] = ("play",)) -> str:
    _, plain = token_create(user=user, name="stream", scopes=list(scopes))
    return f"Bearer {plain}"


def run(scenario: Callable[[], Awaitable[None]]) -> None:
    asyncio.run(scenario())


def in_thread(function: Callable[..., Any], *args: Any) -> Awaitable[Any]:
    """``function`` in the pool, its database connection closed after it (a pool
    thread outlives the test: an open connection would keep the test database)."""
    from django.db import connection

    def closing() -> Any:
        try:
            return function(*args)
        finally:
            connection.close()

    return sync_to_async(closing, thread_sensitive=False)()


def test_a_move_reaches_an_asgi_stream_as_it_happens(alice: Any, bob: Any) -> None:
    game = start_two_player_game(alice, bob)
    mover = user_to_move(game)
    other = bob if mover == alice else alice
    authorization = bearer(other)
    threads_before = threading.active_count()

    async def scenario() -> None:
        stream = AsgiStream(application, headers={"authorization": authorization, "accept": "text/event-stream"})
        assert await stream.start() == 200
        assert stream.headers["content-type"].startswith("text/event-stream")
        assert (await stream.next_frame()) == {"retry": 3000}
        assert (await stream.next_event())["event"] == "snapshot"
        await in_thread(play_moves, game, 1)
        played = await stream.next_event()
        turn = await stream.next_event()
        assert (played["event"], turn["event"]) == ("move_played", "your_turn")
        assert turn["data"]["game_id"] == game.pk and turn["data"]["legal_moves"]
        await stream.hang_up()

    run(scenario)
    # The connection is forgotten when it ends; no thread was left behind for it.
    assert not StreamConnection.objects.exists()
    assert threading.active_count() <= threads_before + 8  # the shared pool's threads at most


def test_ten_streams_share_the_pool_rather_than_a_thread_each(alice: Any, bob: Any) -> None:
    start_two_player_game(alice, bob)
    authorizations = [bearer(alice) for _ in range(10)]

    async def scenario() -> None:
        streams = [
            AsgiStream(application, headers={"authorization": a, "accept": "application/x-ndjson"})
            for a in authorizations
        ]
        for stream in streams:
            await stream.start()
            assert (await stream.next_event())["event"] == "snapshot"
        before = threading.active_count()
        # Every stream waits through heartbeats without holding a thread of its own.
        for stream in streams:
            assert (await stream.next_frame()) == {"event": "heartbeat"}
        assert threading.active_count() <= before + 2
        for stream in streams:
            await stream.hang_up()

    run(scenario)


def test_a_second_asgi_stream_of_a_token_closes_the_first(alice: Any, bob: Any) -> None:
    start_two_player_game(alice, bob)
    authorization = bearer(alice)

    async def scenario() -> None:
        first = AsgiStream(application, headers={"authorization": authorization, "accept": "application/x-ndjson"})
        await first.start()
        await first.next_event()
        second = AsgiStream(application, headers={"authorization": authorization, "accept": "application/x-ndjson"})
        await second.start()
        await second.next_event()
        assert (await first.next_event()) == {"event": "closed", "data": {"reason": "replaced"}}
        with pytest.raises(EOFError):
            await first.next_event()
        await asyncio.wait_for(first.task, 10)
        await second.hang_up()

    run(scenario)


def test_a_replaced_asgi_stream_is_closed_at_once_not_at_its_heartbeat(alice: Any, bob: Any, settings: Any) -> None:
    # Without Redis nothing is published when a stream opens: the first stream of the
    # token must still hear of its replacement before its next heartbeat, or two
    # programs with one token both play for a heartbeat's time.
    settings.STREAM_HEARTBEAT_SECONDS = 60
    start_two_player_game(alice, bob)
    authorization = bearer(alice)

    async def scenario() -> None:
        first = AsgiStream(application, headers={"authorization": authorization, "accept": "application/x-ndjson"})
        await first.start()
        assert (await first.next_event())["event"] == "snapshot"
        await asyncio.sleep(1)  # the first has read once and waits, till its heartbeat
        second = AsgiStream(application, headers={"authorization": authorization, "accept": "application/x-ndjson"})
        await second.start()
        assert (await second.next_event())["event"] == "snapshot"
        assert (await first.next_event(timeout=5)) == {"event": "closed", "data": {"reason": "replaced"}}
        await second.hang_up()

    run(scenario)


@pytest.mark.parametrize(
    "headers, status, code",
    [
        ({"accept": "text/event-stream"}, 401, "not_authenticated"),
        ({"accept": "application/json", "authorization": None}, 406, "not_acceptable"),
        ({"accept": "text/event-stream", "authorization": "Bearer nope"}, 401, "invalid_token"),
    ],
)
def test_asgi_refusals_are_problems(alice: Any, headers: dict[str, Any], status: int, code: str) -> None:
    if "authorization" in headers and headers["authorization"] is None:
        headers = {**headers, "authorization": bearer(alice)}

    async def scenario() -> None:
        answer = AsgiStream(application, headers=headers)
        assert await answer.start() == status
        assert answer.headers["content-type"] == "application/problem+json"
        assert json.loads(await answer.body())["code"] == code

    run(scenario)


def test_an_italian_client_is_refused_in_italian(alice: Any) -> None:
    authorization = bearer(alice)

    async def scenario() -> None:
        answer = AsgiStream(
            application, headers={"authorization": authorization, "accept": "text/html", "accept-language": "it"}
        )
        assert await answer.start() == 406
        assert "chiedine" in json.loads(await answer.body())["detail"]

    run(scenario)


def test_the_site_itself_is_served_beside_the_stream(db: None) -> None:
    async def scenario() -> None:
        answer = AsgiStream(application, headers={}, path="/healthz")
        assert await answer.start() in (200, 503)
        assert await answer.body()

    run(scenario)


@pytest.mark.redis
def test_redis_pub_sub_wakes_the_stream_at_once(settings: Any, alice: Any, bob: Any) -> None:
    settings.STREAM_REDIS_URL = settings.REDIS_URL
    # No poll and no heartbeat within the test: only a published message can wake it.
    settings.STREAM_POLL_SECONDS = 10
    settings.STREAM_HEARTBEAT_SECONDS = 60
    game = start_two_player_game(alice, bob)
    mover = user_to_move(game)
    other = bob if mover == alice else alice
    authorization = bearer(other)

    async def scenario() -> None:
        stream = AsgiStream(application, headers={"authorization": authorization, "accept": "application/x-ndjson"})
        await stream.start()
        assert (await stream.next_event())["event"] == "snapshot"
        await asyncio.sleep(0.5)  # the hub's subscription is in place
        await in_thread(play_moves, game, 1)
        assert (await stream.next_event(timeout=10))["event"] == "move_played"
        await stream.hang_up()

    run(scenario)
    assert Game.objects.get(pk=game.pk).version > game.version
