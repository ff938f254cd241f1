"""What table talk must never tell: a private game's lines to its strangers (API,
page, stream, webhooks), the players' thread to spectators, anything to a player
who muted the chat, an erased author's words, a hidden line's words after it was
hidden, the lines before the game's end in its export, and anything of the board
in a ``chat`` event.

The stream is read as it is stored (``StreamEvent``, what /api/v1/stream/ sends
each account), and webhooks as their selectors choose endpoints and write bodies
(what an attempt posts), so that no request leaves the test."""

from __future__ import annotations

import html
import json
from typing import Any

import pytest
from django.core import mail
from django.test import Client

from accounts.services import player_erase
from chat import services
from chat.models import ChatMessage
from games.models import Game, GameEvent, ModerationEntry, Seat
from streams.models import StreamEvent
from tests.chat.chat_helpers import api, chat_url, game_of, make_moderator, say
from tests.games.game_helpers import play_to_end
from tests.games.page_helpers import opened
from tests.notifications.email_helpers import play
from tests.notifications.inbound.mail_helpers import latest
from webhooks.models import Endpoint
from webhooks.selectors import delivery_body, endpoints_for_event

pytestmark = pytest.mark.django_db

SECRET = "meet me at the noble tile"


@pytest.fixture(autouse=True)
def _no_webhook_requests(game_extensions: Any) -> None:
    # Deliveries are read from the selectors, never sent.
    game_extensions.hearing("email", "reminders", "ratings", "chat")


def _stream_text(user: Any) -> str:
    return json.dumps(list(StreamEvent.objects.filter(user=user).values_list("kind", "data")))


def _chat_rows(user: Any) -> list[dict[str, Any]]:
    return list(StreamEvent.objects.filter(user=user, kind="chat").values_list("data", flat=True))


def _hooked(*users: Any) -> dict[int, Endpoint]:
    return {u.pk: Endpoint.objects.create(owner=u, url=f"https://hooks.example/{u.username}") for u in users}


def _event_of(message: ChatMessage) -> GameEvent:
    return GameEvent.objects.get(kind="chat", payload__message_id=message.pk)


