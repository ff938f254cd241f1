"""A seat holder's notes are theirs alone, during the game and after it: the
other player, a spectator, a moderator and the admin never see them, through
the API (the game, its moves, its export, the notes endpoint itself, their own
export, a player's profile), the game page and its replay, the admin, the event
stream or webhooks (storing notes writes no event at all), and no request log
holds them. Their writer sees them, escaped, on their own page.

Personas: alice writes notes on a public game she plays with bob; charlie
watches it; mona is a moderator; root is the admin."""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.test import Client

from games.models import Game, GameEvent, Seat
from streams.models import StreamEvent
from tests.games.board_helpers import page_path
from tests.games.game_helpers import client_for, play_moves
from tests.notes.notes_helpers import game_a_few_moves_in, moderator_named, notes_url
from webhooks.models import Delivery
from webhooks.selectors import delivery_payload

pytestmark = pytest.mark.django_db

# Words that appear in alice's notes and nowhere else.
NOTE = "Needle-note-qz81 <i>keep the blue</i>"
MOVE_NOTE = "Needle-move-kx42 & gold"
NEEDLES = ("Needle-note-qz81", "keep the blue", "Needle-move-kx42")


def _clean(text: str, where: str = "") -> None:
    for needle in NEEDLES:
        assert needle not in text, (needle, where)


@pytest.fixture
def game(alice: Any, bob: Any) -> Game:
    """Alice's notes are stored; then a move is played, so that the game's news
    (events, stream, webhooks) went out after them."""
    game = game_a_few_moves_in(alice, bob)
    answer = client_for(alice).put(notes_url(game), {"note": NOTE, "moves": {"1": MOVE_NOTE}}, format="json")
    assert answer.status_code == 200, answer.content
    play_moves(game, 1)
    game.refresh_from_db()
    return game


@pytest.fixture
def moderator(db: None) -> Any:
    return moderator_named("mona")


@pytest.fixture
def admin(db: None) -> Any:
    return get_user_model().objects.create_superuser("root", "root@example.com", "a long admin password")


def test_no_one_else_reads_the_notes_through_the_api(
    game: Game, alice: Any, bob: Any, charlie: Any, moderator: Any, admin: Any
) -> None:
    for reader in (bob, charlie, moderator, admin):
        client = client_for(reader, scopes=("read",))
        for path in ("", "moves/", "export/", "legal-moves/", "notes/"):
            answer = client.get(f"/api/v1/games/{game.pk}/{path}")
            assert answer.status_code == (403 if path == "notes/" and reader != bob else 200), (path, answer.content)
            _clean(answer.content.decode(), f"{reader.username} {path}")
        _clean(client.get("/api/v1/me/export/").content.decode(), f"{reader.username}'s export")
        _clean(client.get(f"/api/v1/players/{alice.username}/").content.decode(), "alice's profile")
    # Her own reads of the game carry them only where they are hers to read.
    own = client_for(alice, scopes=("read",))
    for path in ("", "moves/", "export/", "legal-moves/"):
        _clean(own.get(f"/api/v1/games/{game.pk}/{path}").content.decode(), f"alice {path}")
    _clean(own.get(f"/api/v1/players/{alice.username}/").content.decode(), "alice's profile, to alice")
    assert "Needle-move-kx42" in own.get("/api/v1/me/export/").content.decode()


def test_no_page_but_the_writers_shows_the_notes(
    game: Game, alice: Any, bob: Any, charlie: Any, moderator: Any, admin: Any
) -> None:
    for reader in (bob, charlie, moderator, admin):
        client = Client()
        client.force_login(reader)
        html = client.get(f"/games/{game.pk}/").content.decode()
        if reader != bob:  # bob's page has his own notes panel, empty
            assert 'id="notes"' not in html and "Your notes" not in html
        _clean(html, f"{reader.username}'s page")
        for ply in (1, 2, 4):
            _clean(client.get(f"/games/{game.pk}/replay/?ply={ply}").content.decode(), f"{reader.username} replay")
    # Bob opened from his link, as from an email: his page, never alice's notes.
    bobs = Client()
    bobs.get(page_path(Seat.objects.get(game=game, user=bob)))
    linked = bobs.get(f"/games/{game.pk}/").content.decode()
    _clean(linked, "bob's linked page")
    assert '<textarea id="notes-note" name="note"' in linked and 'id="notes-move-1"' not in linked  # his own, empty


def test_the_writer_sees_them_escaped_on_the_page_and_beside_the_move_in_the_replay(game: Game, alice: Any) -> None:
    own = Client()
    own.force_login(alice)
    html = own.get(f"/games/{game.pk}/").content.decode()
    assert "Needle-note-qz81 &lt;i&gt;keep the blue&lt;/i&gt;" in html and "<i>keep the blue</i>" not in html
    assert "Needle-move-kx42 &amp; gold" in html
    replay = own.get(f"/games/{game.pk}/replay/?ply=4").content.decode()
    assert "Needle-move-kx42 &amp; gold" in replay and "Needle-note-qz81" not in replay


