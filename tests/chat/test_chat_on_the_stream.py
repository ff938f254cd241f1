"""A line of table talk read from GET /api/v1/stream/ as a client reads it: the
other player hears of it as a ``chat`` event with the game's version as it stands;
once they mute the game's chat they hear of no line, and of the game's moves still."""

from __future__ import annotations

from typing import Any

import engine
import pytest

from chat import services
from games import services as game_services
from tests.chat.chat_helpers import api, chat_url
from tests.games.game_helpers import start_two_player_game, state_of, user_to_move
from tests.streams.conftest import _quick_stream, _streams_closed_at_the_end  # noqa: F401  (fixtures)
from tests.streams.stream_helpers import WsgiStream

pytestmark = pytest.mark.django_db


def test_a_line_reaches_the_other_players_stream_until_they_mute_the_chat(alice: Any, bob: Any) -> None:
    game = start_two_player_game(alice, bob)
    stream = WsgiStream(api(bob).get("/api/v1/stream/", HTTP_ACCEPT="application/x-ndjson"), "application/x-ndjson")
    assert stream.next_event()["event"] == "snapshot"
    api(alice).post(chat_url(game), {"text": "Your move, Bob."}, format="json")
    frame = stream.next_event()
    game.refresh_from_db()
    assert frame["event"] == "chat"
    assert frame["data"]["text"] == "Your move, Bob." and frame["data"]["author_id"] == alice.pk
    assert frame["data"]["version"] == game.version and frame["data"]["game_id"] == game.pk

    services.chat_preferences_set(game_id=game.pk, user=bob, muted=True)
    api(alice).post(chat_url(game), {"text": "Are you there?"}, format="json")
    mover = user_to_move(game)
    text = engine.format_move(engine.legal_moves(state_of(game))[0])
    game_services.move_submit(game_id=game.pk, user=mover, text=text, expected_version=game.version)
    assert stream.next_event()["event"] == "move_played"  # not the muted line
