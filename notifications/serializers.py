"""Input and output shapes of the notifications API (preferences and mutes)."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext_lazy as _
from rest_framework import serializers

from api.serializers import JSONIntegerField, StrictInputSerializer
from notifications.preferences.services import MAX_REMINDER_HOURS, MAX_REMINDERS, MODES

MODE_HELP = (
    "`every_turn`: an email whenever it is your turn (and the other game news); `digest`: one email a day, at "
    "`digest_hour`, listing the games waiting on you; `off`: no game email."
)

PUSH_HELP = (
    "A push notification to your subscribed browsers (POST /api/v1/me/push-subscriptions/) %s, "
    "whatever `mode` says of email."
)


class PreferencesSerializer(serializers.Serializer[dict[str, Any]]):
    mode = serializers.ChoiceField(choices=MODES, help_text=MODE_HELP)
    digest_hour = serializers.IntegerField(
        min_value=0, max_value=23, help_text="The hour (0-23) in your time zone at which the digest goes out."
    )
    reminder_hours = serializers.ListField(
        child=serializers.IntegerField(min_value=1, max_value=MAX_REMINDER_HOURS),
        max_length=MAX_REMINDERS,
        help_text="Hours before each deadline at which a reminder is emailed, such as [24, 2]; [] for none.",
    )
    muted_games = serializers.ListField(
        child=serializers.CharField(),
        read_only=True,
        help_text="Ids of the games you muted (PUT/DELETE /api/v1/games/{id}/mute/): no email about them.",
    )
    next_digest_at = serializers.DateTimeField(
        read_only=True, allow_null=True, help_text="When your next digest is due (UTC); null unless mode is digest."
    )
    push_your_turn = serializers.BooleanField(help_text=PUSH_HELP % "when it is your turn")
    push_reminder = serializers.BooleanField(help_text=PUSH_HELP % "for each reminder before a deadline")
    push_invitation = serializers.BooleanField(help_text=PUSH_HELP % "when you are invited to a game")
    push_chat_line = serializers.BooleanField(
        help_text=PUSH_HELP % "for each line of table talk, in the games where you asked for each line"
    )
    push_game_over = serializers.BooleanField(help_text=PUSH_HELP % "when a game of yours is over")


class PreferencesUpdateSerializer(StrictInputSerializer):
    """Change how you are told of your games; each field is optional, and the ones sent are checked
    together before any is saved."""

    mode = serializers.ChoiceField(
        choices=MODES,
        required=False,
        help_text=MODE_HELP,
        error_messages={"invalid_choice": _('"{input}" is not a mode; choose one of every_turn, digest, off.')},
    )
    digest_hour = JSONIntegerField(
        required=False,
        min_value=0,
        max_value=23,
        help_text="0-23, in your time zone.",
        error_messages={
            "min_value": _("An hour of the day runs from 0 to 23."),
            "max_value": _("An hour of the day runs from 0 to 23."),
        },
    )
    # Whole numbers only; their range, count and repeats are checked by the service, which names the bad one.
    reminder_hours = serializers.ListField(
        child=JSONIntegerField(),
        required=False,
        allow_empty=True,
        help_text=f"Distinct whole numbers of hours, 1 to {MAX_REMINDER_HOURS}, at most {MAX_REMINDERS}.",
    )
    push_your_turn = serializers.BooleanField(required=False, help_text="Push when it is your turn.")
    push_reminder = serializers.BooleanField(required=False, help_text="Push each reminder.")
    push_invitation = serializers.BooleanField(required=False, help_text="Push invitations.")
    push_chat_line = serializers.BooleanField(required=False, help_text="Push each line of table talk you asked for.")
    push_game_over = serializers.BooleanField(required=False, help_text="Push when a game is over.")


class MuteSerializer(serializers.Serializer[dict[str, Any]]):
    game_id = serializers.CharField()
    muted = serializers.BooleanField()
