"""Table talk through the API: who may read and write which thread, the limits on a
line (500 characters, plain text, CHAT_MESSAGES_PER_MINUTE), the choices a player
makes about a game's chat, reports, and the export after the end."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from chat.models import ChatMessage, ChatPreference, ChatReport
from games import services as game_services
from games.models import GameEvent, Move
from tests.chat.chat_helpers import api, chat_url, game_of, make_moderator, say
from tests.games.game_helpers import play_to_end, user_to_move

import engine

pytestmark = pytest.mark.django_db


def test_a_player_writes_and_the_other_reads_the_players_thread(commit: Any, alice: Any, bob: Any) -> None:
    game = game_of(commit, alice, bob)
    response = api(alice).post(chat_url(game), {"text": "Good luck, Bob!"}, format="json")
    assert response.status_code == 201, response.json()
    assert response.json()["text"] == "Good luck, Bob!" and response.json()["author"] == "Alice"
    assert response["Location"] == f"/api/v1/games/{game.pk}/chat/"
    lines = api(bob).get(chat_url(game)).json()["lines"]
    assert [(line["author_id"], line["text"], line["thread"]) for line in lines] == [
        (alice.pk, "Good luck, Bob!", "players")
    ]


def test_a_line_writes_a_chat_event_and_leaves_the_games_version_alone(commit: Any, alice: Any, bob: Any) -> None:
    game = game_of(commit, alice, bob)
    version = game.version
    message = say(commit, game, alice, "hello")
    game.refresh_from_db()
    assert game.version == version
    event = GameEvent.objects.get(game=game, kind="chat")
    assert event.payload == {
        "message_id": message.pk, "thread": "players", "author_id": alice.pk, "seat": message.seat,
        "text": "hello", "version": version,
    }
    # A move chosen on the version before the line is still accepted.
    mover = user_to_move(game)
    state = engine.from_dict(game.state)
    text = engine.format_move(engine.legal_moves(state)[0])
    game_services.move_submit(game_id=game.pk, user=mover, text=text, expected_version=version)
    assert Move.objects.filter(game=game).count() == 1


def test_a_line_of_501_characters_is_refused_and_500_is_taken(commit: Any, alice: Any, bob: Any) -> None:
    game = game_of(commit, alice, bob)
    refused = api(alice).post(chat_url(game), {"text": "x" * 501}, format="json")
    assert refused.status_code == 400
    assert refused.json()["code"] == "validation_error"
    assert "500 characters" in refused.json()["errors"]["text"][0]
    assert api(alice).post(chat_url(game), {"text": "x" * 500}, format="json").status_code == 201


def test_an_empty_line_is_refused(commit: Any, alice: Any, bob: Any) -> None:
    game = game_of(commit, alice, bob)
    refused = api(alice).post(chat_url(game), {"text": " \u0007\n "}, format="json")
    assert refused.status_code == 400
    assert "empty" in refused.json()["errors"]["text"][0]
    assert not ChatMessage.objects.exists()


def test_control_characters_are_removed_and_the_rest_stored_as_written(commit: Any, alice: Any, bob: Any) -> None:
    game = game_of(commit, alice, bob)
    text = "<b>bold?</b>\u0000 see https://example.com\u202e\r\nsecond line"
    api(alice).post(chat_url(game), {"text": text}, format="json")
    assert ChatMessage.objects.get().text == "<b>bold?</b> see https://example.com\nsecond line"


def test_past_chat_messages_per_minute_a_player_gets_429_with_retry_after(
    commit: Any, alice: Any, bob: Any, settings: Any, clock: Any
) -> None:
    settings.CHAT_MESSAGES_PER_MINUTE = 3
    game = game_of(commit, alice, bob)
    client = api(alice)
    for n in range(3):
        assert client.post(chat_url(game), {"text": f"line {n}"}, format="json").status_code == 201
        clock.shift(timedelta(seconds=10))
    refused = client.post(chat_url(game), {"text": "one more"}, format="json")
    assert refused.status_code == 429
    assert refused.json()["code"] == "too_many_chat_messages"
    assert refused["Retry-After"] == "30"  # the first line leaves the minute 30 s from now
    clock.shift(timedelta(seconds=30))
    assert client.post(chat_url(game), {"text": "one more"}, format="json").status_code == 201
    # The other player has a minute of their own.
    assert api(bob).post(chat_url(game), {"text": "hi"}, format="json").status_code == 201


def test_a_stranger_of_a_private_game_gets_404_as_for_the_game(commit: Any, alice: Any, bob: Any, charlie: Any) -> None:
    game = game_of(commit, alice, bob)
    say(commit, game, alice, "secret plans")
    stranger = api(charlie)
    for response in (
        stranger.get(chat_url(game)),
        stranger.get(chat_url(game, "spectators")),
        stranger.post(chat_url(game), {"text": "hi"}, format="json"),
        stranger.post(chat_url(game, "spectators"), {"text": "hi"}, format="json"),
        stranger.get(f"/api/v1/games/{game.pk}/chat/preferences/"),
        stranger.post(
            f"/api/v1/games/{game.pk}/chat/report/", {"message_id": ChatMessage.objects.get().pk}, format="json"
        ),
    ):
        assert response.status_code == 404
        assert response.json()["code"] == "game_not_found"
        assert "secret" not in response.content.decode()
    assert stranger.get(f"/api/v1/games/{game.pk}/").json()["code"] == "game_not_found"


def test_a_spectator_of_a_public_game_may_not_read_or_write_the_players_thread(
    commit: Any, alice: Any, bob: Any, charlie: Any
) -> None:
    game = game_of(commit, alice, bob, public=True)
    say(commit, game, alice, "between us")
    spectator = api(charlie)
    read = spectator.get(chat_url(game))
    assert read.status_code == 403 and read.json()["code"] == "not_a_player"
    assert "between us" not in read.content.decode()
    assert spectator.post(chat_url(game), {"text": "hi"}, format="json").status_code == 403


def test_spectators_write_their_own_thread_and_players_may_read_it_but_not_write(
    commit: Any, alice: Any, bob: Any, charlie: Any
) -> None:
    game = game_of(commit, alice, bob, public=True)
    written = api(charlie).post(chat_url(game, "spectators"), {"text": "nice opening"}, format="json")
    assert written.status_code == 201 and written.json()["seat"] is None
    assert [line["text"] for line in api(bob).get(chat_url(game, "spectators")).json()["lines"]] == ["nice opening"]
    refused = api(alice).post(chat_url(game, "spectators"), {"text": "thanks"}, format="json")
    assert refused.status_code == 403 and refused.json()["code"] == "chat_not_allowed"


def test_a_private_game_has_no_spectators_thread(commit: Any, alice: Any, bob: Any) -> None:
    game = game_of(commit, alice, bob)
    response = api(alice).get(chat_url(game, "spectators"))
    assert response.status_code == 404 and response.json()["code"] == "chat_thread_not_found"


def test_an_unknown_thread_is_refused_by_name(commit: Any, alice: Any, bob: Any) -> None:
    game = game_of(commit, alice, bob)
    response = api(alice).get(chat_url(game, "everyone"))
    assert response.status_code == 400 and "players or spectators" in response.json()["errors"]["thread"][0]


def test_a_moderator_reads_the_players_thread_of_a_private_game(commit: Any, alice: Any, bob: Any, dave: Any) -> None:
    game = game_of(commit, alice, bob)
    say(commit, game, alice, "gg")
    lines = api(make_moderator(dave)).get(chat_url(game)).json()["lines"]
    assert [line["text"] for line in lines] == ["gg"]


def test_after_reads_only_the_newer_lines(commit: Any, alice: Any, bob: Any) -> None:
    game = game_of(commit, alice, bob)
    first = say(commit, game, alice, "one")
    say(commit, game, bob, "two")
    lines = api(alice).get(chat_url(game) + f"?after={first.pk}").json()["lines"]
    assert [line["text"] for line in lines] == ["two"]
    refused = api(alice).get(chat_url(game) + "?after=last")
    assert refused.status_code == 400 and refused.json()["errors"]["after"] == ["Send the id of a line, a whole number."]


def test_a_player_sets_mute_hide_spectators_and_an_email_per_line(commit: Any, alice: Any, bob: Any, charlie: Any) -> None:
    game = game_of(commit, alice, bob, public=True)
    url = f"/api/v1/games/{game.pk}/chat/preferences/"
    answer = api(bob).patch(url, {"muted": True, "email_each_line": True}, format="json")
    assert answer.json() == {"muted": True, "spectators_hidden": False, "email_each_line": True}
    assert api(bob).patch(url, {"spectators_hidden": True}, format="json").json()["muted"] is True
    assert api(bob).patch(url, {"loud": True}, format="json").status_code == 400
    assert api(charlie).patch(url, {"muted": True}, format="json").status_code == 403
    choice = ChatPreference.objects.get(user=bob, game=game)
    assert (choice.muted, choice.spectators_hidden, choice.email_each_line) == (True, True, True)


def test_a_player_reports_a_line_once(commit: Any, alice: Any, bob: Any) -> None:
    game = game_of(commit, alice, bob)
    message = say(commit, game, alice, "rude words")
    url = f"/api/v1/games/{game.pk}/chat/report/"
    answer = api(bob).post(url, {"message_id": message.pk, "reason": "insult"}, format="json").json()
    assert answer == {"message_id": message.pk, "reported": True}
    api(bob).post(url, {"message_id": message.pk, "reason": "again"}, format="json")
    assert list(ChatReport.objects.values_list("reporter_id", "reason")) == [(bob.pk, "insult")]
    missing = api(bob).post(url, {"message_id": message.pk + 100}, format="json")
    assert missing.status_code == 404 and missing.json()["code"] == "chat_message_not_found"


def test_the_export_has_the_table_talk_only_after_the_end(commit: Any, alice: Any, bob: Any, charlie: Any) -> None:
    game = game_of(commit, alice, bob, public=True)
    say(commit, game, alice, "good luck")
    say(commit, game, charlie, "go alice", thread="spectators")
    url = f"/api/v1/games/{game.pk}/chat/export/"
    before = api(bob).get(url)
    assert before.status_code == 409 and before.json()["code"] == "chat_export_not_ready"
    assert "good luck" not in before.content.decode()
    assert api(bob).get(f"/api/v1/games/{game.pk}/export/").json()["chat"] is None
    play_to_end(game)
    both = [("players", "good luck"), ("spectators", "go alice")]
    assert [(line["thread"], line["text"]) for line in api(bob).get(url).json()["lines"]] == both
    game_export = api(bob).get(f"/api/v1/games/{game.pk}/export/").json()
    assert [(line["thread"], line["text"]) for line in game_export["chat"]] == both
    # A spectator reads the spectators' thread, as GET .../chat/ lets them, and not the players'.
    after = api(charlie).get(url).json()
    assert [(line["thread"], line["text"]) for line in after["lines"]] == [("spectators", "go alice")]
    spectator_export = api(charlie).get(f"/api/v1/games/{game.pk}/export/").json()
    assert [(line["thread"], line["text"]) for line in spectator_export["chat"]] == [("spectators", "go alice")]


def test_practice_games_have_no_table_talk(alice: Any) -> None:
    practice = game_services.practice_game_create(creator=alice, variant="base", bots=["greedy"])
    response = api(alice).post(chat_url(practice), {"text": "hi bot"}, format="json")
    assert response.status_code == 403 and response.json()["code"] == "chat_not_allowed"
