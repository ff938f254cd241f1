"""GET /api/v1/stream/ (docs/stream.md), served by the WSGI iterator: formats, the
snapshot, events after a move, your_turn, replays by Last-Event-ID, one stream a token."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import engine
import pytest
import time_machine
from django.utils import timezone

from games import services as game_services
from games.models import Game
from streams.models import StreamEvent
from streams.services import stream_events_prune
from tests.games.game_helpers import client_for, play_moves, start_two_player_game, user_to_move
from tests.streams.stream_helpers import WsgiStream

pytestmark = pytest.mark.django_db

SSE = "text/event-stream"
NDJSON = "application/x-ndjson"


def open_stream(client: Any, media_type: str = SSE, **headers: Any) -> WsgiStream:
    return WsgiStream(client.get("/api/v1/stream/", HTTP_ACCEPT=media_type, **headers), media_type)


@pytest.mark.parametrize("accept", ["application/json", "*/*", "text/html", ""])
def test_an_accept_without_either_format_is_406_not_acceptable(alice: Any, accept: str) -> None:
    response = client_for(alice).get("/api/v1/stream/", HTTP_ACCEPT=accept)
    assert response.status_code == 406
    body = response.json()
    assert body["code"] == "not_acceptable"
    assert "text/event-stream" in body["detail"] and "application/x-ndjson" in body["detail"]


def test_the_stream_needs_a_token(db: None) -> None:
    from rest_framework.test import APIClient

    response = APIClient().get("/api/v1/stream/", HTTP_ACCEPT=SSE)
    assert response.status_code == 401
    assert response.json()["code"] == "not_authenticated"


def test_a_read_token_may_stream(alice: Any) -> None:
    stream = open_stream(client_for(alice, scopes=("read",)))
    assert stream.next_event()["event"] == "snapshot"
    stream.close()


def test_an_event_id_that_is_not_a_number_is_a_clear_400(alice: Any) -> None:
    client = client_for(alice)
    response = client.get("/api/v1/stream/?last_event_id=abc", HTTP_ACCEPT=SSE)
    assert response.status_code == 400
    assert response.json()["code"] == "validation_error"
    assert response.json()["errors"]["last_event_id"] == ["An event id is a whole number, as the stream's `id` gave it."]
    by_header = client.get("/api/v1/stream/", HTTP_ACCEPT=SSE, HTTP_LAST_EVENT_ID="-5")
    assert by_header.status_code == 400
    assert list(by_header.json()["errors"]) == ["Last-Event-ID"]


def test_a_first_connection_starts_with_a_snapshot_of_games_and_invitations(alice: Any, bob: Any, charlie: Any) -> None:
    game = start_two_player_game(alice, bob)
    invitation = game_services.game_create(creator=charlie, variant="marvel", seats=2, invited=[alice])
    stream = open_stream(client_for(alice))
    frames = stream.raw_frames(2)
    assert frames[0] == {"retry": 3000}
    snapshot = frames[1]
    assert snapshot["event"] == "snapshot"
    assert snapshot["data"]["invitations"] == [
        {"game_id": invitation.pk, "variant": "marvel", "seats": 2, "version": invitation.version}
    ]
    [entry] = snapshot["data"]["games"]
    game.refresh_from_db()
    alice_seat = 0 if user_to_move(game) == alice else 1
    assert entry == {
        "game_id": game.pk, "variant": "base", "status": "active", "version": game.version,
        "seat": game.seats.get(user=alice).index, "to_move": game.to_move,
        "your_turn": user_to_move(game) == alice,
    }
    assert alice_seat in (0, 1)
    # Its id is the account's latest: a reconnect with it resumes right after.
    assert snapshot["id"] == max(StreamEvent.objects.filter(user=alice).values_list("seq", flat=True))
    stream.close()


def test_a_move_reaches_both_players_and_your_turn_carries_the_view_and_legal_moves(alice: Any, bob: Any) -> None:
    game = start_two_player_game(alice, bob)
    mover = user_to_move(game)
    other = bob if mover == alice else alice
    watching = open_stream(client_for(other))
    assert watching.next_event()["event"] == "snapshot"
    play_moves(game, 1)
    game.refresh_from_db()
    seen = watching.events_until("your_turn")
    kinds = [frame["event"] for frame in seen]
    assert kinds == ["move_played", "your_turn"]
    played, turn = seen
    assert played["data"]["game_id"] == game.pk and played["data"]["version"] == game.version
    assert played["data"]["seat"] != turn["data"]["seat"]
    assert turn["data"]["seat"] == game.to_move
    state = engine.from_dict(game.state)
    assert turn["data"]["view"] == engine.observe(state, game.to_move)
    api_moves = client_for(other).get(f"/api/v1/games/{game.pk}/legal-moves/").json()["moves"]
    assert turn["data"]["legal_moves"] == api_moves
    assert played["id"] + 1 == turn["id"]
    watching.close()


def test_ids_are_each_accounts_own_sequence_without_gaps(alice: Any, bob: Any, charlie: Any) -> None:
    first = start_two_player_game(alice, bob)
    second = start_two_player_game(alice, charlie)
    play_moves(first, 3)
    play_moves(second, 2)
    for user in (alice, bob, charlie):
        seqs = list(StreamEvent.objects.filter(user=user).order_by("seq").values_list("seq", flat=True))
        assert seqs == list(range(1, len(seqs) + 1))


def test_a_reconnect_with_last_event_id_replays_what_was_missed(alice: Any, bob: Any) -> None:
    game = start_two_player_game(alice, bob)
    client = client_for(alice)
    stream = open_stream(client)
    last = stream.next_event()["id"]
    stream.close()
    play_moves(game, 4)
    missed = list(StreamEvent.objects.filter(user=alice, seq__gt=last).order_by("seq").values_list("seq", "kind"))
    assert len(missed) >= 4
    for how in ("header", "query"):
        if how == "header":
            again = open_stream(client, HTTP_LAST_EVENT_ID=str(last))
        else:
            again = WsgiStream(client.get(f"/api/v1/stream/?last_event_id={last}", HTTP_ACCEPT=SSE))
        replayed = [again.next_event() for _ in missed]
        assert [(frame["id"], frame["event"]) for frame in replayed] == missed
        again.close()


def test_a_reconnect_after_the_replay_window_gets_a_snapshot(alice: Any, bob: Any) -> None:
    game = start_two_player_game(alice, bob)
    client = client_for(alice)
    stream = open_stream(client)
    last = stream.next_event()["id"]
    stream.close()
    with time_machine.travel(timezone.now() - timedelta(hours=30)):
        play_moves(game, 2)
    play_moves(game, 1)
    assert stream_events_prune() > 0
    again = open_stream(client, HTTP_LAST_EVENT_ID=str(last))
    first = again.next_event()
    assert first["event"] == "snapshot"
    assert first["id"] == max(StreamEvent.objects.filter(user=alice).values_list("seq", flat=True))
    again.close()


def test_an_id_this_account_was_never_sent_gets_a_snapshot(alice: Any, bob: Any) -> None:
    start_two_player_game(alice, bob)
    stream = open_stream(client_for(alice), HTTP_LAST_EVENT_ID="99999")
    assert stream.next_event()["event"] == "snapshot"
    stream.close()


def test_an_up_to_date_reconnect_sends_no_snapshot_and_goes_on_live(alice: Any, bob: Any) -> None:
    game = start_two_player_game(alice, bob)
    client = client_for(alice)
    latest = max(StreamEvent.objects.filter(user=alice).values_list("seq", flat=True))
    stream = open_stream(client, HTTP_LAST_EVENT_ID=str(latest))
    play_moves(game, 1)
    frame = stream.next_event()
    assert (frame["id"], frame["event"]) == (latest + 1, "move_played")
    stream.close()


def test_a_head_request_answers_the_headers_and_leaves_the_token_s_stream_open(alice: Any, bob: Any) -> None:
    # A HEAD (a proxy's or a monitor's check) opened a stream: it closed the token's
    # live one as "replaced", and under runserver it never answered.
    start_two_player_game(alice, bob)
    client = client_for(alice)
    stream = open_stream(client, NDJSON)
    stream.next_event()
    response = client.head("/api/v1/stream/", HTTP_ACCEPT=NDJSON)
    assert response.status_code == 200 and not response.streaming and response.content == b""
    assert response["Content-Type"].startswith(NDJSON)
    assert stream.raw_frames(1) == [{"event": "heartbeat"}]
    assert client.head("/api/v1/stream/", HTTP_ACCEPT="*/*").status_code == 406
    stream.close()


def test_a_second_stream_of_the_same_token_ends_the_first(alice: Any, bob: Any) -> None:
    start_two_player_game(alice, bob)
    client = client_for(alice)
    first = open_stream(client)
    first.next_event()
    second = open_stream(client, NDJSON)
    second.next_event()
    assert first.next_event() == {"event": "closed", "data": {"reason": "replaced"}}
    with pytest.raises(StopIteration):
        first.next_event()
    # Another token of the same account is a stream of its own.
    third = open_stream(client_for(alice))
    third.next_event()
    heartbeat = second.raw_frames(1)[0]
    assert heartbeat == {"event": "heartbeat"}
    second.close()
    third.close()


def test_ndjson_is_one_object_a_line_with_heartbeats(alice: Any, bob: Any) -> None:
    game = start_two_player_game(alice, bob)
    stream = open_stream(client_for(alice), NDJSON)
    assert stream.response["Content-Type"].startswith(NDJSON)
    assert stream.response["Cache-Control"] == "no-cache, no-store"
    snapshot = stream.raw_frames(1)[0]
    assert set(snapshot) == {"id", "event", "data"} and snapshot["event"] == "snapshot"
    assert stream.raw_frames(1)[0] == {"event": "heartbeat"}
    play_moves(game, 1)
    assert stream.next_event()["event"] == "move_played"
    stream.close()


def test_sse_sends_a_ping_comment_as_heartbeat(alice: Any) -> None:
    stream = open_stream(client_for(alice))
    frames = stream.raw_frames(3)
    assert frames[2] == {"comment": "ping"}
    stream.close()


def test_an_invitation_reaches_the_invitee_as_game_created(alice: Any, bob: Any) -> None:
    stream = open_stream(client_for(bob))
    stream.next_event()
    game = game_services.game_create(creator=alice, variant="base", seats=2, invited=[bob])
    created = stream.next_event()
    assert created["event"] == "game_created"
    assert created["data"]["game_id"] == game.pk and bob.pk in created["data"]["invited_ids"]
    stream.close()


def test_the_game_start_tells_the_first_player_it_is_their_turn(alice: Any, bob: Any) -> None:
    game = game_services.game_create(creator=alice, variant="base", seats=2, invited=[bob])
    game_services.seat_join(game=game, user=bob)
    game.refresh_from_db()
    first = user_to_move(game)
    kinds = list(StreamEvent.objects.filter(user=first).order_by("seq").values_list("kind", flat=True))
    assert kinds[-2:] == ["game_started", "your_turn"]
    other = bob if first == alice else alice
    assert "your_turn" not in StreamEvent.objects.filter(user=other).values_list("kind", flat=True)


def test_practice_games_are_not_streamed(alice: Any) -> None:
    from games.services import practice_game_create

    practice_game_create(creator=alice, variant="base", bots=["greedy"])
    assert not StreamEvent.objects.filter(user=alice).exists()


def test_a_finished_game_ends_with_game_finished_for_both(alice: Any, bob: Any) -> None:
    from tests.games.game_helpers import play_to_end

    game = start_two_player_game(alice, bob)
    play_to_end(game)
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    for user in (alice, bob):
        last = StreamEvent.objects.filter(user=user).order_by("-seq").first()
        assert last is not None and last.kind == "game_finished"
        assert last.data["result"] == game.result


def test_a_revoked_token_ends_its_stream(alice: Any, bob: Any) -> None:
    from accounts.models import ApiToken
    from accounts.services import token_revoke

    start_two_player_game(alice, bob)
    client = client_for(alice)
    stream = open_stream(client, NDJSON)
    stream.next_event()
    token = ApiToken.objects.filter(user=alice).latest("created_at")
    token_revoke(token=token, by_user=alice)
    assert stream.next_event() == {"event": "closed", "data": {"reason": "revoked"}}
    with pytest.raises(StopIteration):
        stream.next_event()


def test_a_suspended_players_stream_ends(alice: Any, bob: Any, charlie: Any) -> None:
    from accounts.services import player_suspend

    charlie.is_staff = True
    charlie.save()
    start_two_player_game(alice, bob)
    stream = open_stream(client_for(alice), NDJSON)
    stream.next_event()
    player_suspend(user=alice, by_user=charlie, reason="Testing the stream")
    assert stream.next_event() == {"event": "closed", "data": {"reason": "revoked"}}


def test_an_erased_accounts_stream_is_forgotten(alice: Any, bob: Any) -> None:
    from accounts.services import player_erase
    from streams.models import StreamConnection, StreamCursor

    game = start_two_player_game(alice, bob)
    stream = open_stream(client_for(alice))
    stream.next_event()
    stream.close()
    play_moves(game, 2)
    assert StreamEvent.objects.filter(user=alice).exists()
    player_erase(user=alice)
    assert not StreamEvent.objects.filter(user=alice).exists()
    assert not StreamCursor.objects.filter(user=alice).exists()
    assert not StreamConnection.objects.filter(token__user=alice).exists()
    assert StreamEvent.objects.filter(user=bob).exists()


def test_closing_a_stream_in_the_tests_ends_it_on_the_server_at_once(alice: Any) -> None:
    # WsgiStream.close() must reach the view's generator: left to the garbage
    # collector, its clean-up query once ran inside another test's query on the same
    # PostgreSQL connection and hung it.
    from streams.models import StreamConnection

    stream = open_stream(client_for(alice))
    assert stream.next_event()["event"] == "snapshot"
    assert StreamConnection.objects.filter(token__user=alice).count() == 1
    stream.close()
    assert StreamConnection.objects.filter(token__user=alice).count() == 0
