"""Players for the tournaments tests: p1 ... p9, rated 1900 down to 1100 in the
base game (so that the order of a round with no points yet is by rating)."""

from __future__ import annotations

from typing import Any

import pytest

from leagues.models import PlayerRating
from tests.games.game_helpers import make_player


@pytest.fixture(autouse=True)
def _tournaments_hear(settings: Any, game_extensions: Any) -> None:
    """The tournaments and ratings consumers read the outbox; no throttling."""
    game_extensions.hearing("tournaments", "ratings")
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {"anon": "100000/minute", "user": "100000/minute"},
    }


def rated_players(count: int, *, top: int = 1900, step: int = 100) -> list[Any]:
    players = []
    for number in range(1, count + 1):
        user = make_player(f"p{number}")
        PlayerRating.objects.create(user=user, variant="base", rating=top - step * (number - 1))
        players.append(user)
    return players