def _logged_in(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


# --- strangers of a private game ------------------------------------------------------------


def test_a_stranger_of_a_private_game_learns_nothing_of_its_chat(commit: Any, alice: Any, bob: Any, charlie: Any) -> None:
    hooks = _hooked(alice, bob, charlie)
    game = game_of(commit, alice, bob)
    message = say(commit, game, alice, SECRET)
    # API
    for response in (api(charlie).get(chat_url(game)), api(charlie).get(f"/api/v1/games/{game.pk}/chat/export/")):
        assert response.status_code == 404 and SECRET not in response.content.decode()
    # Page: the game, and the chat's form, answer as for no game.
    browser = _logged_in(charlie)
    assert browser.get(f"/games/{game.pk}/").status_code == 404
    posted = browser.post(f"/games/{game.pk}/chat/", {"action": "say", "text": "let me in"})
    assert posted.status_code == 404
    assert not ChatMessage.objects.filter(author=charlie).exists()
    # Stream and webhooks: only bob hears of alice's line.
    assert _chat_rows(charlie) == [] and SECRET not in _stream_text(charlie)
    assert [row["text"] for row in _chat_rows(bob)] == [SECRET]
    assert _chat_rows(alice) == []  # the author is not told her own line
    assert endpoints_for_event(event=_event_of(message)) == [hooks[bob.pk]]


# --- spectators and the players' thread ----------------------------------------------------


def test_a_spectator_never_sees_the_players_thread(commit: Any, alice: Any, bob: Any, charlie: Any) -> None:
    hooks = _hooked(charlie)
    game = game_of(commit, alice, bob, public=True)
    message = say(commit, game, alice, SECRET)
    say(commit, game, bob, "visible to all", thread="players")
    charlie_line = say(commit, game, charlie, "watching closely", thread="spectators")
    assert api(charlie).get(chat_url(game)).status_code == 403
    for browser in (_logged_in(charlie), Client()):  # a signed-in spectator and an anonymous one
        shown = html.unescape(browser.get(f"/games/{game.pk}/").content.decode())
        assert "watching closely" in shown  # the spectators' thread is theirs
        assert SECRET not in shown and "visible to all" not in shown
    assert SECRET not in _stream_text(charlie)
    assert endpoints_for_event(event=_event_of(message)) == []
    # The spectator's own line reaches the players (who have not hidden the thread), not its author.
    assert hooks[charlie.pk] not in endpoints_for_event(event=_event_of(charlie_line))
    assert [row["text"] for row in _chat_rows(bob) if row["thread"] == "spectators"] == ["watching closely"]


def test_a_player_who_hid_the_spectators_thread_hears_nothing_of_it(
    commit: Any, alice: Any, bob: Any, charlie: Any
) -> None:
    game = game_of(commit, alice, bob, public=True)
    services.chat_preferences_set(game_id=game.pk, user=bob, spectators_hidden=True)
    say(commit, game, charlie, "boo", thread="spectators")
    assert _chat_rows(bob) == [] and [row["text"] for row in _chat_rows(alice)] == ["boo"]
    shown = html.unescape(opened(Seat.objects.get(game=game, user=bob)).get(f"/games/{game.pk}/").content.decode())
    assert "boo" not in shown and "Show the spectators&#x27; thread" not in shown
    assert "Show the spectators' thread" in shown


# --- a player who muted the chat -----------------------------------------------------------


def test_a_muted_player_gets_no_chat_on_the_stream_by_webhook_in_email_or_on_the_page(
    clock: Any, commit: Any, alice: Any, bob: Any
) -> None:
    hooks = _hooked(bob)
    game = game_of(commit, alice, bob)
    services.chat_preferences_set(game_id=game.pk, user=bob, muted=True)
    mover = Seat.objects.select_related("user").get(game=game, index=game.to_move).user
    other = bob if mover == alice else alice
    message = say(commit, game, alice, SECRET)
    assert _chat_rows(bob) == []
    assert hooks[bob.pk] not in endpoints_for_event(event=_event_of(message))
    shown = html.unescape(opened(Seat.objects.get(game=game, user=bob)).get(f"/games/{game.pk}/").content.decode())
    assert SECRET not in shown and "Unmute table talk" in shown
    play(commit, game)
    if other == bob:
        play(commit, game)
        play(commit, game)
    assert all(SECRET not in m.body for m in mail.outbox if bob.email in m.to)
    assert any(bob.email in m.to for m in mail.outbox)


# --- an erased author ----------------------------------------------------------------------


def test_an_erased_authors_lines_show_as_a_deleted_player_without_their_text_everywhere(
    commit: Any, alice: Any, bob: Any
) -> None:
    _hooked(bob)
    game = game_of(commit, alice, bob)
    message = say(commit, game, alice, SECRET)
    event = _event_of(message)
    assert SECRET in delivery_body(event=event)
    with commit():
        player_erase(user=alice)
    lines = api(bob).get(chat_url(game)).json()["lines"]
    assert lines[0]["author"] == f"deleted player {alice.pk}"
    assert lines[0]["text"] == "" and lines[0]["erased"] is True
    event.refresh_from_db()
    assert SECRET not in json.dumps(event.payload) and event.payload["erased"] is True
    assert SECRET not in delivery_body(event=event)
    assert SECRET not in json.dumps(_chat_rows(bob))
    assert not ChatMessage.objects.filter(text__contains="noble tile").exists()
    shown = html.unescape(opened(Seat.objects.get(game=game, user=bob)).get(f"/games/{game.pk}/").content.decode())
    assert SECRET not in shown and f"deleted player {alice.pk}" in shown
    play_to_end(Game.objects.get(pk=game.pk))
    assert SECRET not in api(bob).get(f"/api/v1/games/{game.pk}/chat/export/").content.decode()
    exported = api(bob).get(f"/api/v1/games/{game.pk}/export/").json()["chat"]
    assert exported and SECRET not in json.dumps(exported) and exported[0]["erased"] is True


# --- a hidden line ---------------------------------------------------------------------------


def test_a_hidden_lines_text_is_shown_to_nobody_after_a_moderator_hid_it(
    clock: Any, commit: Any, alice: Any, bob: Any, dave: Any
) -> None:
    _hooked(bob)
    game = game_of(commit, alice, bob)
    message = say(commit, game, alice, SECRET)
    moderator = make_moderator(dave)
    assert services.chat_message_hide(message_id=message.pk, by_user=moderator, reason="spam") is True
    entry = ModerationEntry.objects.get(action="chat_message_hidden")
    assert (entry.game_id, entry.user_id, entry.target_user_id, entry.reason) == (game.pk, dave.pk, alice.pk, "spam")
    assert SECRET not in json.dumps(entry.details)
    line = api(bob).get(chat_url(game)).json()["lines"][0]
    assert (line["text"], line["hidden"]) == ("", True)
    assert SECRET not in delivery_body(event=_event_of(message))
    assert SECRET not in json.dumps(_chat_rows(bob))
    shown = html.unescape(opened(Seat.objects.get(game=game, user=bob)).get(f"/games/{game.pk}/").content.decode())
    assert SECRET not in shown and "hidden by a moderator" in shown
    # Nor in the next game email.
    play(commit, game)
    play(commit, game)
    assert all(SECRET not in m.body and SECRET not in str(m.alternatives) for m in mail.outbox)


# --- the export ----------------------------------------------------------------------------------


def test_no_chat_in_any_export_before_the_end(commit: Any, alice: Any, bob: Any) -> None:
    game = game_of(commit, alice, bob)
    say(commit, game, alice, SECRET)
    for url in (f"/api/v1/games/{game.pk}/export/", f"/api/v1/games/{game.pk}/chat/export/", "/api/v1/me/export/"):
        assert SECRET not in api(bob).get(url).content.decode()


# --- nothing of the board ----------------------------------------------------------------------


def test_a_chat_events_data_carries_nothing_of_the_board(commit: Any, alice: Any, bob: Any) -> None:
    game = game_of(commit, alice, bob)
    message = say(commit, game, alice, "hi")
    event = _event_of(message)
    expected = {"game_id", "version", "message_id", "thread", "author_id", "seat", "text"}
    assert set(event.public_data()) == expected
    assert set(json.loads(delivery_body(event=event))["data"]) == expected
    assert [set(row) for row in _chat_rows(bob)] == [expected]


def test_a_line_makes_nobodys_turn(commit: Any, alice: Any, bob: Any) -> None:
    game = game_of(commit, alice, bob)
    turns = StreamEvent.objects.filter(kind="your_turn").count()
    say(commit, game, alice, "hi")
    say(commit, game, bob, "hello")
    assert StreamEvent.objects.filter(kind="your_turn").count() == turns
    assert StreamEvent.objects.filter(kind="chat").count() == 2
