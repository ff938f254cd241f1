"""The games REST API: thin views that validate, call one service or selector,
and serialise. The acting seat always comes from the token, never the body."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext
from drf_spectacular.types import OpenApiTypes
from engine.grammar import ENGLISH, GRAMMARS, reading_languages
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.exceptions import ValidationError
from rest_framework.generics import GenericAPIView
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.errors import PlayerNotFoundError
from accounts.permissions import CanPlay, CanRead, CanReadOrPlay, request_user
from api.conditional import (
    etag_for,
    etag_matches,
    header_for_message,
    names_any_version,
    request_fingerprint,
    versions_named,
)
from api.openapi import location_header
from api.pagination import LimitOffsetPagination
from api.representation import representation_for
from core.db import retry_when_database_locked
from core.errors import DomainError
from games import selectors, services
from games.plans import selectors as plan_selectors
from games.permissions import CanSeeGame
from games.export_extras import game_export_extras
from games.errors import (
    AlreadyResigned,
    GameNotOpen,
    NotInvited,
    NotTheCreator,
    AmbiguousMove,
    GameNotActive,
    GameNotFound,
    IdempotencyKeyReused,
    IllegalMove,
    InvalidGameSetup,
    InvalidNotation,
    NotAPlayer,
    NotYourTurn,
    PreconditionFailed,
    PreconditionRequired,
    SeatUnavailable,
    StaleVersion,
    TooManyInvitations,
    TooManyPracticeGames,
    InvalidVacation,
    NotEnoughVacation,
)
from games.models import Game, IdempotencyRecord
from games.schema import ETAG_HEADER, GAME_ID_PARAMETER, IF_MATCH_OPTIONAL, game_problems
from games.serializers import (
    GameCreateInputSerializer,
    GameExportSerializer,
    GameListQuerySerializer,
    GameSummarySerializer,
    GameViewSerializer,
    JoinInputSerializer,
    LegalMovesSerializer,
    MoveCreatedSerializer,
    MoveHistoryEntrySerializer,
    MoveInputSerializer,
    PlayerExportSerializer,
    PlayerProfileSerializer,
    VacationInputSerializer,
    VacationSummarySerializer,
)

if TYPE_CHECKING:
    from django.contrib.auth.models import User

MAX_IDEMPOTENCY_KEY_LENGTH = 255

# The answers every turn returns, rendered as their serializers would without
# making them (api.representation); the serializers describe them in the schema.
_game_view_json = representation_for(GameViewSerializer)
_game_summary_json = representation_for(GameSummarySerializer)
_legal_moves_json = representation_for(LegalMovesSerializer)
_move_created_json = representation_for(MoveCreatedSerializer)

# --- helpers -------------------------------------------------------------------------


def _game_view_response(game: Game, request: Request, status_code: int = status.HTTP_200_OK) -> Response:
    view = selectors.game_get_view(game=game, user=request.user)
    response = Response(_game_view_json(view), status=status_code)
    response["ETag"] = etag_for(game.version)
    return response


def _with_vary(response: Response) -> Response:
    # Seats and spectators see different bodies at the same version.
    response["Vary"] = "Authorization"
    return response


# --- views ------------------------------------------------------------------------------


# Any, not Game: DRF's type ties the serializer to the queryset's model, and the
# serializer here renders game_summary's dicts, not the Game rows it pages through.
class GameListCreateView(GenericAPIView[Any]):
    permission_classes = [CanReadOrPlay]
    serializer_class = GameSummarySerializer

    @extend_schema(
        operation_id="games_list",
        summary="List games",
        description="The games you may see, newest first: public games, and the private games you hold or are "
        "invited to a seat in (moderators and league admins see those they moderate too).",
        parameters=[
            GameListQuerySerializer,
            OpenApiParameter(
                "limit",
                {"type": "integer", "minimum": 1, "maximum": LimitOffsetPagination.max_limit},
                description=f"Games per page (default 20, at most {LimitOffsetPagination.max_limit}).",
            ),
            OpenApiParameter("offset", {"type": "integer", "minimum": 0}, description="How many games to skip."),
        ],
        responses={200: GameSummarySerializer(many=True), **game_problems(extra={400: "validation_error"})},
    )
    def get(self, request: Request) -> Response:
        query = GameListQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        user = request_user(request)
        games = selectors.game_list(
            user=user,
            mine=query.validated_data["mine"],
            my_turn=query.validated_data["my_turn"],
            status=query.validated_data.get("status") or None,
            kind=query.validated_data["kind"],
        )
        page = self.paginate_queryset(games)
        assert page is not None  # REST_FRAMEWORK sets a DEFAULT_PAGINATION_CLASS
        data = [selectors.game_summary(game=game, user=user) for game in page]
        # The stubs type the instance as one summary; with many=True DRF builds a ListSerializer.
        return self.get_paginated_response([_game_summary_json(summary) for summary in data])

    @extend_schema(
        operation_id="games_create",
        summary="Create a game",
        description="You take the first seat. Invited players take theirs with join; the other seats are open "
        "to anyone. The game starts when every seat is taken. The time control (time per move, an optional time "
        "bank and its cap) and the timeout policy are shown in every game's representation.",
        parameters=[ETAG_HEADER, location_header("The new game")],
        request=GameCreateInputSerializer,
        responses={
            201: GameViewSerializer,
            **game_problems(InvalidGameSetup, TooManyInvitations, TooManyPracticeGames, extra={400: "validation_error"}),
        },
    )
    def post(self, request: Request) -> Response:
        data = GameCreateInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        if "bots" in data.validated_data:
            game = services.practice_game_create(
                creator=request_user(request),
                variant=data.validated_data["variant"],
                bots=data.validated_data["bots"],
                seats=data.validated_data["seats"] if "seats" in request.data else None,
                rated=data.validated_data["rated"],
            )
            game = selectors.game_get(game_id=game.pk)
        else:
            game = services.game_create(
                creator=request_user(request),
                variant=data.validated_data["variant"],
                seats=data.validated_data["seats"],
                invited=data.validated_data["invited"],
                open_seats=data.validated_data.get("open_seats"),
                move_seconds=data.validated_data["move_seconds"],
                bank_seconds=data.validated_data["bank_seconds"],
                bank_cap_seconds=data.validated_data["bank_cap_seconds"],
                forfeit_after=data.validated_data["forfeit_after"],
                public=data.validated_data["public"],
                rated=data.validated_data["rated"],
            )
        response = _game_view_response(game, request, status.HTTP_201_CREATED)
        response["Location"] = reverse("games:game-detail", kwargs={"game_id": game.pk})
        return response


class GameDetailView(APIView):
    permission_classes = [CanRead]  # who may see it: game_get_visible

    @extend_schema(
        operation_id="games_retrieve",
        summary="The game as you may see it",
        description="Your seat's view if you play in the game, the spectator view otherwise. A private game you may "
        "not see answers 404 game_not_found, as an unknown id does; one with an open seat shows its summary to anyone "
        "who has its id, so that they can join. "
        'Send If-None-Match: "<version>" to get 304 when nothing changed.',
        parameters=[
            GAME_ID_PARAMETER,
            OpenApiParameter("If-None-Match", OpenApiTypes.STR, OpenApiParameter.HEADER),
            ETAG_HEADER,
        ],
        responses={
            200: GameViewSerializer,
            304: OpenApiResponse(description="Not modified: the game is still at the version you sent."),
            **game_problems(GameNotFound),
        },
    )
    def get(self, request: Request, game_id: str) -> Response:
        game = selectors.game_get_visible(game_id=game_id, user=request.user, open_seat=True)
        if_none_match = request.headers.get("If-None-Match")
        if if_none_match and etag_matches(if_none_match, game.version):
            response = Response(status=status.HTTP_304_NOT_MODIFIED)
            response["ETag"] = etag_for(game.version)
            return _with_vary(response)
        return _with_vary(_game_view_response(game, request))


class GameJoinView(APIView):
    permission_classes = [CanPlay]  # who may see it: game_get_visible

    @extend_schema(
        operation_id="games_join",
        summary="Take a seat",
        description="Takes your invited seat or an open one. The join that fills the last seat starts the game. "
        "`expected_version` and If-Match are optional: with either, the seat is taken only at that version.",
        parameters=[GAME_ID_PARAMETER, IF_MATCH_OPTIONAL, ETAG_HEADER],
        request=JoinInputSerializer,
        responses={
            200: GameViewSerializer,
            **game_problems(
                GameNotFound, SeatUnavailable, StaleVersion, PreconditionFailed, extra={400: "validation_error"}
            ),
        },
    )
    def post(self, request: Request, game_id: str) -> Response:
        data = JoinInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        game = selectors.game_get_visible(game_id=game_id, user=request.user, open_seat=True)
        if_match = request.headers.get("If-Match")
        version = _version_to_expect(
            if_match, data.validated_data.get("expected_version"), current_version=lambda: game.version
        )
        with _stale_if_match_is_412(if_match):
            services.seat_join(game=game, user=request_user(request), expected_version=version)
        return _game_view_response(game, request)


class GameLegalMovesView(APIView):
    permission_classes = [CanRead]  # who may see the game: in game_legal_moves' one query

    @extend_schema(
        operation_id="games_legal_moves",
        summary="Your legal moves",
        description="In canonical notation, sorted. Empty when it is not your turn or you do not play.",
        parameters=[GAME_ID_PARAMETER],
        responses={200: LegalMovesSerializer, **game_problems(GameNotFound)},
    )
    def get(self, request: Request, game_id: str) -> Response:
        data = selectors.game_legal_moves(game_id=game_id, user=request.user)
        response = Response(_legal_moves_json(data))
        response["ETag"] = etag_for(data["version"])
        return response


class GameMovesView(APIView):
    permission_classes = [CanReadOrPlay]  # who may see it: game_get_visible, _not_a_player

    @extend_schema(
        operation_id="games_moves_list",
        summary="Move history",
        description="Every move in canonical notation. The card drawn by a blind reserve is shown only to its owner.",
        parameters=[GAME_ID_PARAMETER],
        responses={200: MoveHistoryEntrySerializer(many=True), **game_problems(GameNotFound)},
    )
    def get(self, request: Request, game_id: str) -> Response:
        game = selectors.game_get_visible(game_id=game_id, user=request.user)
        history = selectors.game_moves(game=game, user=request.user)
        # The stubs type the instance as one entry; with many=True DRF builds a ListSerializer.
        return Response(MoveHistoryEntrySerializer(history, many=True).data)  # type: ignore[arg-type]

    @extend_schema(
        operation_id="games_moves_create",
        summary="Play your turn",
        description=(
            "One request is one complete turn. Say which version you played on with `expected_version` "
            'and/or `If-Match: "<version>"`; with neither the answer is 428. Send an `Idempotency-Key` '
            "to retry safely: the same key with the same request returns the first response again. "
            "The move is read in English and in the words of the account's language; "
            "`Content-Language: it` or `lv` names the language instead. The move in the answer is "
            "always the canonical (English) notation."
        ),
        parameters=[
            GAME_ID_PARAMETER,
            OpenApiParameter("If-Match", OpenApiTypes.STR, OpenApiParameter.HEADER, description='"<version>"'),
            OpenApiParameter(
                "Content-Language",
                OpenApiTypes.STR,
                OpenApiParameter.HEADER,
                description="`it` or `lv`: the language whose words the move is written in, besides English "
                "(default: the account's language).",
            ),
            OpenApiParameter(
                "Idempotency-Key",
                OpenApiTypes.STR,
                OpenApiParameter.HEADER,
                description="Any unique string up to 255 characters, e.g. a UUID.",
            ),
            ETAG_HEADER,
            location_header("The game's move history, in which the new move is the entry at `ply`"),
        ],
        request=MoveInputSerializer,
        responses={
            201: MoveCreatedSerializer,
            **game_problems(
                GameNotFound,
                NotAPlayer,
                NotYourTurn,
                StaleVersion,
                GameNotActive,
                PreconditionFailed,
                PreconditionRequired,
                InvalidNotation,
                IllegalMove,
                AmbiguousMove,
                IdempotencyKeyReused,
                extra={400: "validation_error"},
            ),
        },
        examples=[
            OpenApiExample("Take three gems", value={"move": "take WUG", "expected_version": 7}, request_only=True),
        ],
    )
    def post(self, request: Request, game_id: str) -> Response:
        try:
            return self._play(request, game_id)
        except NotAPlayer:
            # Someone without a seat: a private game is answered as an unknown id to
            # those who may not see it. Looked up only here, so a turn costs nothing more.
            selectors.game_check_visible(game_id=game_id, user=request.user)
            raise

    def _play(self, request: Request, game_id: str) -> Response:
        data = MoveInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        text: str = data.validated_data["move"]
        expected: int | None = data.validated_data.get("expected_version")
        if_match = request.headers.get("If-Match")
        user = request_user(request)
        languages = move_languages_of(request)
        key = _idempotency_key(request)
        if key is None:
            played = _move_submit(game_id, user, text, expected, if_match, languages=languages)
            body = _move_created_body(played, user)
            return _move_response(body, status.HTTP_201_CREATED)
        fingerprint = request_fingerprint(
            method=request.method or "POST",
            path=request.path,
            body=json.dumps(request.data, sort_keys=True, separators=(",", ":")).encode("utf-8"),
        )
        try:
            status_code, body, replayed = _move_submit_once(
                game_id, user, text, expected, if_match, key=key, fingerprint=fingerprint, languages=languages
            )
        except DomainError:
            # A copy of this request may have played the move while this one
            # waited for the game's lock: then its answer is this one's too.
            record = IdempotencyRecord.objects.filter(
                user=user, key=key, created_at__gte=_idempotency_cutoff()
            ).first()
            if record is None:
                raise
            status_code, body, replayed = _replay(record, fingerprint)
        return _move_response(body, status_code, replayed=replayed)


def move_languages_of(request: Request) -> tuple[str, ...] | None:
    """The languages a move's text is read in, from ``Content-Language`` (English
    always, and the first of its languages that has a grammar: ``it``, ``lv``, ``it-IT``);
    None without the header, for the service to read the account's language."""
    header = request.headers.get("Content-Language", "").strip()
    if not header:
        return None
    named = [tag.strip().split("-")[0].lower() for tag in header.split(",")]
    return reading_languages(next((code for code in named if code in GRAMMARS), ENGLISH))


