"""The game page's own stream, as uvicorn serves it (``/games/<id>/events/``,
streams.page_stream): opened with the page's session cookie, one per tab (two tabs
stream at once), a ``version`` event when the game moves on, the page's refusals
for anyone else; a spectator's stream reads the version on its own. Under WSGI
the page polls and the path answers 404."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from django.conf import settings as django_settings
from django.db import connections
from django.test import AsyncClient, Client

from games.models import Game
from splendor_site.asgi import application
from tests.games.game_helpers import play_moves, start_two_player_game
from tests.streams.asgi_harness import AsgiStream
from tests.streams.test_stream_asgi import in_thread

pytestmark = pytest.mark.django_db(transaction=True)


def session_cookie(user: Any) -> str:
    client = Client()
    client.force_login(user)
    return f"{django_settings.SESSION_COOKIE_NAME}={client.cookies[django_settings.SESSION_COOKIE_NAME].value}"


def tab(game: Game, cookie: str = "") -> AsgiStream:
    headers = {"accept": "text/event-stream", **({"cookie": cookie} if cookie else {})}
    return AsgiStream(application, headers=headers, path=f"/games/{game.pk}/events/")


async def next_version(stream: AsgiStream) -> dict[str, Any]:
    event = await stream.next_event(timeout=10)
    assert event["event"] == "version", event
    data: dict[str, Any] = event["data"]
    return data


@pytest.fixture(autouse=True)
def _pool_connections_closed_after_use(monkeypatch: pytest.MonkeyPatch) -> None:
    from django.db import connections

    monkeypatch.setitem(connections.settings["default"], "CONN_MAX_AGE", 0)


@pytest.mark.postgres
def test_two_tabs_of_a_player_each_hear_the_move_from_the_session(alice: Any, bob: Any) -> None:
    game = start_two_player_game(alice, bob)
    cookie = session_cookie(alice)

    async def scenario() -> None:
        first, second = tab(game, cookie), tab(game, cookie)
        assert await first.start() == 200 and await second.start() == 200
        assert first.headers["content-type"].startswith("text/event-stream")
        assert (await first.next_frame()) == {"retry": 3000}
        assert (await next_version(first))["version"] == game.version
        assert (await next_version(second))["version"] == game.version  # the second did not close the first
        await in_thread(play_moves, game, 1)
        for stream in (first, second):
            assert (await next_version(stream))["version"] == game.version + 1
        await first.hang_up()
        await second.hang_up()

    asyncio.run(scenario())


@pytest.mark.postgres
def test_a_spectators_stream_reads_the_version_on_its_own(alice: Any, bob: Any, settings: Any) -> None:
    settings.STREAM_PAGE_POLL_SECONDS = 0.2
    game = start_two_player_game(alice, bob, public=True)

    async def scenario() -> None:
        watching = tab(game)  # nobody logged in: a public game may be watched
        assert await watching.start() == 200
        assert (await next_version(watching))["version"] == game.version
        await in_thread(play_moves, game, 1)
        assert (await next_version(watching))["version"] == game.version + 1
        await watching.hang_up()

    asyncio.run(scenario())


@pytest.mark.postgres
def test_a_private_games_stream_is_refused_as_its_page_is(alice: Any, bob: Any, dave: Any) -> None:
    game = start_two_player_game(alice, bob)

    async def scenario() -> None:
        for cookie, status in (("", 403), (await in_thread(session_cookie, dave), 404)):
            stranger = tab(game, cookie)
            assert await stranger.start() == status
            body = json.loads(await stranger.body())
            assert body["detail"] and str(game.pk) not in json.dumps(body)

    asyncio.run(scenario())


def test_under_wsgi_the_page_polls_and_the_path_answers_404(alice: Any, bob: Any) -> None:
    game = start_two_player_game(alice, bob)
    client = Client()
    client.force_login(alice)
    page = client.get(f"/games/{game.pk}/").content.decode()
    assert 'data-version-url="' in page and "data-events-url" not in page
    assert client.get(f"/games/{game.pk}/events/").status_code == 404


@pytest.mark.postgres
def test_under_asgi_the_page_links_its_stream(alice: Any, bob: Any) -> None:
    game = start_two_player_game(alice, bob)

    async def scenario() -> str:
        client = AsyncClient()
        await client.aforce_login(alice)
        response = await client.get(f"/games/{game.pk}/")
        # The handler's thread keeps a connection: closed, so that the test database can go.
        await sync_to_async(connections.close_all, thread_sensitive=True)()
        return response.content.decode()

    assert f'data-events-url="/games/{game.pk}/events/"' in asyncio.run(scenario())
