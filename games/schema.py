"""The games API in the OpenAPI schema: the error body (the problem body with the
extension members of the games codes, ``games.errors``), the error answers each
view lists, and the parameters the game routes share."""

from __future__ import annotations

from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse
from rest_framework import serializers

from accounts.serializers import AccountProblemSerializer
from api.openapi import problem_responses
from core.errors import DomainError


class GameProblemSerializer(AccountProblemSerializer):
    """Problem details; the members below appear only with the codes named in their help text."""

    rule = serializers.CharField(
        required=False, help_text="illegal_move, ambiguous_move: the id of the rule the move breaks (B-TAKE-2)."
    )
    choices = serializers.ListField(
        child=serializers.CharField(),
        required=False,
        help_text="ambiguous_move: every complete legal move the incomplete one could mean, in canonical text.",
    )
    current_version = serializers.IntegerField(
        required=False,
        help_text="stale_version, precondition_failed, precondition_required: the game's version now; "
        "read it and retry.",
    )
    to_move = serializers.IntegerField(required=False, help_text="not_your_turn: the seat whose turn it is.")
    to_move_username = serializers.CharField(
        required=False, help_text="not_your_turn: the username of the player whose turn it is, as in the game's seats."
    )
    your_seat = serializers.IntegerField(required=False, help_text="not_your_turn: the caller's seat.")
    game_status = serializers.CharField(required=False, help_text="game_not_active: the game's status.")
    next_invitation_at = serializers.DateTimeField(
        required=False, help_text="too_many_invitations: when the next invitation is possible."
    )
    practice_games_active = serializers.IntegerField(
        required=False, help_text="too_many_practice_games: your practice games and sandboxes in play now."
    )
    practice_games_limit = serializers.IntegerField(
        required=False, help_text="too_many_practice_games: how many one account may have in play at once."
    )
    days_left = serializers.IntegerField(
        required=False, help_text="not_enough_vacation: the vacation days left this calendar year."
    )
    known_bots = serializers.ListField(
        child=serializers.CharField(),
        required=False,
        help_text="invalid_game_setup, for a bot name it does not know: the bots there are.",
    )


# --- what the game views share in the schema -----------------------------------

AUTH_PROBLEMS = {
    401: "not_authenticated, invalid_token, token_revoked, account_disabled, account_suspended: send `Authorization: Bearer <token>` "
    "with a token that works.",
    403: "insufficient_scope: the token lacks the scope this endpoint needs.",
    429: "throttled: too many requests; see Retry-After.",
}


def game_problems(*problems: type[DomainError], extra: dict[int, str] | None = None) -> dict[Any, OpenApiResponse]:
    """Document error responses: every status with the stable codes it can carry."""
    return problem_responses(problems, serializer=GameProblemSerializer, notes=AUTH_PROBLEMS, extra=extra)


ETAG_HEADER = OpenApiParameter(
    "ETag", OpenApiTypes.STR, OpenApiParameter.HEADER, response=[200, 201, 304], description='"<version>"'
)
GAME_ID_PARAMETER = OpenApiParameter("game_id", OpenApiTypes.STR, OpenApiParameter.PATH, description="The game's public id.")
# On the routes that change a game other than a move, If-Match is optional: when
# sent, the change is made only at a version it names.
IF_MATCH_OPTIONAL = OpenApiParameter(
    "If-Match",
    OpenApiTypes.STR,
    OpenApiParameter.HEADER,
    description='Optional: "<version>". When sent, the change is made only if the game is at a version it names; '
    "otherwise 412 precondition_failed and nothing changes.",
)
