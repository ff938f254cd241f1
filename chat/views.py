"""Thin views of the table-talk API (docs/chat.md, "Table talk")."""

from __future__ import annotations

from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from django.urls import reverse
from django.utils.translation import gettext

from accounts.permissions import CanRead, CanReadOrPlay, request_user
from api.openapi import location_header
from chat import errors, selectors, services
from chat.models import ChatPreference
from chat.serializers import (
    THREAD_HELP,
    ChatExportSerializer,
    ChatLineSerializer,
    ChatPostSerializer,
    ChatPreferencesSerializer,
    ChatPreferencesUpdateSerializer,
    ChatReportAnswerSerializer,
    ChatReportSerializer,
    ChatThreadSerializer,
)
from core.errors import InvalidInput
from games.errors import AccountSuspended, GameNotFound, NotAPlayer
from games.permissions import CanSeeGame
from games.schema import GAME_ID_PARAMETER, game_problems
from games.selectors import game_get_visible

_THREAD = OpenApiParameter("thread", OpenApiTypes.STR, OpenApiParameter.QUERY, enum=selectors.THREADS, description=THREAD_HELP)
_AFTER = OpenApiParameter(
    "after", OpenApiTypes.INT, OpenApiParameter.QUERY,
    description="Only the lines after this id (oldest first); without it, the latest 100.",
)
_VALIDATION = {400: "validation_error: see `errors` for each field."}


def _after(request: Request) -> int | None:
    raw = request.query_params.get("after")
    if raw is None or raw == "":
        return None
    if not raw.isdigit():
        raise InvalidInput({"after": [gettext("Send the id of a line, a whole number.")]})
    return int(raw)


class ChatView(APIView):
    permission_classes = [CanReadOrPlay]  # who may see the game: the services and selectors (game_get_visible), after the body is read

    @extend_schema(
        operation_id="games_chat",
        summary="Read a game's table talk",
        description="The players' thread (players, and moderators), or with `?thread=spectators` a public game's "
        "spectators' thread (anyone who sees the game). A private game is not found for anyone else, as the game "
        "itself. Hidden and erased lines have no text.",
        parameters=[GAME_ID_PARAMETER, _THREAD, _AFTER],
        responses={
            200: ChatThreadSerializer,
            **game_problems(GameNotFound, NotAPlayer, errors.ChatThreadNotFound, extra=_VALIDATION),
        },
    )
    def get(self, request: Request, game_id: str) -> Response:
        thread = request.query_params.get("thread", "players")
        game = selectors.chat_game_for_reading(game_id=game_id, user=request.user, thread=thread)
        lines = selectors.chat_lines(game=game, thread=thread, after=_after(request))
        return Response(ChatThreadSerializer({"game_id": game.pk, "thread": thread, "lines": lines}).data)

    @extend_schema(
        operation_id="games_chat_post",
        summary="Write in a game's table talk",
        description="A line of plain text, at most 500 characters, in the players' thread (players) or, with "
        "`?thread=spectators`, in a public game's spectators' thread (signed-in people who are not its players). "
        "At most `CHAT_MESSAGES_PER_MINUTE` lines a minute (10 by default), all games together: past it, 429 with "
        "Retry-After. The others hear of it as a `chat` event. Needs a `play` token.",
        parameters=[GAME_ID_PARAMETER, _THREAD, location_header("The thread, in which the new line is the last")],
        request=ChatPostSerializer,
        responses={
            201: ChatLineSerializer,
            **game_problems(
                GameNotFound, NotAPlayer, AccountSuspended, errors.ChatThreadNotFound, errors.ChatNotAllowed,
                errors.TooManyChatMessages, extra=_VALIDATION,
            ),
        },
    )
    def post(self, request: Request, game_id: str) -> Response:
        serializer = ChatPostSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        thread = request.query_params.get("thread", "players")
        message = services.chat_message_post(
            game_id=game_id, user=request_user(request), text=serializer.validated_data["text"], thread=thread
        )
        response = Response(ChatLineSerializer(selectors.lines_of([message])[0]).data, status=201)
        location = reverse("game-chat", kwargs={"game_id": game_id})
        response["Location"] = location + ("?thread=spectators" if thread == "spectators" else "")
        return response


