# factory_boy's declarations (Sequence, LazyAttribute ...) carry no annotations:
# mypy: disable-error-code="no-untyped-call"
"""Test factories: players and games made through the services, so they are valid.

factory_boy factories (``create`` only: every one goes through a service, which
writes the rows; ``build`` is refused):

- ``PlayerFactory``: a verified, active player as ``accounts.services.player_create``
  makes one (the user, with its ``user.player`` profile); ``PlayerFactory.create(username="alice")``
  is what ``tests.games.game_helpers.make_player("alice")`` gives.
- ``OpenGameFactory``: an open invitation (``games.services.game_create``): the
  creator in the first seat, the invited holding reserved seats they have not taken.
- ``StartedGameFactory``: a game of ``seats`` seats in ``variant`` that every
  invited player joined (``seat_join``), so it is active and its first turn's clock runs.
- ``FinishedGameFactory``: a started game that every seat but the creator's
  resigned (``game_resign``): finished, the creator the winner.

Plain functions where a factory is the wrong tool: ``seat_to_move``.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from factory.base import Factory
from factory.declarations import LazyAttribute, LazyFunction, Sequence, SubFactory

from accounts.services import player_create
from games import services
from games.models import Game, Seat

User = get_user_model()


class _ThroughServices:
    """Mixin: the rows are written by a service in ``_create``; an unsaved build is refused."""

    @classmethod
    def _build(cls, model_class: Any, *args: Any, **kwargs: Any) -> Any:
        raise TypeError(f"{cls.__name__} makes its rows through the services: use create(), not build()")


class PlayerFactory(_ThroughServices, Factory[Any]):
    """A verified, active player (``accounts.services.player_create``): the user,
    with ``user.player`` (display name = the username titled, as ``make_player`` does),
    an address at example.com and no usable password unless ``password`` is given."""

    class Meta:
        model = User

    username = Sequence(lambda n: f"player{n}")
    email = LazyAttribute(lambda o: f"{o.username}@example.com")
    display_name = LazyAttribute(lambda o: o.username.title())
    password = None

    @classmethod
    def _create(cls, model_class: Any, *args: Any, **kwargs: Any) -> Any:
        return player_create(**kwargs)


def _invitees(o: Any) -> list[Any]:
    """One new player for each seat after the creator's."""
    return PlayerFactory.create_batch(o.seats - 1)


class OpenGameFactory(_ThroughServices, Factory[Game]):
    """An open invitation (``games.services.game_create``): ``creator`` (a new player
    unless given) holds the first seat; ``invited`` (none by default) hold reserved
    seats they have not taken; the rest of the ``seats`` are open to anyone. Any other
    keyword (``move_timeout_hours``, ``bank_seconds``, ``rated`` ...) goes to game_create."""

    class Meta:
        model = Game

    creator = SubFactory(PlayerFactory)
    variant = "base"
    seats = 2
    invited: LazyFunction | LazyAttribute = LazyFunction(list)
    public = False

    @classmethod
    def _create(cls, model_class: Any, *args: Any, **kwargs: Any) -> Game:
        return services.game_create(**kwargs)


class StartedGameFactory(OpenGameFactory):
    """An active game of ``seats`` seats (2 by default) in ``variant`` ("base" or
    "marvel"), private unless ``public``: the creator invited the others (new players
    unless ``invited`` names them, one for each other seat) and they all joined, so
    the seat order is drawn and the first turn begins."""

    invited = LazyAttribute(_invitees)

    @classmethod
    def _create(cls, model_class: Any, *args: Any, **kwargs: Any) -> Game:
        invited = list(kwargs["invited"])
        if len(invited) != kwargs["seats"] - 1:
            raise ValueError(f"a started game of {kwargs['seats']} seats needs {kwargs['seats'] - 1} invited players")
        game = services.game_create(**kwargs)
        for user in invited:
            services.seat_join(game=game, user=user)
        game.refresh_from_db()
        assert game.status == Game.Status.ACTIVE, game.status
        return game


class FinishedGameFactory(StartedGameFactory):
    """A finished game: started as ``StartedGameFactory`` makes it, then every seat
    but the creator's resigned (``games.services.game_resign``), so the creator won."""

    @classmethod
    def _create(cls, model_class: Any, *args: Any, **kwargs: Any) -> Game:
        game = super()._create(model_class, *args, **kwargs)
        for user in kwargs["invited"]:
            services.game_resign(game=game, user=user)
        game.refresh_from_db()
        assert game.status == Game.Status.FINISHED, game.status
        return game


def seat_to_move(game: Game) -> Seat:
    """The seat whose turn it is, read afresh (the game is refreshed first), its
    user loaded: ``seat_to_move(game).user`` is the player to move."""
    game.refresh_from_db()
    return Seat.objects.select_related("user").get(game=game, index=game.to_move)
