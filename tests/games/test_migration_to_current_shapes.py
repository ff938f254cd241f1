"""Results and event payloads stored before this shape existed are brought into it
by games/migrations/0005 (results: places, resigned, timed_out; payloads: user ids)."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.management import call_command
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from games.results import result_in_current_shape

BEFORE = [("games", "0004_seat_left_event")]
AFTER = [("games", "0005_results_and_payloads_in_current_shape")]


def test_a_resignations_old_result_gains_places_and_the_lists() -> None:
    old = {"winners": [1], "scores": [3, 5], "ranking": [1, 0], "reason": "timeout", "resigned": [0]}
    assert result_in_current_shape(old, timed_out=[0]) == {
        "winners": [1], "scores": [3, 5], "places": [2, 1], "ranking": [1, 0],
        "reason": "timeout", "resigned": [0], "timed_out": [0],
    }
    current = result_in_current_shape(old, timed_out=[0])
    assert result_in_current_shape(dict(current), timed_out=[]) == current


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_the_migration_rewrites_old_results_and_payloads(django_user_model: Any) -> None:
    executor = MigrationExecutor(connection)
    executor.migrate(BEFORE)
    apps = executor.loader.project_state(BEFORE).apps
    Game, Seat, GameEvent = (apps.get_model("games", name) for name in ("Game", "Seat", "GameEvent"))
    User = apps.get_model("auth", "User")
    alice = User.objects.create(username="alice")
    bob = User.objects.create(username="bob")
    game = Game.objects.create(
        seat_count=2, created_by_id=alice.pk, status="finished",
        result={"winners": [0], "scores": [4, 2], "ranking": [0, 1], "reason": "timeout", "resigned": [1]},
    )
    Seat.objects.create(game=game, user_id=alice.pk, index=0, join_position=0)
    Seat.objects.create(game=game, user_id=bob.pk, index=1, join_position=1, resigned=True)
    GameEvent.objects.create(game=game, kind="game_created", payload={"creator": "alice", "invited": ["bob"], "version": 1})
    GameEvent.objects.create(game=game, kind="seat_joined", payload={"username": "bob", "invited": True, "version": 2})
    GameEvent.objects.create(
        game=game, kind="game_started",
        payload={"seed_commitment": "x", "seats": [{"seat": 0, "username": "alice"}, {"seat": 1, "username": "bob"}]},
    )
    GameEvent.objects.create(game=game, kind="seat_resigned", payload={"seat": 1, "reason": "timeout", "version": 4})

    executor = MigrationExecutor(connection)
    executor.migrate(AFTER)
    apps = executor.loader.project_state(AFTER).apps
    Game, Seat, GameEvent = (apps.get_model("games", name) for name in ("Game", "Seat", "GameEvent"))
    game = Game.objects.get(pk=game.pk)
    assert game.result["places"] == [1, 2] and game.result["timed_out"] == [1] and game.result["resigned"] == [1]
    assert Seat.objects.get(game=game, index=1).timed_out
    payloads = {e.kind: e.payload for e in GameEvent.objects.filter(game=game)}
    assert payloads["game_created"] == {"creator_id": alice.pk, "invited_ids": [bob.pk], "version": 1}
    assert payloads["seat_joined"] == {"user_id": bob.pk, "invited": True, "version": 2}
    assert payloads["game_started"]["seats"] == [{"seat": 0, "user_id": alice.pk}, {"seat": 1, "user_id": bob.pk}]
    assert "alice" not in str(payloads) and "bob" not in str(payloads)
    call_command("migrate", verbosity=0)  # leave the database at the latest state for the next test
