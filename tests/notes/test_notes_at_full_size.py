"""Notes at the limits the API states (2,000 characters a note, 200 notes on
moves) fit in one request: the notes' routes take bodies past the ordinary
request limit (DATA_UPLOAD_MAX_MEMORY_SIZE, 64 KiB), up to
``games.notes.text.NOTES_BODY_BYTES``; every other route keeps the ordinary one."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlencode

import engine
import pytest
from django.conf import settings
from django.test import Client

from games.models import Game, Seat
from games.notes.text import MAX_MOVE_NOTES, MAX_NOTE_LENGTH, NOTES_BODY_BYTES
from tests.games.game_helpers import client_for, play_moves, start_two_player_game
from tests.notes.notes_helpers import notes_url

pytestmark = pytest.mark.django_db

# Three bytes of UTF-8 each: a note of MAX_NOTE_LENGTH of them is 6,000 bytes.
LONG = "€" * MAX_NOTE_LENGTH


def _no_buys(state: engine.State, texts: list[str]) -> str:
    """Never buy while anything else is legal, so that the game lasts past 200 moves."""
    return next((text for text in texts if not text.startswith("buy")), texts[0])


@pytest.fixture
def long_game(alice: Any, bob: Any) -> Game:
    game = start_two_player_game(alice, bob, public=True)
    play_moves(game, MAX_MOVE_NOTES, policy=_no_buys)
    game.refresh_from_db()
    assert game.moves.count() == MAX_MOVE_NOTES
    return game


def test_every_note_at_its_longest_fits_in_one_put(long_game: Game, alice: Any) -> None:
    written = {"note": LONG, "moves": {str(ply): LONG for ply in range(MAX_MOVE_NOTES)}}
    body = json.dumps(written, ensure_ascii=False).encode()
    assert len(body) > 18 * settings.DATA_UPLOAD_MAX_MEMORY_SIZE  # far past the ordinary limit
    answer = client_for(alice).put(notes_url(long_game), body, content_type="application/json")
    assert answer.status_code == 200, answer.content[:300]
    seat = Seat.objects.get(game=long_game, user=alice)
    assert seat.note == LONG and len(seat.move_notes) == MAX_MOVE_NOTES
    assert all(text == LONG for text in seat.move_notes.values())


def test_the_same_notes_escaped_as_ascii_json_fit_too(long_game: Game, alice: Any) -> None:
    astral = "🂡" * MAX_NOTE_LENGTH  # one character, two \\uXXXX escapes: 12 bytes
    body = json.dumps({"note": astral, "moves": {str(ply): astral for ply in range(MAX_MOVE_NOTES)}}).encode()
    assert len(body) <= NOTES_BODY_BYTES
    answer = client_for(alice).put(notes_url(long_game), body, content_type="application/json")
    assert answer.status_code == 200, answer.content[:300]
    assert Seat.objects.get(game=long_game, user=alice).note == astral


def test_a_body_past_the_notes_own_limit_is_413_naming_that_limit(long_game: Game, alice: Any) -> None:
    body = b'{"note": "' + b"x" * NOTES_BODY_BYTES + b'", "moves": {}}'
    answer = client_for(alice).put(notes_url(long_game), body, content_type="application/json")
    assert answer.status_code == 413
    assert answer.json()["code"] == "payload_too_large" and answer.json()["limit"] == NOTES_BODY_BYTES
    assert Seat.objects.get(game=long_game, user=alice).note == ""


def test_other_routes_keep_the_ordinary_limit(long_game: Game, alice: Any) -> None:
    body = b'{"move": "' + b"x" * settings.DATA_UPLOAD_MAX_MEMORY_SIZE + b'"}'
    answer = client_for(alice).post(f"/api/v1/games/{long_game.pk}/moves/", body, content_type="application/json")
    assert answer.status_code == 413
    assert answer.json()["limit"] == settings.DATA_UPLOAD_MAX_MEMORY_SIZE


def test_the_pages_form_writes_long_notes_on_many_moves(long_game: Game, alice: Any) -> None:
    client = Client()
    client.force_login(alice)
    fields = {"action": "notes", "note": LONG, **{f"move-{ply}": LONG for ply in range(40)}}
    # As a browser sends the form: 40 x 6,000 bytes, percent-encoded, about 720 kB.
    answer = client.post(f"/games/{long_game.pk}/", urlencode(fields), content_type="application/x-www-form-urlencoded")
    assert answer.status_code == 303, answer.content[:300]
    seat = Seat.objects.get(game=long_game, user=alice)
    assert seat.note == LONG and len(seat.move_notes) == 40
