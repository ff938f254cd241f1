"""Personas for the games tests.

- alice creates games and plays in them: the seat that is usually to move.
- bob is her opponent: the other seat.
- charlie never plays in alice's games: the spectator / non-player.
- dave fills a further seat when a test needs more than two players.
"""

from __future__ import annotations

from typing import Any

import pytest
from tests.games.game_helpers import start_two_player_game

from games.models import Game


@pytest.fixture(autouse=True)
def _no_throttling(settings: Any) -> None:
    """Bots play whole games in one test; the site-wide rate limit is tested elsewhere."""
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {"anon": "100000/minute", "user": "100000/minute"},
    }






@pytest.fixture
def active_game(alice: Any, bob: Any) -> Game:
    return start_two_player_game(alice, bob)
