"""A small tournament for the tests of its news (email, push, stream, webhooks,
calendar): made, entered and started through tournaments' services, with its
games ended by resignations so that its rounds move on.

Its players come from tests/tournaments/conftest.py's ``rated_players`` (p1 the
strongest): with three at two-seat tables, round 1 seats p1 against p2 and gives
p3 the bye (T-SWISS-BYE goes to the last of the order)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from games import services as game_services
from games.models import Game, Seat
from tournaments import services
from tournaments.models import Tournament, TournamentGame


def tournament_started(
    players: Sequence[Any], *, name: str = "Winter Cup", public: bool = True, rounds: int = 2,
    followers: Sequence[Any] = (), **fields: Any,
) -> Tournament:
    """A Swiss at two-seat tables (unless ``fields`` say otherwise), started by
    its first player, who organises it."""
    fields = {"format": "swiss", "seats": 2, "rounds": rounds, "max_players": 16, **fields}
    tournament = services.tournament_create(creator=players[0], name=name, public=public, **fields)
    for player in players:
        services.tournament_join(tournament_id=tournament.pk, user=player)
    for follower in followers:
        services.tournament_follow(tournament_id=tournament.pk, user=follower)
    services.tournament_start(tournament_id=tournament.pk, by=players[0])
    tournament.refresh_from_db()
    return tournament


def round_games(tournament: Tournament, number: int) -> list[Game]:
    return [
        tg.game
        for tg in TournamentGame.objects.filter(table__round__tournament=tournament, table__round__number=number)
        .select_related("game")
        .order_by("table__position", "number")
    ]


def game_of(tournament: Tournament, number: int, user: Any) -> Game:
    return next(g for g in round_games(tournament, number) if Seat.objects.filter(game=g, user=user).exists())


def round_played(tournament: Tournament, number: int) -> None:
    """Each game of the round ends: the seat that joined last resigns."""
    for game in round_games(tournament, number):
        seat = Seat.objects.filter(game=game, index__isnull=False).order_by("-join_position").first()
        assert seat is not None
        game_services.game_resign(game=Game.objects.get(pk=game.pk), user=seat.user)