def _idempotency_key(request: Request) -> str | None:
    key = request.headers.get("Idempotency-Key")
    if key is None:
        return None
    key = key.strip()
    if not key or len(key) > MAX_IDEMPOTENCY_KEY_LENGTH:
        raise ValidationError(
            {"Idempotency-Key": [
                gettext("An Idempotency-Key is 1 to %(limit)s characters long.") % {"limit": MAX_IDEMPOTENCY_KEY_LENGTH}
            ]}
        )
    if "\x00" in key:
        # It is stored and looked up, and PostgreSQL refuses NUL in text.
        raise ValidationError({"Idempotency-Key": [gettext("An Idempotency-Key may not contain NUL characters.")]})
    return key


def _expected_version(game_id: str, user: User, expected: int | None, if_match: str | None) -> int:
    """The version a move request names, from ``expected_version`` and/or If-Match.

    Neither (or only ``If-Match: *``) is a 428: a move always names its version.
    """
    if not names_any_version(if_match) and expected is None:
        current = selectors.game_version_for_player(game_id=game_id, user=user)
        raise PreconditionRequired(
            'Send the version you played on, as "expected_version" in the body or an If-Match header '
            "naming it (If-Match: * names no version), "
            f"so that a move is never played on a position you have not seen. The game is at version {current}.",
            current_version=current,
        )
    version = _version_to_expect(
        if_match, expected, current_version=lambda: selectors.game_version_for_player(game_id=game_id, user=user)
    )
    assert version is not None
    return version


