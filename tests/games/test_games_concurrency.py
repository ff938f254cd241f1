"""Many clients submit the same turn at once: exactly one is played."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from games.models import Game, GameEvent, IdempotencyRecord, Move
from tests.games.game_helpers import make_player, race_same_turn, start_two_player_game

THREADS = 8
REPO_ROOT = Path(__file__).resolve().parents[2]


def assert_exactly_one_played(results: list[tuple[int, Any]]) -> None:
    statuses = sorted(status for status, _ in results)
    assert statuses.count(201) == 1, results
    losers = [(status, body) for status, body in results if status != 201]
    assert all(status in (409, 412) for status, _ in losers), losers
    assert all(body["code"] in ("stale_version", "precondition_failed") for _, body in losers), losers


def assert_log_without_gaps(game: Game, moves: int) -> None:
    game.refresh_from_db()
    assert list(Move.objects.filter(game=game).order_by("ply").values_list("ply", flat=True)) == list(range(moves))
    versions = [e.payload["version"] for e in GameEvent.objects.filter(game=game).order_by("id")]
    assert versions == list(range(1, game.version + 1))


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_on_postgresql_racing_clients_play_exactly_one_move_per_turn() -> None:
    game = start_two_player_game(make_player("alice"), make_player("bob"))
    for turn in range(3):
        assert_exactly_one_played(race_same_turn(game, THREADS))
        assert_log_without_gaps(game, turn + 1)


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_on_postgresql_racing_retries_with_one_idempotency_key_all_get_the_first_response() -> None:
    game = start_two_player_game(make_player("alice"), make_player("bob"))

    results = race_same_turn(game, THREADS, idempotency_key="same-turn")

    assert [status for status, _ in results] == [201] * THREADS, results
    assert len({json.dumps(body, sort_keys=True) for _, body in results}) == 1
    assert Move.objects.filter(game=game).count() == 1
    assert IdempotencyRecord.objects.count() == 1
    assert_log_without_gaps(game, 1)


@pytest.mark.slow
@pytest.mark.parametrize("busy_timeout", [20.0, 0.001], ids=["site-busy-timeout", "tiny-busy-timeout"])
def test_on_a_sqlite_file_racing_clients_play_one_move_and_never_see_database_is_locked(
    tmp_path: Path, busy_timeout: float
) -> None:
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    completed = subprocess.run(
        [sys.executable, "-m", "tests.games.sqlite_race", str(tmp_path / "race.sqlite3"), str(busy_timeout), str(THREADS)],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert completed.returncode == 0, completed.stderr[-3000:]
    report = json.loads(completed.stdout.strip().splitlines()[-1])

    for round_ in report["rounds"]:
        assert [status for status, _ in round_].count(201) == 1, round_
        assert all(status in (201, 409, 412) for status, _ in round_), round_
        assert all(code in (None, "stale_version", "precondition_failed") for _, code in round_), round_
    assert "locked" not in json.dumps(report["rounds"])
    assert report["moves"] == [0, 1, 2]
    assert report["versions"] == list(range(1, report["version"] + 1))
    if busy_timeout < 0.1:
        # Writers gave up waiting inside SQLite, and the service's retry covered for them.
        assert report["retries"] > 0
