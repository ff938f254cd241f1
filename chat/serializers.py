"""Input and output shapes of the table-talk API."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers
from django.core.validators import ProhibitNullCharactersValidator

from api.serializers import StrictInputSerializer
from chat.models import MAX_MESSAGE_LENGTH, MAX_REPORT_REASON_LENGTH
from chat.selectors import THREADS
from games.serializers import ExportChatLineSerializer

THREAD_HELP = (
    "`players` (the default): the game's players' own table talk. `spectators`: a public game's spectators' thread."
)


class PlainTextField(serializers.CharField):
    """Text whose control characters the service removes (NUL included), rather than refuses."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.validators = [v for v in self.validators if not isinstance(v, ProhibitNullCharactersValidator)]


class ChatLineSerializer(ExportChatLineSerializer):
    """A line of a thread (chat.selectors.ChatLine); the game's export gives the same."""


class ChatThreadSerializer(serializers.Serializer[dict[str, Any]]):
    game_id = serializers.CharField()
    thread = serializers.ChoiceField(choices=THREADS)
    lines = ChatLineSerializer(many=True, help_text="Oldest first.")


class ChatPostSerializer(StrictInputSerializer):
    """A line of table talk to post in the thread the query names."""

    text = PlainTextField(
        max_length=MAX_MESSAGE_LENGTH * 4,  # the service counts what is left once control characters are out
        trim_whitespace=False,
        help_text=f"Plain text, at most {MAX_MESSAGE_LENGTH} characters; control characters are removed.",
    )


class ChatPreferencesSerializer(serializers.Serializer[dict[str, Any]]):
    muted = serializers.BooleanField(help_text="No table talk of this game anywhere: page, email, stream, webhooks.")
    spectators_hidden = serializers.BooleanField(help_text="The spectators' thread of a public game kept out of sight.")
    email_each_line = serializers.BooleanField(
        help_text="An email for each new line, instead of the new lines in your next game email."
    )


class ChatPreferencesUpdateSerializer(StrictInputSerializer):
    """Your choices about this game's table talk; each field is optional."""

    muted = serializers.BooleanField(required=False)
    spectators_hidden = serializers.BooleanField(required=False)
    email_each_line = serializers.BooleanField(required=False)


class ChatReportSerializer(StrictInputSerializer):
    """The line to report to the moderators, and why (optional)."""

    message_id = serializers.IntegerField(help_text="The line's `id`.")
    reason = PlainTextField(
        required=False, allow_blank=True, max_length=MAX_REPORT_REASON_LENGTH * 4,
        help_text=f"What is wrong with the line, at most {MAX_REPORT_REASON_LENGTH} characters (optional).",
    )


class ChatReportAnswerSerializer(serializers.Serializer[dict[str, Any]]):
    message_id = serializers.IntegerField()
    reported = serializers.BooleanField()


class ChatExportSerializer(serializers.Serializer[dict[str, Any]]):
    game_id = serializers.CharField()
    lines = ChatLineSerializer(many=True, help_text="Both threads, oldest first.")
