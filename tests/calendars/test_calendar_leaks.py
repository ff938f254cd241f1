"""What the deadlines calendar must never give away.

- The secret of its address: not in any log line (the request log of a fetch, a
  refused old secret, a rotation), not in the account's export, not in the admin.
- Hidden information: no deck card, no blind-reserved card, no seed, in any
  player's feed (the feed never reads the game's state).
- Another account's games: a secret opens its own account's calendar alone.

Personas: alice subscribes; bob and charlie play her; mallory holds an address
of her own and tries to see the others' games through it.
"""

from __future__ import annotations

import logging
import re
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from accounts.models import CalendarFeed
from accounts.services import calendar_feed_get, calendar_feed_rotate
from api.log_redaction import RedactUsernamesInPaths
from games.models import Game, Seat
from tests.calendars.calendar_helpers import feed_path, fetch, game_of, games_waiting_on, parsed, turn_events
from tests.games.board_helpers import blind_reserve_game, deck_card_ids, first_take, play
from tests.games.game_helpers import client_for, make_player

pytestmark = pytest.mark.django_db


def test_no_log_line_of_a_fetch_a_refusal_or_a_rotation_holds_the_secret(
    alice: Any, bob: Any, caplog: pytest.LogCaptureFixture, log_format: str
) -> None:
    games_waiting_on(alice, bob)
    old = calendar_feed_get(user=alice).secret
    with caplog.at_level(logging.DEBUG):
        assert Client().get(f"/calendar/{old}.ics").status_code == 200
        rotated = client_for(alice, ("play",)).post("/api/v1/me/calendar/rotate/")
        assert rotated.status_code == 200
        new = CalendarFeed.objects.get(user=alice).secret
        assert Client().get(f"/calendar/{old}.ics").status_code == 404  # django.request logs "Not Found: <path>"
        assert Client().get(f"/calendar/{new}.ics").status_code == 200
    assert "/calendar/{secret}.ics" in caplog.text  # the refusal was logged, without the secret
    assert old not in caplog.text and new not in caplog.text
    assert old[:12] not in caplog.text and new[:12] not in caplog.text


def test_the_development_servers_request_line_is_written_without_the_secret(alice: Any) -> None:
    secret = calendar_feed_get(user=alice).secret
    record = logging.LogRecord(
        "django.server", logging.INFO, __file__, 1, '"%s" %s %s', (f"GET /calendar/{secret}.ics HTTP/1.1", "200", "512"), None
    )
    RedactUsernamesInPaths().filter(record)
    assert secret not in record.getMessage()
    assert record.getMessage().startswith('"GET /calendar/{secret}.ics HTTP/1.1"')


def test_the_account_export_never_holds_the_calendar_secret(alice: Any, bob: Any) -> None:
    games_waiting_on(alice, bob)
    client = client_for(alice, ("read",))
    secret = calendar_feed_get(user=alice).secret
    export = client.get("/api/v1/me/export/")
    assert export.status_code == 200
    assert secret not in export.content.decode()
    assert "/calendar/" not in export.content.decode()


def test_the_admin_shows_that_a_calendar_address_exists_and_its_last_four_characters_only(
    alice: Any, client: Any
) -> None:
    root = get_user_model().objects.create_superuser("root", "root@example.com", "pw-for-tests-only")
    client.force_login(root)
    player = alice.player
    assert "none yet" in client.get(f"/admin/accounts/player/{player.pk}/change/").content.decode()
    secret = calendar_feed_get(user=alice).secret
    page = client.get(f"/admin/accounts/player/{player.pk}/change/").content.decode()
    listing = client.get("/admin/accounts/player/").content.decode()
    assert f"…{secret[-4:]}" in page
    assert secret not in page and secret[:8] not in page
    assert secret not in listing and secret[:8] not in listing
    assert client.get("/admin/accounts/calendarfeed/").status_code == 404  # no list of secrets


def test_no_feed_of_a_game_with_a_blind_reserve_holds_a_hidden_card_or_the_seed() -> None:
    game, reserver, card = blind_reserve_game("base")
    hidden = deck_card_ids(game) | {card}
    game.refresh_from_db()
    seed = game.seed
    assert seed and hidden
    feeds: dict[int, bytes] = {}
    for _ in range(3):  # each seat's turn in turn: every player's feed shows the game once
        to_move = Seat.objects.get(game=game, index=game.to_move).user
        body = fetch(to_move).content
        assert [game_of(event) for event in turn_events(parsed(to_move))] == [game.pk]
        feeds[to_move.pk] = body
        play(game, first_take(game))
    assert len(feeds) == 3
    for body in feeds.values():
        text = body.decode()
        assert seed not in text and game.seed_commitment not in text
        # A card id (1-05) on its own, not inside a date (2026-12-05) or a time.
        assert [hidden_card for hidden_card in hidden if re.search(rf"(?<![\w-]){hidden_card}(?![\w-])", text)] == []


def test_an_accounts_secret_never_opens_another_accounts_games(alice: Any, bob: Any, charlie: Any) -> None:
    games = games_waiting_on(alice, bob, charlie)
    mallory = make_player("mallory")
    mine = parsed(mallory)
    assert turn_events(mine) == []
    assert all(game.pk not in fetch(mallory).content.decode() for game in games)
    # bob plays alice: the game at her turn is in her feed alone.
    assert turn_events(parsed(bob)) == []
    assert {game_of(event) for event in turn_events(parsed(alice))} == {game.pk for game in games}


def test_a_rotated_secret_cannot_be_used_to_read_the_new_calendar(alice: Any, bob: Any) -> None:
    games_waiting_on(alice, bob)
    old = feed_path(alice)
    calendar_feed_rotate(user=alice)
    answer = Client().get(old)
    assert answer.status_code == 404 and b"VEVENT" not in answer.content and b"Bob" not in answer.content
    assert Game.objects.count() == 1