def _version_to_expect(
    if_match: str | None, expected: int | None, *, current_version: Callable[[], int]
) -> int | None:
    """The version a request that changes a game names, from If-Match and/or the
    body's ``expected_version``, for the service to check under the game's lock;
    None when it names none (no If-Match, or ``*``, and no ``expected_version``).

    When the two agree, or If-Match names one version, that is the version.
    Otherwise the game's version (``current_version``, read only then) decides
    between a 412 now (If-Match names only other versions, or none that is a
    version at all) and the body's version (a 409 from the service if stale).
    """
    if not names_any_version(if_match):
        return expected
    assert if_match is not None
    named = versions_named(if_match)
    if expected is not None and expected in named:
        return expected
    if expected is None and len(named) == 1:
        return next(iter(named))
    current = current_version()
    if current not in named:
        raise _precondition_failed(if_match, current)
    return expected if expected is not None else current


def _precondition_failed(if_match: str, current: int) -> PreconditionFailed:
    return PreconditionFailed(
        f"If-Match {header_for_message(if_match)} does not match the game's version {current}; "
        "read the game again and retry.",
        current_version=current,
    )


@contextmanager
def _stale_if_match_is_412(if_match: str | None) -> Iterator[None]:
    """A service's StaleVersion, for a version If-Match named, is that header's
    412; one for the body's ``expected_version`` stays a 409."""
    try:
        yield
    except StaleVersion as exc:
        current = exc.fields["current_version"]
        if names_any_version(if_match) and current not in versions_named(if_match or ""):
            raise _precondition_failed(if_match or "", current) from None
        raise


