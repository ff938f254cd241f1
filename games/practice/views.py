"""The REST API of sandboxes: ``POST /api/v1/games/{id}/sandbox/``. A thin view:
it validates the body, calls ``games.services.sandbox_create`` and renders the
new game as its owner sees it. (A practice game is made by ``POST /games/`` with
``bots``, in games.views.)"""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from django.urls import reverse
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.permissions import CanPlay, request_user
from api.conditional import etag_for
from api.openapi import location_header
from api.representation import representation_for
from games import selectors, services
from games.errors import (
    GameNotFound,
    InvalidGameSetup,
    SandboxBotsNotAllowed,
    SandboxNotAllowed,
    SandboxUnavailable,
    TooManyPracticeGames,
)
from games.schema import ETAG_HEADER, GAME_ID_PARAMETER, game_problems
from games.serializers import GameViewSerializer, SandboxInputSerializer

_game_view_json = representation_for(GameViewSerializer)


class GameSandboxView(APIView):
    permission_classes = [CanPlay]  # who may see the source game: sandbox_create

    @extend_schema(
        operation_id="games_sandbox",
        summary="Make a sandbox from this game's position",
        description="A private practice game of yours from the game's position, the cards you cannot see dealt "
        "again at random consistently with what you can see: from your seat in an active game you play, from the "
        "spectator's view in a game that is over or public. Play every seat yourself (the default: hot seats) or "
        "against bots (`bots`), except from an active rated or league game, whose sandbox has no bots. The game "
        "itself never changes and nobody is told.",
        parameters=[GAME_ID_PARAMETER, ETAG_HEADER, location_header("The new sandbox game")],
        request=SandboxInputSerializer,
        responses={
            201: GameViewSerializer,
            **game_problems(
                GameNotFound,
                InvalidGameSetup,
                SandboxNotAllowed,
                SandboxBotsNotAllowed,
                SandboxUnavailable,
                TooManyPracticeGames,
                extra={400: "validation_error"},
            ),
        },
    )
    def post(self, request: Request, game_id: str) -> Response:
        data = SandboxInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        sandbox = services.sandbox_create(
            game_id=game_id,
            user=request_user(request),
            bots=data.validated_data["bots"],
            seat=data.validated_data.get("seat"),
            ply=data.validated_data.get("ply"),
        )
        game = selectors.game_get(game_id=sandbox.pk)
        view = selectors.game_get_view(game=game, user=request.user)
        response = Response(_game_view_json(view), status=status.HTTP_201_CREATED)
        response["ETag"] = etag_for(game.version)
        response["Location"] = reverse("games:game-detail", kwargs={"game_id": game.pk})
        return response
