"""The takeover bot: the bot that plays for a person whose deadline passed
(TAKEOVER_BOT, by default the search bot, at TAKEOVER_BOT_PLAYOUTS playouts).
The rest of the suite takes over with the greedy bot for speed (tests/conftest.py);
these tests use the search bot itself, at a small budget.

alice and bob let their deadlines pass; VACATION_DAYS_PER_YEAR is 0 so that a
missed deadline is a timeout at once.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import engine.bots
import pytest
from tests.games.clock_helpers import started_game
from tests.site.test_settings_from_environment import run_manage

from games import services
from games.models import Move, PlayedBy
from games.services import turns


@pytest.fixture(autouse=True)
def _search_bot(settings: Any) -> None:
    settings.TAKEOVER_BOT = "ismcts"
    settings.TAKEOVER_BOT_PLAYOUTS = 8
    settings.VACATION_DAYS_PER_YEAR = 0


def test_the_sweep_has_the_search_bot_play_every_overdue_turn(alice: Any, bob: Any, charlie: Any) -> None:
    games = [started_game(alice, bob), started_game(alice, charlie), started_game(bob, charlie)]
    later = max(game.deadline_at for game in games if game.deadline_at) + timedelta(seconds=1)
    assert services.game_time_out_overdue(now=later) == len(games)
    for game in games:
        move = Move.objects.get(game=game, ply=0)
        assert move.played_by == PlayedBy.BOT and move.automatic


def test_a_replayed_timeout_chooses_the_same_move(alice: Any, bob: Any) -> None:
    game = started_game(alice, bob)
    state = turns.state_of(game)
    seat = game.to_move
    assert seat is not None
    first = turns.bot_move(state, seat, game_id=game.pk)
    assert all(turns.bot_move(state, seat, game_id=game.pk) == first for _ in range(3))


def test_only_the_search_bot_is_given_a_budget(settings: Any) -> None:
    settings.PRACTICE_BOT_PLAYOUTS = 30
    assert isinstance(turns.bot_make("greedy", 1), engine.bots.GreedyBot)
    takeover = turns.bot_make("ismcts", 1)
    assert isinstance(takeover, engine.bots.ISMCTSBot) and takeover.playouts == 8
    opponent = turns.bot_make("ismcts", 1, playouts=settings.PRACTICE_BOT_PLAYOUTS)
    assert isinstance(opponent, engine.bots.ISMCTSBot) and opponent.playouts == 30


@pytest.mark.parametrize("name, value, says", [
    ("TAKEOVER_BOT", "alphazero", "TAKEOVER_BOT='alphazero' is not one of the built-in bots: greedy, ismcts, random"),
    ("TAKEOVER_BOT_PLAYOUTS", "0", "TAKEOVER_BOT_PLAYOUTS='0' must be at least 1"),
    ("TAKEOVER_BOT_PLAYOUTS", "many", "TAKEOVER_BOT_PLAYOUTS='many' is not a whole number"),
    ("PRACTICE_BOT_PLAYOUTS", "0", "PRACTICE_BOT_PLAYOUTS='0' must be at least 1"),
])
def test_a_bad_takeover_setting_stops_start_up_naming_it(name: str, value: str, says: str) -> None:
    result = run_manage("check", **{name: value})
    assert result.returncode != 0
    assert says in result.stderr
