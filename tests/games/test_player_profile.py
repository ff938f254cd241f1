"""GET /api/v1/players/{username}/: what anyone with a `read` token may see of a
player — display name, the day they joined, games played and won per variant."""

from __future__ import annotations

from typing import Any

import pytest
from tests.games.game_helpers import client_for, play_to_end, start_two_player_game

from accounts.services import player_disable, player_erase, signup_start
from games import services
from games.models import Game, Seat

pytestmark = pytest.mark.django_db


def profile(viewer: Any, username: str) -> Any:
    return client_for(viewer, scopes=("read",)).get(f"/api/v1/players/{username}/")


def test_a_profile_shows_the_display_name_and_the_day_they_joined(alice: Any, charlie: Any) -> None:
    answer = profile(charlie, "alice")
    assert answer.status_code == 200
    body = answer.json()
    assert body["username"] == "alice" and body["display_name"] == "Alice"
    assert body["joined_at"].startswith(alice.date_joined.strftime("%Y-%m-%d"))
    assert body["games"] == {"base": {"played": 0, "won": 0}, "marvel": {"played": 0, "won": 0}}
    assert "email" not in body


def test_a_profile_counts_finished_games_played_and_won_per_variant(alice: Any, bob: Any, charlie: Any) -> None:
    for variant in ("base", "base", "marvel"):
        play_to_end(start_two_player_game(alice, bob, variant=variant))
    resigned = start_two_player_game(alice, bob)
    services.game_resign(game=resigned, user=alice)
    start_two_player_game(alice, bob)  # still going: not counted
    expected = {"base": {"played": 0, "won": 0}, "marvel": {"played": 0, "won": 0}}
    for game in Game.objects.filter(status=Game.Status.FINISHED):
        seat = Seat.objects.get(game=game, user=alice).index
        expected[game.variant]["played"] += 1
        expected[game.variant]["won"] += seat in game.result["winners"]
    assert expected["base"]["played"] == 3 and expected["marvel"]["played"] == 1
    assert profile(charlie, "alice").json()["games"] == expected


def test_the_username_is_found_in_any_case(alice: Any, charlie: Any) -> None:
    assert profile(charlie, "ALICE").json()["username"] == "alice"


def test_unknown_unverified_disabled_and_erased_players_are_not_found(
    alice: Any, bob: Any, charlie: Any, dave: Any
) -> None:
    signup_start(username="erin", email="erin@example.com", password="a long and unusual passphrase", client="192.0.2.1")
    player_disable(user=bob)
    player_erase(user=dave)
    for username in ("nobody", "erin", "bob", "dave", f"deleted-{dave.pk}", "a\x00b"):
        answer = profile(charlie, username)
        assert answer.status_code == 404, username
        assert answer.json()["code"] == "player_not_found"


def test_a_read_token_is_enough_and_no_token_is_not(alice: Any) -> None:
    from rest_framework.test import APIClient

    assert profile(alice, "alice").status_code == 200
    assert APIClient().get("/api/v1/players/alice/").status_code == 401


def test_a_profile_lookup_that_fails_is_logged_without_the_username(charlie: Any, caplog: Any, log_format: str) -> None:
    profile(charlie, "someone-secret")
    assert "/api/v1/players/{username}/" in caplog.text
    assert "someone-secret" not in caplog.text
