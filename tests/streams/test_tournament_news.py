"""A tournament's own events (``tournament_round_started``, ``tournament_finished``)
reach its players and, for a public tournament, its followers, on the event
stream; nobody else. A private tournament's never reach anyone who does not
play in it, a follow row or not. Their data carry ids only: no seed, no name,
no deck.

Personas: p1 and p2 play a one-round Swiss (tests/tournaments/conftest.py's rated
players); fan follows it without playing; stranger has nothing to do with it.
Rounds move on when games end (the tournaments consumer, on commit): the
transactional database lets commits happen."""

from __future__ import annotations

import json
from typing import Any

import pytest

from games.models import GameEvent
from streams.models import StreamEvent
from tests.games.game_helpers import client_for, make_player
from tests.streams.stream_helpers import WsgiStream
from tests.tournaments.conftest import rated_players
from tests.tournaments.news_helpers import round_games, round_played, tournament_started
from tournaments import services
from tournaments.models import Tournament, TournamentFollow

KINDS = ("tournament_round_started", "tournament_finished")
SSE = "text/event-stream"


@pytest.fixture(autouse=True)
def _consumers(game_extensions: Any) -> None:
    # The tournaments consumer moves the rounds on; the stream is written beside the events.
    game_extensions.hearing("tournaments")


def streamed(user: Any) -> list[tuple[str, dict[str, Any]]]:
    rows = StreamEvent.objects.filter(user=user, kind__in=KINDS).order_by("seq").values_list("kind", "data")
    return [(kind, dict(data)) for kind, data in rows]


def played_through(public: bool, *followers: Any) -> tuple[Tournament, list[Any]]:
    players = rated_players(2)
    tournament = tournament_started(players, public=public, rounds=1, followers=followers)
    round_played(tournament, 1)
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED
    return tournament, players


def test_players_and_followers_of_a_public_tournament_are_streamed_both_kinds(transactional_db: None) -> None:
    fan, stranger = make_player("fan"), make_player("stranger")
    tournament, (p1, p2) = played_through(True, fan)
    (game,) = round_games(tournament, 1)
    for user in (p1, p2, fan):
        (started, started_data), (finished, finished_data) = streamed(user)
        assert (started, finished) == KINDS
        assert isinstance(started_data.pop("version"), int) and isinstance(finished_data.pop("version"), int)
        assert started_data == {"game_id": game.pk, "tournament_id": tournament.pk, "round": 1}
        assert finished_data == {"game_id": game.pk, "tournament_id": tournament.pk, "winner_id": tournament.winner_id}
    assert tournament.winner_id == p1.pk  # p2 joined last and resigned
    assert streamed(stranger) == []


def test_the_stream_serves_them_to_a_follower_with_no_game(transactional_db: None) -> None:
    fan = make_player("fan")
    tournament, _ = played_through(True, fan)
    stream = WsgiStream(client_for(fan).get("/api/v1/stream/?last_event_id=0", HTTP_ACCEPT=SSE))
    frames = [stream.next_event(), stream.next_event()]
    stream.close()
    assert [frame["event"] for frame in frames] == list(KINDS)
    assert all(frame["data"]["tournament_id"] == tournament.pk for frame in frames)


def test_a_private_tournaments_events_reach_its_players_only(transactional_db: None) -> None:
    organiser, stranger, old_fan = make_player("organiser"), make_player("stranger"), make_player("old_fan")
    players = rated_players(2)

    tournament = services.tournament_create(
        creator=organiser, name="Closed Cup", public=False, format="swiss", seats=2, rounds=1
    )
    for player in players:
        services.tournament_invite(tournament_id=tournament.pk, by=organiser, usernames=[player.username])
        services.tournament_join(tournament_id=tournament.pk, user=player)
    # A follow row of a private tournament (none can be made through the API) gives nothing.
    TournamentFollow.objects.create(tournament=tournament, user=old_fan)
    services.tournament_start(tournament_id=tournament.pk, by=organiser)
    round_played(tournament, 1)
    for player in players:
        assert [kind for kind, _ in streamed(player)] == list(KINDS)
    for outsider in (organiser, stranger, old_fan):
        assert streamed(outsider) == []


def test_their_data_carry_ids_only(transactional_db: None) -> None:
    fan = make_player("fan")
    tournament, players = played_through(True, fan)
    events = GameEvent.objects.filter(kind__in=KINDS)
    assert events.count() == 2
    keys = {event.kind: set(event.public_data()) for event in events}
    assert keys == {
        "tournament_round_started": {"game_id", "version", "tournament_id", "round"},
        "tournament_finished": {"game_id", "version", "tournament_id", "winner_id"},
    }
    shown = json.dumps([streamed(user) for user in (*players, fan)])
    assert tournament.seed not in shown and str(tournament.seed_int()) not in shown
    # Random game ids may hold a short username by chance ("yp2fq..." holds "p2"): blanked first.
    for game_id in GameEvent.objects.values_list("game_id", flat=True).distinct():
        shown = shown.replace(game_id, "")
    for words in (tournament.name, *(p.username for p in players), '"state"', '"deck', '"seed'):
        assert words not in shown
