"""The API side of per-seat links (games.links): a player replaces their own link."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.permissions import CanPlay, request_user
from games import links
from games.errors import GameNotFound, NotAPlayer
from games.permissions import CanSeeGame
from games.schema import GAME_ID_PARAMETER, game_problems


class SeatLinkSerializer(serializers.Serializer[dict[str, Any]]):
    game_id = serializers.CharField(help_text="The game's public id.")
    seat = serializers.IntegerField(
        allow_null=True, help_text="Your seat (as `your_seat`); null before the game starts."
    )
    url = serializers.URLField(
        help_text="The new link to the game page as your seat. It is shown only now; every earlier link stops working."
    )


class SeatLinkRotateView(APIView):
    permission_classes = [CanPlay, CanSeeGame]

    @extend_schema(
        operation_id="games_link_rotate",
        summary="Replace your link to the game page",
        description="Makes a new signed link to the game page for your seat and revokes every link sent before "
        "(in emails, for instance). The new link is in the answer and is not shown again; later emails carry it.",
        parameters=[GAME_ID_PARAMETER],
        request=None,
        responses={200: SeatLinkSerializer, **game_problems(GameNotFound, NotAPlayer)},
    )
    def post(self, request: Request, game_id: str) -> Response:
        seat = links.seat_link_rotate(game_id=game_id, user=request_user(request))
        body = {"game_id": seat.game_id, "seat": seat.index, "url": links.seat_link_url(seat=seat)}
        response = Response(SeatLinkSerializer(body).data)
        response["Cache-Control"] = "private, no-store"
        return response
