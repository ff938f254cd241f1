"""Webhooks deliver a tournament's own events (``tournament_round_started``,
``tournament_finished``) to the endpoints of its players and, for a public
tournament, of its followers; a stranger's endpoint gets neither, and a private
tournament's reach no endpoint of anyone who does not play in it. An endpoint may
ask for them by name like any kind (GameEvent.Kind). Their data carry ids only.

Personas: p1 and p2 play a one-round Swiss (tests/tournaments/conftest.py's rated
players); fan follows it; stranger registers an endpoint and nothing else. The
transactional database lets the commits that move the rounds on happen."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.games.game_helpers import make_player
from tests.tournaments.conftest import rated_players
from tests.tournaments.news_helpers import round_played, tournament_started
from tests.webhooks.webhook_helpers import FakeDNS, Transport, register
from tournaments import services
from tournaments.models import Tournament, TournamentFollow
from webhooks.selectors import event_kinds

KINDS = ("tournament_round_started", "tournament_finished")


@pytest.fixture(autouse=True)
def _consumers(_webhooks_only: None, game_extensions: Any) -> None:
    # As the app registered them, then these two hear (the conftest left only webhooks hearing).
    game_extensions.use(*game_extensions.registered)
    game_extensions.hearing("webhooks", "tournaments")


def delivered(transport: Transport, user: Any) -> list[dict[str, Any]]:
    bodies = [json.loads(sent.body) for sent in transport.to(f"https://hooks.{user.username}.example/splendor")]
    return [body for body in bodies if body["type"] in KINDS]


def test_an_endpoint_may_ask_for_the_tournament_kinds() -> None:
    assert set(KINDS) <= set(event_kinds())


def test_players_and_followers_endpoints_get_both_kinds_and_a_strangers_none(
    transactional_db: None, dns: FakeDNS, transport: Transport
) -> None:
    players = rated_players(2)
    fan, stranger = make_player("fan"), make_player("stranger")
    for user in (*players, fan, stranger):
        dns.table[f"hooks.{user.username}.example"] = dns.table["hooks.alice.example"]
    for user in (players[0], fan, stranger):
        register(user)
    register(players[1], events=list(KINDS))  # asked for by name
    tournament = tournament_started(players, rounds=1, followers=[fan])
    round_played(tournament, 1)
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED
    for user in (*players, fan):
        bodies = delivered(transport, user)
        assert [body["type"] for body in bodies] == list(KINDS)
        started, finished = (body["data"] for body in bodies)
        assert set(started) == {"game_id", "version", "tournament_id", "round"}
        assert set(finished) == {"game_id", "version", "tournament_id", "winner_id"}
        assert started["tournament_id"] == finished["tournament_id"] == tournament.pk
        assert finished["winner_id"] == tournament.winner_id
    assert delivered(transport, stranger) == []
    everything = b"".join(sent.body for sent in transport.sent).decode()
    assert tournament.seed not in everything and tournament.name not in everything


def test_a_private_tournaments_events_reach_no_endpoint_of_a_non_player(
    transactional_db: None, dns: FakeDNS, transport: Transport
) -> None:
    players = rated_players(2)
    organiser, old_fan = make_player("organiser"), make_player("old_fan")
    for user in (*players, organiser, old_fan):
        dns.table[f"hooks.{user.username}.example"] = dns.table["hooks.alice.example"]
        register(user)
    tournament = services.tournament_create(
        creator=organiser, name="Closed Cup", public=False, format="swiss", seats=2, rounds=1
    )
    services.tournament_invite(tournament_id=tournament.pk, by=organiser, usernames=[p.username for p in players])
    for player in players:
        services.tournament_join(tournament_id=tournament.pk, user=player)
    TournamentFollow.objects.create(tournament=tournament, user=old_fan)
    services.tournament_start(tournament_id=tournament.pk, by=organiser)
    round_played(tournament, 1)
    for player in players:
        assert [body["type"] for body in delivered(transport, player)] == list(KINDS)
    assert delivered(transport, organiser) == [] and delivered(transport, old_fan) == []