def _move_submit(
    game_id: str,
    user: User,
    text: str,
    expected: int | None,
    if_match: str | None,
    *,
    languages: tuple[str, ...] | None = None,
) -> services.MovePlayed:
    version = _expected_version(game_id, user, expected, if_match)
    with _stale_if_match_is_412(if_match):
        return services.move_submit(
            game_id=game_id, user=user, text=text, expected_version=version, languages=languages
        )


@retry_when_database_locked
def _move_submit_once(
    game_id: str,
    user: User,
    text: str,
    expected: int | None,
    if_match: str | None,
    *,
    key: str,
    fingerprint: str,
    languages: tuple[str, ...] | None = None,
) -> tuple[int, dict[str, Any], bool]:
    """Play the move and store its answer under the Idempotency-Key in one
    transaction; a key already used answers its stored response instead."""
    with transaction.atomic():
        record = IdempotencyRecord.objects.filter(user=user, key=key).first()
        if record is not None and record.created_at < _idempotency_cutoff():
            record.delete()  # past its time: the key is free again
            record = None
        if record is not None:
            return _replay(record, fingerprint)
        played = _move_submit(game_id, user, text, expected, if_match, languages=languages)
        # Stored for a replay: plain JSON values, as they will be read back.
        body = json.loads(json.dumps(_move_created_body(played, user), default=str))
        try:
            with transaction.atomic():
                IdempotencyRecord.objects.create(
                    user=user, key=key, fingerprint=fingerprint,
                    response_status=status.HTTP_201_CREATED, response_body=body,
                )
        except IntegrityError:
            # The same key, sent at the same moment for another game: this
            # move is rolled back with the rest of the transaction.
            raise IdempotencyKeyReused(
                "This Idempotency-Key was already used for a different request; use a new key for a new move."
            ) from None
    return status.HTTP_201_CREATED, body, False


