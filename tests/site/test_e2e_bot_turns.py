"""Bot work with the workers split as docs/deploy.md splits them: one worker on
`celery`, `webhooks` and `beat`, and the `bots` worker alone on `bots` with one
process. A seat a moderator hands to the bot: its move is made by the `bots`
worker, never by the process that handed the seat over (a `manage.py shell`,
standing for the admin's request) and never by the other worker. A practice game
its person resigns while its bots are due: no bot moves in it afterwards.

alice plays on; bob's seat is handed to the bot; mo is the moderator.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e_support.processes import LIGHT_WORKER, Stack, Worker, manage, start_stack, wait_for

pytestmark = [pytest.mark.e2e, pytest.mark.postgres, pytest.mark.redis]

DISPATCH = "games.tasks.bot_turns_dispatch"

HAND_TO_THE_BOT = """
from django.contrib.auth import get_user_model
from django.db import transaction
from games import moderation
from games.models import BotTurn, Move, Seat
mo, _ = get_user_model().objects.get_or_create(username="mo", defaults={"is_staff": True})
seat = Seat.objects.get(game_id="{game_id}", user__username="bob")
with transaction.atomic():
    moderation.moderation_seat_replace(game_id="{game_id}", seat_index=seat.index, by_user=mo, reason="Gone", bot=True)
    # What the handing-over process did itself, before it commits and any worker can act.
    print("moves", Move.objects.filter(game_id="{game_id}", seat=seat.index).count(),
          "in-line", BotTurn.objects.filter(game_id="{game_id}").count())
"""


@pytest.fixture
def stack(tmp_path: Path) -> Iterator[Stack]:
    running = start_stack(tmp_path, players=("alice", "bob"), workers=1, worker_queues="celery,webhooks,beat")
    try:
        bots = Worker(running.env, tmp_path / "bots.log", name="bots", queues="bots",
                      options=[*LIGHT_WORKER, "--concurrency", "1"])  # fmt: skip
        running.workers.append(bots)
        bots.start()
        yield running
    finally:
        running.stop()


def _bot_moves(stack: Stack, game_id: str) -> int:
    return int(stack.db.rows(
        "SELECT count(*) FROM games_move WHERE game_id = %s AND played_by = 'bot'", game_id
    )[0][0])  # fmt: skip


def test_a_seat_handed_to_the_bot_is_played_by_the_bots_worker(stack: Stack) -> None:
    game_id = stack.api.new_game("alice", ["bob"])
    if stack.api.to_move(game_id) == "alice":
        stack.api.play(game_id, "alice")
    assert stack.api.to_move(game_id) == "bob"

    # The moderator's change puts the turn in line and plays nothing itself.
    handed = manage(stack.env, "shell", "-c", HAND_TO_THE_BOT.replace("{game_id}", game_id))
    assert "moves 0 in-line 1" in handed, handed

    wait_for(lambda: _bot_moves(stack, game_id) == 1, timeout=60, what="the bot's move", explain=stack.explain)
    (reason,) = stack.db.rows(
        "SELECT payload->>'bot_reason' FROM games_gameevent WHERE game_id = %s AND kind = 'move_played' "
        "AND payload->>'played_by' = 'bot'", game_id,
    )  # fmt: skip
    assert reason == ("moderator",)
    bots, other = next(w for w in stack.workers if w.hostname == "bots"), stack.workers[0]
    assert other.hostname == "w1"
    wait_for(lambda: f"Task {DISPATCH}" in bots.output(), timeout=30, what="the bots worker's log", explain=stack.explain)
    assert f"Task {DISPATCH}" not in other.output(), other.tail()

    # alice moves: the bot answers again, in the bots worker.
    assert stack.api.to_move(game_id) == "alice"
    stack.api.play(game_id, "alice")
    wait_for(lambda: _bot_moves(stack, game_id) == 2, timeout=60, what="the bot's second move", explain=stack.explain)
    # The turn's row goes once the dispatcher is done with it, which may be a moment
    # after the move is visible (it failed once on a loaded machine when read at once).
    wait_for(lambda: stack.db.rows("SELECT count(*) FROM games_botturn WHERE game_id = %s", game_id)[0][0] == 0,
             timeout=30, what="no bot turn left in line", explain=stack.explain)  # fmt: skip
    assert f"Task {DISPATCH}" not in other.output(), other.tail()


def _game_row(stack: Stack, game_id: str) -> tuple[str, int]:
    status, moves = stack.db.rows(
        "SELECT status, (SELECT count(*) FROM games_move m WHERE m.game_id = g.id) FROM games_game g WHERE g.id = %s",
        game_id,
    )[0]  # fmt: skip
    return str(status), int(moves)


def test_a_practice_game_resigned_while_its_bots_are_due_gets_no_bot_move_afterwards(stack: Stack) -> None:
    game = stack.api.call("alice", "POST", "/api/v1/games/", {"variant": "base", "bots": ["greedy", "greedy", "greedy"]})
    game_id = str(game["id"])
    # The bots may move first: until they have, no player of the stack has a legal move.
    wait_for(lambda: bool(stack.api.call("alice", "GET", f"/api/v1/games/{game_id}/legal-moves/")["moves"]),
             timeout=60, what="alice's first turn", explain=stack.explain)  # fmt: skip

    # alice's move makes the three bots due; she resigns at once, before they can have played them all.
    stack.api.play(game_id, "alice")
    stack.api.call("alice", "POST", f"/api/v1/games/{game_id}/resign/")
    status, moves_at_resignation = _game_row(stack, game_id)
    assert status == "finished"
    finished = stack.api.game("alice", game_id)
    assert finished["result"]["reason"] == "resignation", finished["result"]

    # The bots worker is given its chance: the dispatcher message alice's move queued
    # is taken, and nothing stays in line. Greedy bots among themselves would have
    # played dozens of moves in the seconds that follow.
    wait_for(lambda: f"Task {DISPATCH}" in stack.workers[-1].output(), timeout=30, what="a dispatch", explain=stack.explain)
    wait_for(lambda: stack.db.rows("SELECT count(*) FROM games_botturn WHERE game_id = %s", game_id)[0][0] == 0,
             timeout=30, what="no bot turn in line", explain=stack.explain)  # fmt: skip
    time.sleep(3)
    assert _game_row(stack, game_id) == ("finished", moves_at_resignation)
