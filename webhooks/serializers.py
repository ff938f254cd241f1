"""Request and response bodies of the webhooks API."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext
from rest_framework import serializers

from api.serializers import JSONStringField, StrictInputSerializer
from webhooks.models import MAX_URL_LENGTH, Delivery, DeliveryAttempt, Endpoint
from webhooks.services import MAX_EVENTS_PER_ENDPOINT

_URL_HELP = "Where events are POSTed: https:// (or http://) on a host with public addresses only."
_EVENTS_HELP = (
    "The event names to send (docs/webhooks.md lists them: game_created, move_played, ...); "
    "empty or left out: all of them (for discord and slack: game_started, move_played, game_finished)."
)
_FORMAT_HELP = (
    "standard: the event as JSON signed per Standard Webhooks; discord or slack: one line of text for a "
    "Discord or Slack incoming webhook (only game_started, move_played and game_finished are posted)."
)
_LEAGUE_HELP = (
    "A league's id: post every public game of the league here (discord or slack only; you must be one of "
    "the league's admins). Left out or null: the events of your own games. Fixed once registered."
)


class WebhookCreateInputSerializer(StrictInputSerializer):
    """Register a webhook: the URL the events are POSTed to and which events."""

    url = JSONStringField(max_length=MAX_URL_LENGTH, trim_whitespace=False, help_text=_URL_HELP)
    events = serializers.ListField(
        child=JSONStringField(max_length=64),
        max_length=MAX_EVENTS_PER_ENDPOINT,
        default=list,
        help_text=_EVENTS_HELP,
    )
    format = serializers.ChoiceField(
        choices=Endpoint.Format.choices, default=Endpoint.Format.STANDARD, help_text=_FORMAT_HELP
    )
    league = serializers.IntegerField(required=False, allow_null=True, min_value=1, help_text=_LEAGUE_HELP)


class WebhookUpdateInputSerializer(StrictInputSerializer):
    """Change a webhook: its URL, its events, or whether it is active; only the fields sent change."""

    url = JSONStringField(
        max_length=MAX_URL_LENGTH, trim_whitespace=False, required=False, help_text=_URL_HELP
    )
    events = serializers.ListField(
        child=JSONStringField(max_length=64),
        max_length=MAX_EVENTS_PER_ENDPOINT,
        required=False,
        help_text=_EVENTS_HELP,
    )
    format = serializers.ChoiceField(choices=Endpoint.Format.choices, required=False, help_text=_FORMAT_HELP)
    is_active = serializers.BooleanField(
        required=False,
        help_text="true re-enables a disabled webhook (its failure count starts again); false pauses it.",
    )

    def to_internal_value(self, data: Any) -> dict[str, Any]:
        value = super().to_internal_value(data)
        is_active = data.get("is_active") if isinstance(data, dict) else None
        if "is_active" in value and not isinstance(is_active, bool):
            raise serializers.ValidationError(
                {"is_active": [gettext("Must be true or false, written without quotes.")]}
            )
        return value


class WebhookSerializer(serializers.ModelSerializer[Endpoint]):
    events = serializers.ListField(child=serializers.CharField(), help_text="Empty: every event.")
    format = serializers.ChoiceField(choices=Endpoint.Format.choices, read_only=True, help_text=_FORMAT_HELP)
    league = serializers.IntegerField(
        source="league_id", read_only=True, allow_null=True, help_text="The league whose public games are posted here; null: your own games."
    )

    class Meta:
        model = Endpoint
        fields = [
            "id",
            "url",
            "format",
            "league",
            "events",
            "is_active",
            "disabled_at",
            "disabled_reason",
            "consecutive_failures",
            "created_at",
        ]
        read_only_fields = fields


class WebhookWithSecretSerializer(WebhookSerializer):
    secret = serializers.CharField(
        read_only=True,
        help_text="The signing secret (whsec_...), shown this once: keep it to verify the signatures.",
    )

    class Meta(WebhookSerializer.Meta):
        fields = [*WebhookSerializer.Meta.fields, "secret"]
        read_only_fields = fields


class DeliveryAttemptSerializer(serializers.ModelSerializer[DeliveryAttempt]):
    class Meta:
        model = DeliveryAttempt
        fields = ["attempted_at", "status_code", "error", "duration_ms"]
        read_only_fields = fields


class DeliverySerializer(serializers.ModelSerializer[Delivery]):
    # A plain string in the schema: a second enum of fields named `status` would
    # rename the games' StatusEnum component (drf-spectacular's enum naming).
    status = serializers.CharField(read_only=True, help_text="pending (more attempts to come), succeeded or failed.")
    event_id = serializers.IntegerField(read_only=True)
    type = serializers.CharField(source="event.kind", read_only=True, help_text="The event's name.")
    game_id = serializers.CharField(source="event.game_id", read_only=True)
    attempt_count = serializers.IntegerField(source="attempts", read_only=True)
    attempts = DeliveryAttemptSerializer(source="attempt_log", many=True, read_only=True)

    class Meta:
        model = Delivery
        fields = [
            "id",
            "message_id",
            "event_id",
            "type",
            "game_id",
            "status",
            "attempt_count",
            "next_attempt_at",
            "last_status_code",
            "last_error",
            "created_at",
            "delivered_at",
            "attempts",
        ]
        read_only_fields = fields