def _idempotency_cutoff() -> datetime:
    """Records made before this are no longer honoured (IDEMPOTENCY_KEY_TTL_HOURS)."""
    return timezone.now() - timedelta(hours=settings.IDEMPOTENCY_KEY_TTL_HOURS)


def _replay(record: IdempotencyRecord, fingerprint: str) -> tuple[int, dict[str, Any], bool]:
    if record.fingerprint != fingerprint:
        raise IdempotencyKeyReused(
            "This Idempotency-Key was already used for a different request; use a new key for a new move."
        )
    return record.response_status, record.response_body, True


def _move_created_body(played: services.MovePlayed, user: User) -> dict[str, Any]:
    view = selectors.game_get_view(game=played.game, user=user)
    return _move_created_json({"move": played.move.text, "ply": played.move.ply, "game": view})


def _move_response(body: dict[str, Any], status_code: int, *, replayed: bool = False) -> Response:
    response = Response(body, status=status_code)
    response["ETag"] = etag_for(body["game"]["version"])
    if status_code == status.HTTP_201_CREATED:
        response["Location"] = reverse("games:game-moves", kwargs={"game_id": body["game"]["id"]})
    if replayed:
        response["Idempotent-Replayed"] = "true"
    return response


class GameResignView(APIView):
    permission_classes = [CanPlay, CanSeeGame]

    @extend_schema(
        operation_id="games_resign",
        summary="Resign",
        description="With two seats the other player wins at once. With more, the game goes on: the server plays "
        "your seat's turns with a quiet move and you rank last. With If-Match, only at a version it names.",
        parameters=[GAME_ID_PARAMETER, IF_MATCH_OPTIONAL, ETAG_HEADER],
        request=None,
        responses={
            200: GameViewSerializer,
            **game_problems(GameNotFound, NotAPlayer, GameNotActive, AlreadyResigned, PreconditionFailed, StaleVersion),
        },
    )
    def post(self, request: Request, game_id: str) -> Response:
        game = selectors.game_get(game_id=game_id)
        if_match = request.headers.get("If-Match")
        version = _version_to_expect(if_match, None, current_version=lambda: game.version)
        with _stale_if_match_is_412(if_match):
            services.game_resign(game=game, user=request_user(request), expected_version=version)
        return _game_view_response(game, request)


