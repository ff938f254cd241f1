"""``/api/v1/games/{id}/plan/``: a seat's conditional moves (docs/plans.md), for
its holder alone. Where a plan fires: ``games.plans``."""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.permissions import CanReadOrPlay, request_user
from core.errors import InvalidInput
from games import selectors, services
from games.plans import selectors as plan_selectors
from games.errors import AlreadyResigned, GameNotActive, GameNotFound, NotAPlayer, PlanOnYourTurn, StaleVersion
from games.plans.serializers import PlanInputSchemaSerializer, PlanInputSerializer, PlanSerializer
from games.schema import GAME_ID_PARAMETER, game_problems
from games.views import move_languages_of

_CONTENT_LANGUAGE = OpenApiParameter(
    "Content-Language",
    OpenApiTypes.STR,
    OpenApiParameter.HEADER,
    description="`it` or `lv`: the language whose words the lines are written in, besides English "
    "(default: the account's language).",
)


def _plan_response(game_id: str, request: Request) -> Response:
    game = selectors.game_get(game_id=game_id)
    return Response(PlanSerializer(plan_selectors.seat_plan(game=game, user=request.user)).data)


class GamePlanView(APIView):
    # Only the seat's holder: anyone else who may see the game is not_a_player
    # (moderators included); anyone who may not, game_not_found, once the body
    # has been read (a malformed body is a 400 before the game is looked up).
    permission_classes = [CanReadOrPlay]

    @extend_schema(
        operation_id="games_plan_read",
        summary="Your plan (conditional moves)",
        description="Your plan's lines and what it did since you stored it. Nobody else can read it.",
        parameters=[GAME_ID_PARAMETER],
        responses={200: PlanSerializer, **game_problems(GameNotFound, NotAPlayer)},
    )
    def get(self, request: Request, game_id: str) -> Response:
        selectors.game_check_visible(game_id=game_id, user=request.user)
        return _plan_response(game_id, request)

    @extend_schema(
        operation_id="games_plan_store",
        summary="Store your plan",
        description="Replace your plan with these lines while you wait for your turn: when the move before your "
        "turn matches a line's `if`, its `then` is played for you at once and its `next` lines become the plan; "
        "otherwise the plan is cleared. A `then` may name only a card you see now (the market, your reserve). "
        "Storing a plan changes nothing others see (no version, no event).",
        parameters=[GAME_ID_PARAMETER, _CONTENT_LANGUAGE],
        request=PlanInputSchemaSerializer,
        responses={
            200: PlanSerializer,
            **game_problems(
                GameNotFound, NotAPlayer, AlreadyResigned, GameNotActive, StaleVersion, PlanOnYourTurn, InvalidInput
            ),
        },
    )
    def put(self, request: Request, game_id: str) -> Response:
        body = PlanInputSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        selectors.game_check_visible(game_id=game_id, user=request.user)
        services.plan_store(
            game_id=game_id,
            user=request_user(request),
            lines=body.validated_data["lines"],
            expected_version=body.validated_data["expected_version"],
            languages=move_languages_of(request),
        )
        return _plan_response(game_id, request)

    @extend_schema(
        operation_id="games_plan_clear",
        summary="Clear your plan",
        parameters=[GAME_ID_PARAMETER],
        request=None,
        responses={200: PlanSerializer, **game_problems(GameNotFound, NotAPlayer)},
    )
    def delete(self, request: Request, game_id: str) -> Response:
        selectors.game_check_visible(game_id=game_id, user=request.user)
        services.plan_clear(game_id=game_id, user=request_user(request))
        return _plan_response(game_id, request)
