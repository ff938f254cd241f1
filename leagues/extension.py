"""Leagues' part in games (games.extensions): the outbox consumer "ratings"
(Glicko-2 ratings applied once when a rated game ends), a league's admins seeing
its private games, a league game counting in a competition, and the public
profile's ratings."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.db.models import Q
from typing_extensions import override

from games.extensions import GameExtension
from games.models import GameEvent
from leagues import selectors, services

if TYPE_CHECKING:
    from django.contrib.auth.models import User


class RatingsExtension(GameExtension):
    # The consumer name of the outbox claims this app has always made.
    name = "ratings"

    @override
    def handle_event(self, event: GameEvent) -> None:
        # ratings_apply_game is idempotent: a repeated delivery changes nothing.
        if event.kind == GameEvent.Kind.GAME_FINISHED:
            services.ratings_apply_game(game_id=event.game_id)

    @override
    def visibility_q(self, user: User) -> Q | None:
        return selectors.games_administered_q(user)

    @override
    def counts_in_competition(self, game_id: str) -> bool:
        return selectors.game_is_league_game(game_id)

    @override
    def player_profile_extra(self, user_id: int) -> dict[str, Any]:
        return selectors.player_ratings(user_id)
