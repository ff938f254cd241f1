"""The games API's error body in the OpenAPI schema: the problem body with the
extension members of the games codes (``games.errors``)."""

from __future__ import annotations

from rest_framework import serializers

from accounts.serializers import AccountProblemSerializer


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
    your_seat = serializers.IntegerField(required=False, help_text="not_your_turn: the caller's seat.")
    game_status = serializers.CharField(required=False, help_text="game_not_active: the game's status.")
    next_invitation_at = serializers.DateTimeField(
        required=False, help_text="too_many_invitations: when the next invitation is possible."
    )
    days_left = serializers.IntegerField(
        required=False, help_text="not_enough_vacation: the vacation days left this calendar year."
    )