class GameCancelView(APIView):
    permission_classes = [CanPlay, CanSeeGame]

    @extend_schema(
        operation_id="games_cancel",
        summary="Cancel a game that has not started",
        description="Only its creator can. The game becomes `aborted`, and everyone invited is told. With If-Match, "
        "only at a version it names.",
        parameters=[GAME_ID_PARAMETER, IF_MATCH_OPTIONAL, ETAG_HEADER],
        request=None,
        responses={
            200: GameViewSerializer,
            **game_problems(GameNotFound, NotTheCreator, GameNotOpen, PreconditionFailed, StaleVersion),
        },
    )
    def post(self, request: Request, game_id: str) -> Response:
        if_match = request.headers.get("If-Match")
        version = _version_to_expect(
            if_match, None, current_version=lambda: selectors.game_get(game_id=game_id).version
        )
        with _stale_if_match_is_412(if_match):
            game = services.game_cancel(game_id=game_id, user=request_user(request), expected_version=version)
        return _game_view_response(selectors.game_get(game_id=game.pk), request)


class GameDeclineView(APIView):
    permission_classes = [CanPlay, CanSeeGame]

    @extend_schema(
        operation_id="games_decline",
        summary="Decline an invitation",
        description="Your reserved seat becomes open to anyone; if the creator reserved every other seat for "
        "invited players, the game is aborted instead. With If-Match, only at a version it names.",
        parameters=[GAME_ID_PARAMETER, IF_MATCH_OPTIONAL, ETAG_HEADER],
        request=None,
        responses={
            200: GameViewSerializer,
            **game_problems(GameNotFound, NotInvited, GameNotOpen, PreconditionFailed, StaleVersion),
        },
    )
    def post(self, request: Request, game_id: str) -> Response:
        if_match = request.headers.get("If-Match")
        version = _version_to_expect(
            if_match, None, current_version=lambda: selectors.game_get(game_id=game_id).version
        )
        with _stale_if_match_is_412(if_match):
            game = services.seat_decline(game_id=game_id, user=request_user(request), expected_version=version)
        return _game_view_response(selectors.game_get(game_id=game.pk), request)


