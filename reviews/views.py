"""Thin views of the reviews API (docs/review.md, "The API")."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.permissions import CanReadOrPlay, request_user
from api.openapi import problem_responses
from games.errors import GameNotFound
from games.permissions import CanSeeGame
from games.schema import AUTH_PROBLEMS, GAME_ID_PARAMETER
from reviews import errors, selectors, services
from reviews.models import GameReview
from reviews.serializers import ReviewProblemSerializer, ReviewSerializer

def _answer(review: GameReview) -> Response:
    body = ReviewSerializer(selectors.review_body(review)).data
    pending = review.status == GameReview.Status.PENDING
    return Response(body, status=status.HTTP_202_ACCEPTED if pending else status.HTTP_200_OK)


class GameReviewView(APIView):
    # Who may see the game (a private game is an unknown id to anyone else); the
    # review itself is everyone's who sees the game once it is over.
    permission_classes = [CanReadOrPlay, CanSeeGame]

    @extend_schema(
        operation_id="games_review",
        summary="Read a finished game's review by the search bot",
        description="Each move with every seat's estimated chance of winning before and after it, the bot's "
        "preferred move where it differs, and how much the move cost its mover (`drop`; a `mistake` when at least "
        "`REVIEW_MISTAKE_DROP`). 200 once done (or failed), 202 while its positions are searched. 404 "
        "`review_not_found` before anyone asked for it (POST).",
        parameters=[GAME_ID_PARAMETER],
        responses={
            200: ReviewSerializer,
            202: ReviewSerializer,
            **problem_responses(
                (GameNotFound, errors.GameNotOver, errors.ReviewNotFound),
                serializer=ReviewProblemSerializer, notes=AUTH_PROBLEMS,
            ),
        },
    )
    def get(self, request: Request, game_id: str) -> Response:
        return _answer(selectors.review_for_reading(game_id=game_id, user=request.user))

    @extend_schema(
        operation_id="games_review_start",
        summary="Ask for a finished game's review by the search bot",
        description="Starts the game's review, searched one position at a time by the bots' workers, and answers "
        "as GET does: 202 while pending, 200 once done. One review per game, shared by everyone who may see the "
        "game: asking for one done or under way costs nothing; a new one (or a failed one started again) counts "
        "against your `REVIEWS_PER_DAY` (20 by default; past it, 429 `too_many_reviews` with Retry-After). An "
        "active game is 409 `game_not_over`. Needs a `play` token.",
        parameters=[GAME_ID_PARAMETER],
        request=None,
        responses={
            200: ReviewSerializer,
            202: ReviewSerializer,
            **problem_responses(
                (GameNotFound, errors.GameNotOver, errors.TooManyReviews),
                serializer=ReviewProblemSerializer, notes=AUTH_PROBLEMS,
            ),
        },
    )
    def post(self, request: Request, game_id: str) -> Response:
        review = services.review_request(game_id=game_id, user=request_user(request))
        review.refresh_from_db()  # the positions searched inline (eager tasks) have moved it on
        return _answer(review)