def _preferences_body(choice: ChatPreference) -> dict[str, Any]:
    return dict(
        ChatPreferencesSerializer(
            {"muted": choice.muted, "spectators_hidden": choice.spectators_hidden, "email_each_line": choice.email_each_line}
        ).data
    )


class ChatPreferencesView(APIView):
    permission_classes = [CanReadOrPlay]  # who may see the game: the services and selectors (game_get_visible), after the body is read

    @extend_schema(
        operation_id="games_chat_preferences",
        summary="Your choices about a game's table talk",
        parameters=[GAME_ID_PARAMETER],
        responses={200: ChatPreferencesSerializer, **game_problems(GameNotFound)},
    )
    def get(self, request: Request, game_id: str) -> Response:
        game_get_visible(game_id=game_id, user=request.user)
        return Response(_preferences_body(selectors.chat_preference(user=request.user, game_id=game_id)))

    @extend_schema(
        operation_id="games_chat_preferences_update",
        summary="Mute a game's table talk, hide its spectators, or ask for an email per line",
        description="Send any of `muted`, `spectators_hidden` and `email_each_line`; what you leave out stays. "
        "Players only. Needs a `play` token.",
        parameters=[GAME_ID_PARAMETER],
        request=ChatPreferencesUpdateSerializer,
        responses={200: ChatPreferencesSerializer, **game_problems(GameNotFound, NotAPlayer, extra=_VALIDATION)},
    )
    def patch(self, request: Request, game_id: str) -> Response:
        serializer = ChatPreferencesUpdateSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        choice = services.chat_preferences_set(game_id=game_id, user=request_user(request), **serializer.validated_data)
        return Response(_preferences_body(choice))


class ChatReportView(APIView):
    permission_classes = [CanReadOrPlay]  # who may see the game: the services and selectors (game_get_visible), after the body is read

    @extend_schema(
        operation_id="games_chat_report",
        summary="Report a line to the moderators",
        description="Anyone who may read the line may report it, once (a second report keeps the first). "
        "A moderator may hide it, with a reason written in the game's moderation log.",
        parameters=[GAME_ID_PARAMETER],
        request=ChatReportSerializer,
        responses={
            200: ChatReportAnswerSerializer,
            **game_problems(GameNotFound, NotAPlayer, errors.ChatMessageNotFound, extra=_VALIDATION),
        },
    )
    def post(self, request: Request, game_id: str) -> Response:
        serializer = ChatReportSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        message_id = serializer.validated_data["message_id"]
        services.chat_message_report(
            game_id=game_id, message_id=message_id, user=request_user(request),
            reason=serializer.validated_data.get("reason", ""),
        )
        return Response(ChatReportAnswerSerializer({"message_id": message_id, "reported": True}).data)


class ChatExportView(APIView):
    permission_classes = [CanRead, CanSeeGame]

    @extend_schema(
        operation_id="games_chat_export",
        summary="Export a finished game's table talk",
        description="Once the game is over, the threads the caller may read, as the `chat` of the game's export "
        "(`GET /api/v1/games/{id}/export/`): the players' thread for its players and moderators, a public game's "
        "spectators' thread for whoever sees the game. Before the end, 409 chat_export_not_ready: table talk is the "
        "players' own while they play.",
        parameters=[GAME_ID_PARAMETER],
        responses={200: ChatExportSerializer, **game_problems(GameNotFound, errors.ChatNotOver)},
    )
    def get(self, request: Request, game_id: str) -> Response:
        game = game_get_visible(game_id=game_id, user=request.user)
        lines = selectors.chat_export(game=game, user=request.user)
        if lines is None:
            raise errors.ChatNotOver()
        return Response(ChatExportSerializer({"game_id": game.pk, "lines": lines}).data)
