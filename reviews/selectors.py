"""Reading reviews (docs/review.md): what the API and the replay page show of a
game's review, as typed values. A review holds moves, seats, chances and the
bot's preferred moves only: nothing of the deal (seed, deck order) is stored."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, TypedDict

from django.conf import settings

from games.models import Game
from games.selectors import game_get_visible
from reviews import errors
from reviews.models import GameReview, ReviewPosition, ReviewStart

if TYPE_CHECKING:
    from django.contrib.auth.models import AnonymousUser, User

# Chances are given to this many decimals: over four seats they still sum to 1
# within 0.0002.
DECIMALS = 4


class Progress(TypedDict):
    done: int
    total: int


class ReviewedMove(TypedDict):
    """One move and the search's verdict on it. ``chances``: each seat's chance of
    winning after the move; ``before``: before it, under the bot's best play;
    ``best``: the bot's preferred move when it differs; ``drop``: how much the
    mover's chance fell; ``mistake``: the drop is at least REVIEW_MISTAKE_DROP."""

    ply: int
    move: str
    seat: int
    chances: list[float]
    before: list[float]
    best: str | None
    drop: float
    mistake: bool


class ReviewBody(TypedDict):
    status: str
    progress: Progress
    moves: list[ReviewedMove]


def review_of_game(*, game_id: str) -> GameReview | None:
    """The game's review, if anyone asked for it."""
    return GameReview.objects.filter(game_id=game_id).first()


def review_game_for_reading(*, game_id: str, user: User | AnonymousUser | None) -> Game:
    """The game, for a caller who may see it (else GameNotFound, as for an unknown
    id) once it is over (else GameNotOver)."""
    game = game_get_visible(game_id=game_id, user=user)
    if not game.is_over:
        raise errors.GameNotOver()
    return game


def review_for_reading(*, game_id: str, user: User | AnonymousUser | None) -> GameReview:
    """The review of a game over that ``user`` may see; ReviewNotFound before anyone asked."""
    game = review_game_for_reading(game_id=game_id, user=user)
    review = review_of_game(game_id=game.pk)
    if review is None:
        raise errors.ReviewNotFound()
    return review


def _chances(values: list[float]) -> list[float]:
    return [round(float(value), DECIMALS) for value in values]


def reviewed_move(position: ReviewPosition, *, mistake_drop: float) -> ReviewedMove:
    drop = round(float(position.drop), DECIMALS)
    return {
        "ply": position.ply,
        "move": position.move,
        "seat": position.seat,
        "chances": _chances(position.after),
        "before": _chances(position.before),
        "best": position.best or None,
        "drop": drop,
        "mistake": float(position.drop) >= mistake_drop,
    }


def review_moves(review: GameReview) -> list[ReviewedMove]:
    """The moves reviewed so far, in order."""
    mistake_drop: float = settings.REVIEW_MISTAKE_DROP
    return [
        reviewed_move(position, mistake_drop=mistake_drop)
        for position in ReviewPosition.objects.filter(review=review).order_by("ply")
    ]


def review_body(review: GameReview) -> ReviewBody:
    """What the API answers: the status, the progress and the moves reviewed so far."""
    moves = review_moves(review)
    return {
        "status": review.status,
        "progress": {"done": len(moves), "total": review.positions_total},
        "moves": moves,
    }


def reviews_started_since(*, user_id: int, since: datetime) -> list[datetime]:
    """When ``user_id`` started a review since ``since`` (a new one, or a failed one
    started again: each start counts), oldest first."""
    return list(
        ReviewStart.objects.filter(user_id=user_id, started_at__gte=since)
        .order_by("started_at")
        .values_list("started_at", flat=True)
    )


def review_missing_plies(review: GameReview) -> list[int]:
    """The plies of the review not searched yet, in order."""
    stored = set(ReviewPosition.objects.filter(review=review).values_list("ply", flat=True))
    return [ply for ply in range(review.positions_total) if ply not in stored]
