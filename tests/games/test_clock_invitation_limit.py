"""Invitations are limited per account per day (INVITATIONS_PER_DAY), counted from
the invited seats of the games the account created in the last 24 hours.

Personas: alice invites; bob, charlie and dave are the players she invites.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from games import services
from games.errors import TooManyInvitations
from games.models import Game
from tests.games.clock_helpers import NOON
from tests.games.game_helpers import client_for

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def two_a_day(settings: Any, time_machine: Any) -> None:
    settings.INVITATIONS_PER_DAY = 2
    time_machine.move_to(NOON, tick=False)


def test_invitations_beyond_the_daily_limit_are_refused_saying_when_the_next_is_possible(
    alice: Any, bob: Any, charlie: Any, dave: Any, time_machine: Any
) -> None:
    services.game_create(creator=alice, seats=2, invited=[bob])
    time_machine.move_to(NOON + timedelta(hours=3), tick=False)
    services.game_create(creator=alice, seats=2, invited=[charlie])
    time_machine.move_to(NOON + timedelta(hours=5), tick=False)

    answer = client_for(alice).post("/api/v1/games/", {"invited": ["dave"]}, format="json")

    assert answer.status_code == 429
    body = answer.json()
    assert body["code"] == "too_many_invitations"
    assert body["next_invitation_at"] == "2026-03-03T12:00:00+00:00"
    assert "from 2026-03-03T12:00:00+00:00" in body["detail"]
    assert answer["Retry-After"] == str(19 * 3600)
    assert Game.objects.count() == 2


def test_invitations_older_than_a_day_no_longer_count(alice: Any, bob: Any, charlie: Any, time_machine: Any) -> None:
    services.game_create(creator=alice, seats=3, invited=[bob, charlie])
    time_machine.move_to(NOON + timedelta(days=1, seconds=1), tick=False)

    services.game_create(creator=alice, seats=3, invited=[bob, charlie])

    assert Game.objects.count() == 2


def test_open_seats_are_not_invitations(alice: Any) -> None:
    for _ in range(3):
        services.game_create(creator=alice, seats=4)
    assert Game.objects.count() == 3


def test_one_game_inviting_more_than_the_limit_is_refused_outright(
    alice: Any, bob: Any, charlie: Any, dave: Any
) -> None:
    with pytest.raises(TooManyInvitations, match="at most 2 players a day; this game invites 3"):
        services.game_create(creator=alice, seats=4, invited=[bob, charlie, dave])