def test_the_admin_shows_no_notes_and_refuses_to_filter_by_them(game: Game, alice: Any, admin: Any) -> None:
    staff = Client()
    staff.force_login(admin)
    seat = Seat.objects.get(game=game, user=alice)
    for path in (
        "/admin/games/game/", f"/admin/games/game/{game.pk}/change/", "/admin/games/seat/",
        f"/admin/games/seat/{seat.pk}/change/", "/admin/games/move/", "/admin/games/gameevent/",
        f"/admin/games/game/{game.pk}/board/{seat.index}/", f"/admin/auth/user/{alice.pk}/change/",
        "/admin/accounts/player/",
    ):
        answer = staff.get(path)
        assert answer.status_code == 200, path
        _clean(answer.content.decode(), path)
    assert staff.get("/admin/games/seat/", {"note__icontains": "Needle"}).status_code == 400
    assert staff.get("/admin/games/seat/", {"move_notes__icontains": "Needle"}).status_code == 400
    assert staff.get("/admin/games/game/", {"seats__note__icontains": "Needle"}).status_code == 400


def test_storing_notes_sends_no_news_and_the_news_says_nothing_of_them(game: Game, alice: Any, bob: Any) -> None:
    counts = (GameEvent.objects.count(), StreamEvent.objects.count(), Delivery.objects.count(), len(mail.outbox))
    version = game.version
    for writer in (alice, bob):
        answer = client_for(writer).put(notes_url(game), {"note": NOTE, "moves": {"0": MOVE_NOTE}}, format="json")
        assert answer.status_code == 200
    page = Client()
    page.force_login(alice)
    assert page.post(f"/games/{game.pk}/", {"action": "notes", "note": NOTE, "ply": "2", "move_note": MOVE_NOTE}).status_code == 303
    game.refresh_from_db()
    assert game.version == version
    assert (GameEvent.objects.count(), StreamEvent.objects.count(), Delivery.objects.count(), len(mail.outbox)) == counts
    # The news that went out (a move was played after the notes were stored) holds none of them.
    events = GameEvent.objects.filter(game=game)
    assert events.filter(kind=GameEvent.Kind.MOVE_PLAYED).exists()
    for event in events:
        _clean(json.dumps(delivery_payload(event=event)), f"event {event.kind}")
        _clean(json.dumps(event.payload, default=str), f"event {event.kind}")
    streamed = json.dumps(list(StreamEvent.objects.values_list("kind", "data")), default=str)
    _clean(streamed, "stream")
    for message in mail.outbox:
        _clean(str(message.message()), "email")


def test_no_request_log_holds_a_note(
    game: Game, alice: Any, charlie: Any, caplog: pytest.LogCaptureFixture, log_format: str
) -> None:
    """Requests are logged by Django (an answer of 400 and over, by path) and the
    development server (the request line); neither writes a body, and no note is
    ever put in a log line: the answers that store notes, refuse them or refuse
    their writer are each logged without them, in either LOG_FORMAT."""
    writer, stranger = client_for(alice), client_for(charlie)
    page = Client()
    page.force_login(alice)
    bad = NOTE + "\x07"
    with caplog.at_level(logging.DEBUG):
        assert writer.put(notes_url(game), {"note": NOTE, "moves": {"1": MOVE_NOTE}}, format="json").status_code == 200
        assert writer.put(notes_url(game), {"note": bad, "moves": {}}, format="json").status_code == 400
        assert writer.put(notes_url(game), {"note": "", "moves": {"99": MOVE_NOTE}}, format="json").status_code == 400
        assert stranger.put(notes_url(game), {"note": NOTE, "moves": {}}, format="json").status_code == 403
        assert stranger.get(notes_url(game)).status_code == 403
        assert page.post(f"/games/{game.pk}/", {"action": "notes", "note": NOTE}).status_code == 303
        assert page.post(f"/games/{game.pk}/", {"action": "notes", "note": bad}).status_code == 400
    assert any(record.name == "django.request" for record in caplog.records)  # the refusals were logged
    _clean(caplog.text, "the log")
    for record in caplog.records:
        _clean(record.getMessage(), record.name)


def test_a_seat_handed_to_another_player_keeps_none_of_the_last_holders_notes(
    game: Game, alice: Any, moderator: Any, dave: Any
) -> None:
    from games import moderation

    seat = Seat.objects.get(game=game, user=alice)
    moderation.moderation_seat_replace(
        game_id=game.pk, seat_index=seat.index, by_user=moderator, reason="alice asked to stop", new_user=dave
    )
    answer = client_for(dave).get(notes_url(game))
    assert answer.status_code == 200 and (answer.json()["note"], answer.json()["moves"]) == ("", {})
    _clean(json.dumps(list(Seat.objects.filter(game=game).values_list("note", "move_notes"))), "the seats")
    handed = Client()
    handed.force_login(dave)
    _clean(handed.get(f"/games/{game.pk}/").content.decode(), "dave's page")
    _clean(handed.get(f"/games/{game.pk}/replay/?ply=2").content.decode(), "dave's replay")


def test_a_seat_handed_to_the_bot_keeps_its_holders_notes(game: Game, alice: Any, moderator: Any) -> None:
    from games import moderation

    seat = Seat.objects.get(game=game, user=alice)
    moderation.moderation_seat_replace(game_id=game.pk, seat_index=seat.index, by_user=moderator, reason="away", bot=True)
    assert client_for(alice).get(notes_url(game)).json()["note"] == NOTE
