"""How many SQL queries one turn's requests make, pinned so that they cannot creep back.

A turn is GET legal-moves and POST moves. Each ORM query costs most of a
millisecond of CPU to build and read, and the server's CPU per turn is what
limits turns per second (docs/benchmarks.md, "REST API under load"). The
counts hold on PostgreSQL and SQLite alike; BEGIN and COMMIT count as queries.
"""

from __future__ import annotations

from typing import Any

import engine
import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from games import services
from games.models import Game, GameEvent, Move
from tests.games.game_helpers import client_for, start_two_player_game, state_of, user_to_move

pytestmark = pytest.mark.django_db

LEGAL_MOVES_QUERIES = 2  # the token with its user and player; the game with the caller's seat (and who may see it)
# the token; BEGIN; lock the game; its seats; insert the move; its event; the players'
# event stream ids (one upsert) and events; update the game; COMMIT
MOVE_QUERIES = 9
GAME_QUERIES = 3  # the token; the game with its creator; its seats with their users and players


def warmed_up(client: APIClient) -> APIClient:
    # A token records its last use at most once a minute; make that write now, outside the counts.
    client.get("/api/v1/me/")
    return client


def a_take(game: Game) -> str:
    texts = [engine.format_move(m) for m in engine.legal_moves(state_of(game))]
    return next(t for t in texts if t.startswith("take ") and " return " not in t)


def test_legal_moves_read_the_game_and_the_callers_seat_in_one_query(
    active_game: Game, django_assert_max_num_queries: Any
) -> None:
    client = warmed_up(client_for(user_to_move(active_game)))
    with django_assert_max_num_queries(LEGAL_MOVES_QUERIES):
        answer = client.get(f"/api/v1/games/{active_game.pk}/legal-moves/")
    assert answer.status_code == 200 and answer.json()["moves"]


def test_a_spectators_legal_moves_cost_the_same(
    alice: Any, bob: Any, charlie: Any, django_assert_max_num_queries: Any
) -> None:
    watched = start_two_player_game(alice, bob, public=True)
    client = warmed_up(client_for(charlie))
    with django_assert_max_num_queries(LEGAL_MOVES_QUERIES):
        answer = client.get(f"/api/v1/games/{watched.pk}/legal-moves/")
    assert answer.json()["moves"] == [] and answer.json()["your_seat"] is None


def test_a_move_locks_the_game_with_its_seats_and_writes_each_table_once(
    active_game: Game, django_assert_max_num_queries: Any
) -> None:
    client = warmed_up(client_for(user_to_move(active_game)))
    body = {"move": a_take(active_game), "expected_version": active_game.version}
    with django_assert_max_num_queries(MOVE_QUERIES):
        answer = client.post(f"/api/v1/games/{active_game.pk}/moves/", body, format="json")
    assert answer.status_code == 201, answer.content
    assert answer.json()["game"]["seats"][0]["display_name"] in {"Alice", "Bob"}


def test_the_moves_the_server_plays_for_resigned_seats_cost_no_extra_queries(
    alice: Any, bob: Any, charlie: Any, dave: Any
) -> None:
    game = services.game_create(creator=alice, seats=4)
    for user in (bob, charlie, dave):
        services.seat_join(game=game, user=user)
    game.refresh_from_db()
    mover = user_to_move(game)
    # The two seats after the one to move resign: its move is followed by two automatic ones.
    for offset in (1, 2):
        services.game_resign(game=game, user=game.seats.get(index=(game.to_move + offset) % 4).user)
    game.refresh_from_db()
    client = warmed_up(client_for(mover))
    body = {"move": a_take(game), "expected_version": game.version}
    with CaptureQueriesContext(connection) as captured:
        answer = client.post(f"/api/v1/games/{game.pk}/moves/", body, format="json")
    assert answer.status_code == 201, answer.content
    assert len(captured.captured_queries) <= MOVE_QUERIES
    assert [m.automatic for m in Move.objects.filter(game=game)] == [False, True, True]


def test_the_game_view_reads_the_seats_users_and_players_in_one_query(
    active_game: Game, django_assert_max_num_queries: Any
) -> None:
    client = warmed_up(client_for(user_to_move(active_game)))
    with django_assert_max_num_queries(GAME_QUERIES):
        answer = client.get(f"/api/v1/games/{active_game.pk}/")
    assert answer.status_code == 200


def test_a_move_gets_its_ply_from_the_engine_and_every_version_its_event(active_game: Game) -> None:
    for _ in range(3):
        mover = user_to_move(active_game)
        active_game.refresh_from_db()
        answer = client_for(mover).post(
            f"/api/v1/games/{active_game.pk}/moves/",
            {"move": a_take(active_game), "expected_version": active_game.version},
            format="json",
        )
        assert answer.status_code == 201, answer.content
    assert list(Move.objects.filter(game=active_game).values_list("ply", flat=True)) == [0, 1, 2]
    versions = [e.payload["version"] for e in GameEvent.objects.filter(game=active_game).order_by("id")]
    assert versions == list(range(1, len(versions) + 1))


@pytest.mark.postgres
def test_on_postgresql_a_move_locks_only_the_game_row(active_game: Game) -> None:
    client = warmed_up(client_for(user_to_move(active_game)))
    body = {"move": a_take(active_game), "expected_version": active_game.version}
    with CaptureQueriesContext(connection) as captured:
        client.post(f"/api/v1/games/{active_game.pk}/moves/", body, format="json")
    locking = [q["sql"] for q in captured.captured_queries if "FOR UPDATE" in q["sql"]]
    assert len(locking) == 1
    assert locking[0].startswith('SELECT "games_game"') and locking[0].endswith('FOR UPDATE OF "games_game"')
