"""Personas for the games tests.

- alice creates games and plays in them: the seat that is usually to move.
- bob is her opponent: the other seat.
- charlie never plays in alice's games: the spectator / non-player.
- dave fills a further seat when a test needs more than two players.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from datetime import datetime
from typing import Any

import pytest
from tests.games.clock_helpers import NOON
from tests.games.game_helpers import start_two_player_game, user_to_move

from games import services
from games.models import Game


@pytest.fixture(autouse=True)
def _no_throttling(settings: Any) -> None:
    """Bots play whole games in one test; the site-wide rate limit is tested elsewhere."""
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {"anon": "100000/minute", "user": "100000/minute"},
    }






@pytest.fixture(autouse=True)
def _many_practice_games_allowed(settings: Any) -> None:
    """Some tests make practice games until the seed puts a bot first; the limit per
    account is tested in test_practice_games_limit.py, which sets its own."""
    settings.PRACTICE_GAMES_ACTIVE_PER_ACCOUNT = 1000


@pytest.fixture
def fixed_clock(time_machine: Any) -> datetime:
    """The clock stopped at clock_helpers.NOON (a Monday at noon, UTC) for the whole
    test. The clock tests take it with ``pytest.mark.usefixtures("fixed_clock")`` in
    their pytestmark, so that it stops before the personas are made."""
    time_machine.move_to(NOON, tick=False)
    return NOON


@pytest.fixture
def commit(django_capture_on_commit_callbacks: Any) -> Callable[[], AbstractContextManager[Any]]:
    """``with commit(): ...``: what the block queues on commit (the bots' task,
    inline in the tests) runs when it ends."""

    def run() -> AbstractContextManager[Any]:
        return django_capture_on_commit_callbacks(execute=True)  # type: ignore[no-any-return]

    return run


@pytest.fixture
def bob_reserved_blind(alice: Any, bob: Any) -> Game:
    """An active private game in which bob holds a card reserved from the level 1
    deck (the hidden card the sandbox leak tests look for), and it is alice's turn."""
    game = start_two_player_game(alice, bob)

    def play(user: Any, text: str) -> None:
        game.refresh_from_db()
        services.move_submit(game_id=game.pk, user=user, text=text, expected_version=game.version)

    if user_to_move(game) != bob:
        play(alice, "take WUG")
    play(bob, "reserve deck1")
    game.refresh_from_db()
    return game
