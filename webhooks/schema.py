"""The webhooks API's error body in the OpenAPI schema."""

from __future__ import annotations

from rest_framework import serializers

from games.schema import GameProblemSerializer


class WebhookProblemSerializer(GameProblemSerializer):
    """Problem details; the members below appear only with the codes named in their help text."""

    max_webhooks = serializers.IntegerField(
        required=False, help_text="too_many_webhooks: the most webhooks one player may have."
    )
