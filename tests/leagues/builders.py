"""Readable set-ups for the leagues tests: a league game finished with given places."""

from __future__ import annotations

from typing import Any

from django.utils import timezone

from games import services as game_services
from games.models import Game, Seat


def seat_of(game: Game, user: Any) -> int:
    index = Seat.objects.get(game=game, user=user).index
    assert index is not None
    return index


def finish(game: Game, places_by_user: dict[Any, int], *, scores_by_user: dict[Any, int] | None = None,
           timed_out: tuple[Any, ...] = ()) -> Game:
    """End ``game`` with these places (and prestige), as the engine or a forfeit would
    have recorded them: the standings and ratings read only the stored result."""
    size = game.seat_count
    places = [0] * size
    scores = [0] * size
    for user, place in places_by_user.items():
        places[seat_of(game, user)] = place
    for user, score in (scores_by_user or {}).items():
        scores[seat_of(game, user)] = score
    ranking = sorted(range(size), key=lambda s: places[s])
    left = sorted(seat_of(game, u) for u in timed_out)
    Game.objects.filter(pk=game.pk).update(
        status=Game.Status.FINISHED,
        finished_at=timezone.now(),
        to_move=None,
        deadline_at=None,
        result={
            "winners": [s for s in ranking if places[s] == 1],
            "scores": scores,
            "places": places,
            "ranking": ranking,
            "reason": "timeout" if left else "points",
            "resigned": left,
            "timed_out": left,
        },
    )
    game.refresh_from_db()
    return game


def rated_game(creator: Any, *others: Any, variant: str = "base") -> Game:
    game = game_services.game_create(creator=creator, variant=variant, seats=1 + len(others), rated=True)
    for other in others:
        game_services.seat_join(game=game, user=other)
    game.refresh_from_db()
    return game
