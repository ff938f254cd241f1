"""Thin views of the notifications API: your email preferences and per-game mutes."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.permissions import CanPlay, CanReadOrPlay, request_user
from api.openapi import problem_responses
from core.errors import DomainError
from games.errors import GameNotFound, NotAPlayer
from games.permissions import CanSeeGame
from games.schema import GameProblemSerializer
from notifications.preferences.selectors import muted_game_ids, preferences_for
from notifications.preferences.services import PUSH_PREFERENCES, game_mute, game_unmute, preferences_update
from notifications.serializers import MuteSerializer, PreferencesSerializer, PreferencesUpdateSerializer

if TYPE_CHECKING:
    from django.contrib.auth.models import User

_AUTH_PROBLEMS = {
    401: "not_authenticated, invalid_token, token_revoked, account_disabled, account_suspended: send "
    "`Authorization: Bearer <token>` with a token that works.",
    403: "insufficient_scope: the token lacks the scope this endpoint needs.",
    429: "throttled: too many requests; see Retry-After.",
}
_VALIDATION = {400: "validation_error: see `errors` for each field."}
_RETRY_AFTER = OpenApiParameter(
    "Retry-After",
    OpenApiTypes.INT,
    location=OpenApiParameter.HEADER,
    response=[429],
    description="Seconds to wait before trying again.",
)
_GAME_ID = OpenApiParameter("game_id", OpenApiTypes.STR, OpenApiParameter.PATH, description="The game's public id.")


def _problems(*problems: type[DomainError], extra: dict[int, str] | None = None) -> dict[Any, OpenApiResponse]:
    """Document error responses: every status with the stable codes it can carry."""
    return problem_responses(problems, serializer=GameProblemSerializer, notes=_AUTH_PROBLEMS, extra=extra)

def _preferences_body(user: User) -> dict[str, Any]:
    found = preferences_for(user=user)
    body = {
        "mode": found.mode,
        "digest_hour": found.digest_hour,
        "reminder_hours": list(found.reminder_hours),
        "muted_games": muted_game_ids(user=user),
        "next_digest_at": found.next_digest_at,
        **{name: getattr(found, name) for name in PUSH_PREFERENCES},
    }
    return dict(PreferencesSerializer(body).data)


class PreferencesView(APIView):
    permission_classes = [CanReadOrPlay]

    @extend_schema(
        operation_id="me_notifications",
        summary="Your email preferences",
        responses={200: PreferencesSerializer, **_problems()},
        parameters=[_RETRY_AFTER],
    )
    def get(self, request: Request) -> Response:
        return Response(_preferences_body(request_user(request)))

    @extend_schema(
        operation_id="me_notifications_update",
        summary="Change your email preferences",
        description="Send any of `mode`, `digest_hour`, `reminder_hours` and the `push_*` switches; what you "
        "leave out stays as it is. "
        "Reminders already scheduled for turns waiting on you follow the new hours at once. The digest hour is "
        "in your time zone (PATCH /api/v1/me/ `time_zone`). Needs a `play` token.",
        request=PreferencesUpdateSerializer,
        responses={200: PreferencesSerializer, **_problems(extra=_VALIDATION)},
        parameters=[_RETRY_AFTER],
    )
    def patch(self, request: Request) -> Response:
        serializer = PreferencesUpdateSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        user = request_user(request)
        preferences_update(user=user, **serializer.validated_data)
        return Response(_preferences_body(user))


class GameMuteView(APIView):
    permission_classes = [CanPlay, CanSeeGame]

    @extend_schema(
        operation_id="games_mute",
        summary="Mute a game",
        description="No more email about this game: no turn emails, no reminders, and it is left out of your "
        "digest. Muting a muted game changes nothing. Only a player with a seat in the game can.",
        parameters=[_GAME_ID, _RETRY_AFTER],
        request=None,
        responses={200: MuteSerializer, **_problems(GameNotFound, NotAPlayer)},
    )
    def put(self, request: Request, game_id: str) -> Response:
        game_mute(user=request_user(request), game_id=game_id)
        return Response(MuteSerializer({"game_id": game_id, "muted": True}).data)

    @extend_schema(
        operation_id="games_unmute",
        summary="Unmute a game",
        description="Email about this game again. Unmuting a game that is not muted changes nothing.",
        parameters=[_GAME_ID, _RETRY_AFTER],
        request=None,
        responses={200: MuteSerializer, **_problems(GameNotFound, NotAPlayer)},
    )
    def delete(self, request: Request, game_id: str) -> Response:
        game_unmute(user=request_user(request), game_id=game_id)
        return Response(MuteSerializer({"game_id": game_id, "muted": False}).data)
