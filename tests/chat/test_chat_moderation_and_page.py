"""A moderator hides a line from the admin, with a reason, and closes reports; the
game page's panel: writing, a refusal kept in the box, the mute and hide toggles,
the report button, and what a spectator sees."""

from __future__ import annotations

import html
from typing import Any

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from chat.models import ChatMessage, ChatPreference, ChatReport
from games.models import ModerationEntry, Seat
from tests.chat.chat_helpers import game_of, make_moderator, say
from tests.games.page_helpers import opened

pytestmark = pytest.mark.django_db

LINES = "/admin/chat/chatmessage/"


def _admin(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _page(client: Client, game: Any) -> str:
    return html.unescape(client.get(f"/games/{game.pk}/").content.decode())


def test_a_moderator_hides_a_line_from_the_admin_with_a_reason(commit: Any, alice: Any, bob: Any, dave: Any) -> None:
    game = game_of(commit, alice, bob)
    message = say(commit, game, alice, "buy my gold, cheap")
    ChatReport.objects.create(message=message, reporter=bob, created_at=message.created_at)
    client = _admin(make_moderator(dave))
    asked = client.post(LINES, {"action": "chat_hide", "_selected_action": [message.pk]})
    assert asked.status_code == 200 and 'name="reason"' in asked.content.decode()
    refused = client.post(LINES, {"action": "chat_hide", "_selected_action": [message.pk], "post": "yes", "reason": " "})
    assert refused.status_code == 200 and not ModerationEntry.objects.exists()
    done = client.post(LINES, {"action": "chat_hide", "_selected_action": [message.pk], "post": "yes", "reason": "Spam"})
    assert done.status_code == 302
    message.refresh_from_db()
    assert message.is_hidden and message.hidden_reason == "Spam" and message.hidden_by_id == dave.pk
    assert ModerationEntry.objects.get().action == "chat_message_hidden"
    assert ChatReport.objects.get().resolved_at is not None


def test_the_chat_admin_is_for_moderators_only(commit: Any, alice: Any, bob: Any, charlie: Any) -> None:
    charlie.is_staff = True
    charlie.save()
    assert _admin(charlie).get(LINES).status_code == 403


def test_the_chat_lists_name_the_author_and_the_reporter(commit: Any, alice: Any, bob: Any, dave: Any) -> None:
    game = game_of(commit, alice, bob)
    message = say(commit, game, alice, "buy my gold, cheap")
    ChatReport.objects.create(message=message, reporter=bob, created_at=message.created_at)
    client = _admin(make_moderator(dave))

    lines = client.get(LINES).content.decode()
    reports = client.get("/admin/chat/chatreport/").content.decode()

    assert "buy my gold, cheap" in lines
    assert '<td class="field-author_name">alice</td>' in lines
    assert '<td class="field-message_author">alice</td>' in reports
    assert '<td class="field-reporter_name">bob</td>' in reports


def test_the_chat_lists_read_the_names_without_a_query_per_row(
    commit: Any, alice: Any, bob: Any, dave: Any, django_assert_max_num_queries: Any
) -> None:
    game = game_of(commit, alice, bob)
    first = say(commit, game, alice, "one")
    ChatReport.objects.create(message=first, reporter=bob, created_at=first.created_at)
    client = _admin(make_moderator(dave))
    with CaptureQueriesContext(connection) as one_row:
        assert client.get(LINES).status_code == 200
        assert client.get("/admin/chat/chatreport/").status_code == 200
    for text in ("two", "three", "four"):
        line = say(commit, game, bob, text)
        ChatReport.objects.create(message=line, reporter=alice, created_at=line.created_at)

    with django_assert_max_num_queries(len(one_row)):
        assert client.get(LINES).status_code == 200
        assert client.get("/admin/chat/chatreport/").status_code == 200


def test_a_moderator_closes_reports_and_leaves_the_line(commit: Any, alice: Any, bob: Any, dave: Any) -> None:
    game = game_of(commit, alice, bob)
    message = say(commit, game, alice, "fine words")
    report = ChatReport.objects.create(message=message, reporter=bob, created_at=message.created_at)
    _admin(make_moderator(dave)).post(
        "/admin/chat/chatreport/", {"action": "chat_reports_dismiss", "_selected_action": [report.pk]}
    )
    report.refresh_from_db()
    message.refresh_from_db()
    assert report.resolved_at is not None and not message.is_hidden


def test_a_player_writes_on_the_page_and_sees_the_line_in_the_panel(commit: Any, alice: Any, bob: Any) -> None:
    game = game_of(commit, alice, bob)
    browser = opened(Seat.objects.get(game=game, user=alice))
    with commit():
        browser.post(f"/games/{game.pk}/chat/", {"action": "say", "thread": "players", "text": "<i>hi</i> bob"})
    raw = browser.get(f"/games/{game.pk}/").content.decode()
    assert "&lt;i&gt;hi&lt;/i&gt; bob" in raw and "<i>hi</i>" not in raw  # plain text, escaped
    assert ChatMessage.objects.get().author == alice


def test_a_refused_line_comes_back_in_the_box_with_the_reason(commit: Any, alice: Any, bob: Any) -> None:
    game = game_of(commit, alice, bob)
    browser = opened(Seat.objects.get(game=game, user=alice))
    long_text = "y" * 501
    browser.post(f"/games/{game.pk}/chat/", {"action": "say", "thread": "players", "text": long_text})
    shown = _page(browser, game)
    assert "Keep a message to 500 characters; this one has 501." in shown
    assert f">{long_text}</textarea>" in shown
    assert not ChatMessage.objects.exists()
    assert "Keep a message" not in _page(browser, game)  # said once


def test_the_mute_and_hide_toggles_and_the_report_button_work_from_the_page(
    commit: Any, alice: Any, bob: Any, charlie: Any
) -> None:
    game = game_of(commit, alice, bob, public=True)
    line = say(commit, game, charlie, "from the stands", thread="spectators")
    browser = opened(Seat.objects.get(game=game, user=bob))
    assert "from the stands" in _page(browser, game)
    browser.post(f"/games/{game.pk}/chat/", {"action": "report", "message_id": str(line.pk)})
    assert "Reported to the moderators." in _page(browser, game)
    assert ChatReport.objects.get().reporter == bob
    browser.post(f"/games/{game.pk}/chat/", {"action": "hide_spectators"})
    assert "from the stands" not in _page(browser, game)
    browser.post(f"/games/{game.pk}/chat/", {"action": "mute"})
    choice = ChatPreference.objects.get(user=bob, game=game)
    assert choice.muted and choice.spectators_hidden
    assert "You muted this game's table talk" in _page(browser, game)
    browser.post(f"/games/{game.pk}/chat/", {"action": "unmute"})
    browser.post(f"/games/{game.pk}/chat/", {"action": "show_spectators"})
    assert "from the stands" in _page(browser, game)


def test_an_anonymous_spectator_reads_the_spectators_thread_and_is_asked_to_log_in_to_write(
    commit: Any, alice: Any, bob: Any, charlie: Any
) -> None:
    game = game_of(commit, alice, bob, public=True)
    say(commit, game, charlie, "what a move", thread="spectators")
    anonymous = Client()
    shown = _page(anonymous, game)
    assert "what a move" in shown and "Log in to write in the spectators' thread." in shown
    assert 'name="text"' not in shown
    posted = anonymous.post(f"/games/{game.pk}/chat/", {"action": "say", "thread": "spectators", "text": "hi"})
    assert posted.status_code == 302 and not ChatMessage.objects.filter(text="hi").exists()


def test_a_signed_in_spectator_writes_in_the_spectators_thread_from_the_page(
    commit: Any, alice: Any, bob: Any, charlie: Any
) -> None:
    game = game_of(commit, alice, bob, public=True)
    spectator = _admin(charlie)
    with commit():
        spectator.post(f"/games/{game.pk}/chat/", {"action": "say", "thread": "spectators", "text": "go go go"})
    assert ChatMessage.objects.get().thread == "spectators"
    shown = _page(spectator, game)
    assert "go go go" in shown and "Say something to the other spectators:" in shown
    assert "Say something to the other players:" not in shown


def test_the_panel_speaks_italian_to_an_italian_player(commit: Any, alice: Any, bob: Any) -> None:
    game = game_of(commit, alice, bob)
    bob.player.language = "it"
    bob.player.save()
    browser = opened(Seat.objects.get(game=game, user=bob))
    shown = _page(browser, game)
    assert "Chiacchiere al tavolo" in shown and "Silenzia le chiacchiere al tavolo" in shown