class GameExportView(APIView):
    permission_classes = [CanRead]  # who may see it: game_get_visible

    @extend_schema(
        operation_id="games_export",
        summary="Export the game for replay",
        description="Variant, players, seed commitment and moves; once the game is over also the seed, so that "
        "anyone can check sha256(seed) against the commitment and replay the game.",
        parameters=[GAME_ID_PARAMETER],
        responses={200: GameExportSerializer, **game_problems(GameNotFound)},
    )
    def get(self, request: Request, game_id: str) -> Response:
        game = selectors.game_get_visible(game_id=game_id, user=request.user)
        body = dict(GameExportSerializer(selectors.game_export(game=game)).data)
        body["from_plan"] = plan_selectors.plan_plies(game=game)
        body.update(game_export_extras(game=game, user=request.user))
        return Response(body)


# --- players (accounts and games together: games may read accounts, not the reverse) ---


class MeExportView(APIView):
    permission_classes = [CanRead]

    @extend_schema(
        operation_id="me_export",
        summary="Export your own data",
        description="Your account, your tokens (never their secrets) and every game you hold or held a seat or an "
        "invitation in, with its seats and moves. Nothing another player could not see is in it but your own "
        "blind-reserved cards; the seed of a game only once it is over.",
        responses={200: PlayerExportSerializer, **game_problems()},
    )
    def get(self, request: Request) -> Response:
        export = selectors.player_export(user=request_user(request))
        return Response(PlayerExportSerializer(export).data)


class PlayerProfileView(APIView):
    permission_classes = [CanRead]

    @extend_schema(
        operation_id="players_retrieve",
        summary="A player's public profile",
        description="Display name, the day they joined, and the finished games they played and won in each variant.",
        parameters=[
            OpenApiParameter("username", OpenApiTypes.STR, OpenApiParameter.PATH, description="In any case.")
        ],
        responses={200: PlayerProfileSerializer, **game_problems(PlayerNotFoundError)},
    )
    def get(self, request: Request, username: str) -> Response:
        return Response(PlayerProfileSerializer(selectors.player_profile(username=username)).data)


class MeVacationView(APIView):
    permission_classes = [CanReadOrPlay]

    @extend_schema(
        operation_id="me_vacation_retrieve",
        summary="Your vacation days",
        description="Days used and left this calendar year (UTC), the vacation you are on now and those to come.",
        responses={200: VacationSummarySerializer, **game_problems()},
    )
    def get(self, request: Request) -> Response:
        return Response(VacationSummarySerializer(selectors.vacation_summary(user=request_user(request))).data)

    @extend_schema(
        operation_id="me_vacation_create",
        summary="Take vacation days",
        description="Takes whole days from now (after the vacation you are on, if any): your clocks stop in all "
        "your active games until it ends. Answers with your vacation days.",
        parameters=[location_header("Your vacation days, which list the vacation taken")],
        request=VacationInputSerializer,
        responses={
            201: VacationSummarySerializer,
            **game_problems(InvalidVacation, NotEnoughVacation, extra={400: "validation_error"}),
        },
        examples=[OpenApiExample("Three days off", value={"days": 3}, request_only=True)],
    )
    def post(self, request: Request) -> Response:
        data = VacationInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        user = request_user(request)
        services.vacation_take(user=user, days=data.validated_data["days"])
        response = Response(
            VacationSummarySerializer(selectors.vacation_summary(user=user)).data, status=status.HTTP_201_CREATED
        )
        response["Location"] = reverse("games:me-vacation")
        return response
