"""The rounds of an account's tournaments are in its calendar: each round that
started, or is scheduled to, is an event at that moment ("Winter Cup: round 2
starts"), in the account's language; a tournament it does not play in is not,
and nothing of a tournament's seed reaches the feed.

Personas: alice and bob enter the tournaments; charlie organises one he does
not play in, and stands outside the others."""

from __future__ import annotations

from datetime import UTC, timedelta
from typing import Any

import pytest
from django.utils import timezone

from accounts.models import Player
from tests.calendars.calendar_helpers import events, fetch, parsed
from tests.tournaments.news_helpers import tournament_started
from tournaments import services

pytestmark = pytest.mark.django_db


def round_events(user: Any) -> dict[str, Any]:
    return {str(event["SUMMARY"]): event for event in events(parsed(user)) if str(event["UID"]).startswith("round-")}


def scheduled(creator: Any, *players: Any, name: str = "Spring Swiss") -> Any:
    now = timezone.now().replace(microsecond=0)
    times = [now + timedelta(days=2), now + timedelta(days=9)]
    tournament = services.tournament_create(
        creator=creator, name=name, format="swiss", seats=2, rounds=2, round_starts=[t.isoformat() for t in times]
    )
    for player in players:
        services.tournament_join(tournament_id=tournament.pk, user=player)
    return tournament, times


def test_the_scheduled_rounds_of_a_players_tournament_are_events_at_their_times(alice: Any, bob: Any) -> None:
    tournament, times = scheduled(alice, alice, bob)
    shown = round_events(bob)
    assert set(shown) == {"Spring Swiss: round 1 starts", "Spring Swiss: round 2 starts"}
    for number, when in enumerate(times, start=1):
        event = shown[f"Spring Swiss: round {number} starts"]
        assert event.decoded("DTSTART") == when.astimezone(UTC)
        assert "DTEND" not in event and str(event["TRANSP"]) == "TRANSPARENT"
        assert str(event["UID"]).startswith(f"round-{tournament.pk}-{number}@")


def test_a_started_round_is_an_event_at_the_moment_it_opened(alice: Any, bob: Any) -> None:
    tournament = tournament_started([alice, bob], name="Winter Cup", rounds=3)
    (opened,) = tournament.round_set.all()
    shown = round_events(alice)
    assert list(shown) == ["Winter Cup: round 1 starts"]  # rounds 2 and 3 follow when round 1 ends: no time yet
    assert shown["Winter Cup: round 1 starts"].decoded("DTSTART") == opened.started_at.astimezone(UTC).replace(
        microsecond=0
    )


def test_a_tournament_the_account_does_not_play_in_is_not_in_its_calendar(alice: Any, bob: Any, charlie: Any) -> None:
    scheduled(charlie, alice, bob, name="Charlie's Cup")  # charlie organises, alice and bob play
    assert round_events(charlie) == {}
    assert set(round_events(alice)) == {"Charlie's Cup: round 1 starts", "Charlie's Cup: round 2 starts"}


def test_a_round_event_is_in_the_accounts_language_and_the_feed_holds_no_seed(alice: Any, bob: Any) -> None:
    Player.objects.filter(user=bob).update(language="lv")
    tournament, _ = scheduled(alice, alice, bob)
    assert set(round_events(bob)) == {"Spring Swiss: sākas 1. raunds", "Spring Swiss: sākas 2. raunds"}
    body = fetch(bob).content.decode()
    assert tournament.seed not in body and str(tournament.seed_int()) not in body
