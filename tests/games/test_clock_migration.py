"""games/migrations/0007_clocks: games made before clocks keep the rules they were
made with, and the server's earlier moves are recorded as played by the service."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from django.core.management import call_command
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

BEFORE = [("games", "0006_seat_link_and_reply_keys")]
AFTER = [("games", "0007_clocks")]


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_games_from_before_clocks_forfeit_at_the_first_timeout_and_keep_their_deadline() -> None:
    executor = MigrationExecutor(connection)
    executor.migrate(BEFORE)
    apps = executor.loader.project_state(BEFORE).apps
    Game, Move = (apps.get_model("games", name) for name in ("Game", "Move"))
    alice = apps.get_model("auth", "User").objects.create(username="alice")
    deadline = datetime(2026, 3, 5, 12, 0, tzinfo=UTC)
    game = Game.objects.create(
        seat_count=2, created_by_id=alice.pk, status="active", move_timeout_hours=48, deadline_at=deadline, to_move=0
    )
    Move.objects.create(game=game, ply=0, seat=1, text="take WUG", automatic=True)
    Move.objects.create(game=game, ply=1, seat=0, text="take RKW", automatic=False)

    executor = MigrationExecutor(connection)
    executor.migrate(AFTER)
    apps = executor.loader.project_state(AFTER).apps
    Game, Move = (apps.get_model("games", name) for name in ("Game", "Move"))
    game = Game.objects.get(pk=game.pk)
    assert (game.move_seconds, game.forfeit_after, game.bank_start_seconds, game.bank_cap_seconds) == (
        48 * 3600, 1, 0, 0,
    )
    assert game.deadline_at == deadline and game.turn_started_at == deadline - timedelta(hours=48)
    assert list(Move.objects.filter(game=game).order_by("ply").values_list("played_by", flat=True)) == [
        "service", "player",
    ]
    call_command("migrate", verbosity=0)  # leave the database at the latest state for the next test

