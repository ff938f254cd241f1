"""Tournaments' part in games (games.extensions): the outbox consumer
"tournaments" (a round moves on when its games end), who hears of a tournament's
own events, organisers seeing its private games, a tournament game counting in a
competition, and a game's tournament and round in lists."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.db.models import Q
from typing_extensions import override

from games.extensions import GameExtension
from games.models import Game, GameEvent
from tournaments import page_selectors, rounds, selectors

if TYPE_CHECKING:
    from collections.abc import Sequence

    from django.contrib.auth.models import User

TOURNAMENT_KINDS = (GameEvent.Kind.TOURNAMENT_ROUND_STARTED, GameEvent.Kind.TOURNAMENT_FINISHED)
ENDINGS = (GameEvent.Kind.GAME_FINISHED, GameEvent.Kind.GAME_ABORTED)


class TournamentsExtension(GameExtension):
    name = "tournaments"

    @override
    def handle_event(self, event: GameEvent) -> None:
        # tournament_advance is idempotent under the tournament's lock: a repeated
        # delivery finds nothing more to do.
        if event.kind in ENDINGS:
            tournament_id = rounds.tournament_of_game(event.game_id)
            if tournament_id is not None:
                rounds.tournament_advance(tournament_id=tournament_id)

    @override
    def event_recipients(self, event: GameEvent) -> set[int] | None:
        if event.kind not in TOURNAMENT_KINDS:
            return None
        payload = event.payload if isinstance(event.payload, dict) else {}
        tournament_id = payload.get("tournament_id")
        return selectors.event_recipients(tournament_id) if isinstance(tournament_id, int) else set()

    @override
    def visibility_q(self, user: User) -> Q | None:
        return selectors.games_organised_q(user)

    @override
    def counts_in_competition(self, game_id: str) -> bool:
        return selectors.game_is_tournament_game(game_id)

    @override
    def game_list_label(self, game: Game) -> str | None:
        return page_selectors.game_labels([game.pk]).get(game.pk)

    @override
    def game_list_labels(self, games: Sequence[Game]) -> dict[str, str]:
        return page_selectors.game_labels([game.pk for game in games])
