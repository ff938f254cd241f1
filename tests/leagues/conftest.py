"""Personas for the leagues tests.

- alice, bob, carol, dave: league members, enough for a four-player table.
- erin: joins late, or asks to join a league that wants reliable players.
- mallory: a staff user in "League admins" who administers one league only: the
  one whose scope the admin tests check.
"""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest
from django.contrib.auth.models import Group

from leagues.models import League, Membership, Season
from leagues.services import LEAGUE_ADMINS_GROUP, league_admins_group
from tests.games.game_helpers import make_player


@pytest.fixture(autouse=True)
def _ratings_only(settings: Any, game_extensions: Any) -> None:
    """Only the ratings consumer reads the outbox here; no throttling of the API."""
    game_extensions.hearing("ratings")
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {"anon": "100000/minute", "user": "100000/minute"},
    }


@pytest.fixture
def players(db: None) -> list[Any]:
    return [make_player(name) for name in ("alice", "bob", "carol", "dave")]


@pytest.fixture
def erin(db: None) -> Any:
    return make_player("erin")


@pytest.fixture
def mallory(db: None) -> Any:
    user = make_player("mallory")
    user.is_staff = True
    user.save()
    user.groups.add(league_admins_group())
    return user


def make_league(name: str = "Tuesday League", **fields: Any) -> League:
    return League.objects.create(name=name, **fields)


def add_members(league: League, users: list[Any]) -> None:
    from django.utils import timezone

    for user in users:
        Membership.objects.create(
            league=league, user=user, status=Membership.Status.ACTIVE, requested_at=timezone.now()
        )


def make_season(league: League, number: int = 1) -> Season:
    return Season.objects.create(
        league=league, number=number, starts_on=date(2026, 11, 1), ends_on=date(2099, 12, 31)
    )


def group_exists() -> bool:
    return Group.objects.filter(name=LEAGUE_ADMINS_GROUP).exists()
