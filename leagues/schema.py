"""The leagues API's error body in the OpenAPI schema."""

from __future__ import annotations

from rest_framework import serializers

from games.schema import GameProblemSerializer


class LeagueProblemSerializer(GameProblemSerializer):
    """Problem details; the members below appear only with the codes named in their help text."""

    membership_status = serializers.CharField(
        required=False, help_text="already_a_member: pending, active or leaving."
    )
    reliability = serializers.FloatField(
        required=False, help_text="reliability_too_low: your share of turns played before the deadline, in percent."
    )
    min_reliability = serializers.IntegerField(
        required=False, help_text="reliability_too_low: the least share the league takes, in percent."
    )
