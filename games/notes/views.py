"""``/api/v1/games/{id}/notes/``: a seat holder's private notes on the game and
its moves (docs/api.md, "Notes"), for the writer alone."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiExample, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.permissions import CanReadOrPlay, request_user
from api.middleware import body_limit
from core.errors import InvalidInput
from games import selectors, services
from games.errors import GameNotFound, NotAPlayer
from games.notes import selectors as notes_selectors
from games.notes.text import NOTES_BODY_BYTES
from games.notes.serializers import NotesInputSchemaSerializer, NotesInputSerializer, NotesSerializer
from games.schema import GAME_ID_PARAMETER, game_problems


def _notes_response(game_id: str, request: Request) -> Response:
    game = selectors.game_get(game_id=game_id)
    return Response(NotesSerializer(notes_selectors.seat_notes(game=game, user=request.user)).data)


@body_limit(NOTES_BODY_BYTES)
class GameNotesView(APIView):
    # Only the seat's holder: anyone else who may see the game is not_a_player
    # (moderators and staff included); anyone who may not, game_not_found, once
    # the body has been read (a malformed body is a 400 before the game is looked up).
    permission_classes = [CanReadOrPlay]

    @extend_schema(
        operation_id="games_notes_read",
        summary="Your notes on the game",
        description="Your private note on the game and your notes on its moves, during the game and after it. "
        "Nobody else can read them: not the other players, spectators, moderators or staff.",
        parameters=[GAME_ID_PARAMETER],
        responses={200: NotesSerializer, **game_problems(GameNotFound, NotAPlayer)},
    )
    def get(self, request: Request, game_id: str) -> Response:
        selectors.game_check_visible(game_id=game_id, user=request.user)
        return _notes_response(game_id, request)

    @extend_schema(
        operation_id="games_notes_store",
        summary="Store your notes on the game",
        description="Replace your notes on the game with these: the note on the game and the notes on moves, "
        "both whole. Stored as written (plain text) and shown to you alone; storing them changes nothing "
        'others see (no version, no event). `{"note": "", "moves": {}}` clears them.',
        parameters=[GAME_ID_PARAMETER],
        request=NotesInputSchemaSerializer,
        responses={200: NotesSerializer, **game_problems(GameNotFound, NotAPlayer, InvalidInput)},
        examples=[
            OpenApiExample(
                "A note on the game and one on the first move",
                value={"note": "Go for the blue nobles.", "moves": {"0": "Opened with three tokens."}},
                request_only=True,
            )
        ],
    )
    def put(self, request: Request, game_id: str) -> Response:
        body = NotesInputSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        selectors.game_check_visible(game_id=game_id, user=request.user)
        services.notes_store(
            game_id=game_id,
            user=request_user(request),
            note=body.validated_data["note"],
            moves=body.validated_data["moves"],
        )
        return _notes_response(game_id, request)
