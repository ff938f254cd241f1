"""GET /api/v1/me/export/: a player's own data — account, tokens without secrets,
games with seats and moves — and nothing they may not see: no other player's
blind-reserved card, no seed of an unfinished game."""

from __future__ import annotations

import hashlib
import json
from typing import Any

import pytest
from tests.games.game_helpers import client_for, play_moves, play_to_end, start_two_player_game, user_to_move

from accounts.models import ApiToken
from games import services
from games.models import Game, Move, Seat

pytestmark = pytest.mark.django_db


def export_of(user: Any) -> dict[str, Any]:
    answer = client_for(user, scopes=("read",)).get("/api/v1/me/export/")
    assert answer.status_code == 200
    return answer.json()


def test_the_export_has_the_account_and_the_tokens_but_no_secret(alice: Any) -> None:
    client = client_for(alice, scopes=("read",))
    body = client.get("/api/v1/me/export/").json()
    assert body["account"]["username"] == "alice"
    assert body["account"]["email"] == "alice@example.com"
    assert body["account"]["display_name"] == "Alice"
    assert body["account"]["has_password"] is False
    token = ApiToken.objects.get(user=alice)
    assert [t["prefix"] for t in body["tokens"]] == [token.prefix]
    assert "token" not in body["tokens"][0] and token.key_hash not in json.dumps(body)


def test_the_export_lists_every_game_with_its_seats_and_moves(alice: Any, bob: Any, charlie: Any) -> None:
    finished = start_two_player_game(alice, bob)
    play_to_end(finished)
    active = start_two_player_game(bob, alice)
    play_moves(active, 3)
    invited = services.game_create(creator=charlie, seats=2, invited=[alice])
    not_hers = start_two_player_game(bob, charlie)
    games = {game["id"]: game for game in export_of(alice)["games"]}
    assert set(games) == {finished.pk, active.pk, invited.pk} and not_hers.pk not in games
    finished.refresh_from_db()
    assert games[finished.pk]["seed"] == finished.seed
    assert len(games[finished.pk]["moves"]) == Move.objects.filter(game=finished).count()
    assert [m["move"] for m in games[active.pk]["moves"]] == list(
        Move.objects.filter(game=active).order_by("ply").values_list("text", flat=True)
    )
    assert {seat["username"] for seat in games[active.pk]["seats"]} == {"alice", "bob"}
    assert games[active.pk]["your_seat"] == Seat.objects.get(game=active, user=alice).index


def test_the_export_holds_no_seed_of_an_unfinished_game_and_no_other_players_blind_card(
    alice: Any, bob: Any
) -> None:
    game = start_two_player_game(alice, bob)
    blind_reserver = user_to_move(game)
    other = bob if blind_reserver == alice else alice
    answer = client_for(blind_reserver).post(
        f"/api/v1/games/{game.pk}/moves/", {"move": "reserve deck1", "expected_version": game.version}, format="json"
    )
    assert answer.status_code == 201
    play_moves(game, 1)
    game.refresh_from_db()
    private_card = Move.objects.get(game=game, ply=0).private_card

    own = export_of(blind_reserver)
    assert own["games"][0]["moves"][0]["private_card"] == private_card
    theirs = export_of(other)
    text = json.dumps(theirs)
    assert "private_card" not in text and f'"{private_card}"' not in text
    assert theirs["games"][0]["seed"] is None
    assert game.seed not in text and game.seed not in json.dumps(own)
    assert theirs["games"][0]["seed_commitment"] == hashlib.sha256(game.seed.encode()).hexdigest()


def test_an_aborted_game_that_never_started_has_no_seed(alice: Any, bob: Any) -> None:
    game = services.game_create(creator=alice, seats=2, invited=[bob])
    services.game_cancel(game_id=game.pk, user=alice)
    assert export_of(alice)["games"][0]["status"] == Game.Status.ABORTED
    assert export_of(alice)["games"][0]["seed"] is None


def test_the_export_takes_a_fixed_number_of_queries_however_many_games(
    alice: Any, bob: Any, django_assert_max_num_queries: Any
) -> None:
    for _ in range(4):
        play_moves(start_two_player_game(alice, bob), 2)
    client = client_for(alice, scopes=("read",))
    client.get("/api/v1/me/export/")  # the token's once-a-minute record of its last use
    with django_assert_max_num_queries(6):
        assert len(client.get("/api/v1/me/export/").json()["games"]) == 4


def test_the_export_needs_a_token(db: None) -> None:
    from rest_framework.test import APIClient

    assert APIClient().get("/api/v1/me/export/").status_code == 401
