"""Input and output shapes of the accounts API."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.validators import UnicodeUsernameValidator
from django.utils.translation import gettext
from rest_framework import serializers

from accounts.models import ApiToken, Language, Player, Scope
from accounts.selectors import AddressEntry, player_email_warning
from accounts.services.calendar_feeds import calendar_feed_get, calendar_url
from api.problems import ProblemSerializer
from api.serializers import StrictInputSerializer

SCOPE_CHOICES = [scope.value for scope in Scope]


class SignupSerializer(StrictInputSerializer):
    """Sign up: the account to make. A code is emailed to the address; the account plays once it is
    verified (POST /api/v1/players/verify/)."""

    username = serializers.CharField(max_length=150, validators=[UnicodeUsernameValidator()])
    email = serializers.EmailField()
    password = serializers.CharField(write_only=True, style={"input_type": "password"})
    display_name = serializers.CharField(max_length=64, required=False, allow_blank=False)
    language = serializers.ChoiceField(
        choices=Language.choices,
        required=False,
        help_text="The language of the account's emails and pages; without it, the request's Accept-Language "
        "(en when it names none of en, it, lv).",
    )


class SignupAcceptedSerializer(serializers.Serializer[dict[str, str]]):
    username = serializers.CharField()
    email = serializers.EmailField()
    detail = serializers.CharField()


class _SignedUpAsSerializer(StrictInputSerializer):
    """Names a sign-up by its username or, failing that, its email address."""

    username = serializers.CharField(required=False, max_length=150)
    email = serializers.EmailField(required=False)

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if not attrs.get("username") and not attrs.get("email"):
            raise serializers.ValidationError(
                {"username": [gettext("Give the username or the email address you signed up with.")]}
            )
        return attrs


class VerifySerializer(_SignedUpAsSerializer):
    """Verify a sign-up with the code emailed to its address."""

    code = serializers.CharField(max_length=64)


class ResendSerializer(_SignedUpAsSerializer):
    """Ask for a new sign-up code, sent to the address the account signed up with."""

    pass


class ResendAcceptedSerializer(serializers.Serializer[dict[str, str]]):
    detail = serializers.CharField()


class TokenCreateSerializer(StrictInputSerializer):
    """Mint an API token: its name and scopes, and, for the first token, the account's username
    and password instead of a Bearer token."""

    name = serializers.CharField(max_length=64)
    scopes = serializers.ListField(
        child=serializers.ChoiceField(choices=SCOPE_CHOICES), default=lambda: ["read", "play"], allow_empty=False
    )
    username = serializers.CharField(
        required=False, help_text="With `password`: mint your first token without a Bearer token."
    )
    password = serializers.CharField(required=False, write_only=True, style={"input_type": "password"})

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if bool(attrs.get("username")) != bool(attrs.get("password")):
            raise serializers.ValidationError(
                {"password": [gettext("Give both username and password, or neither (and a Bearer token).")]}
            )
        return attrs


class TokenSerializer(serializers.ModelSerializer[ApiToken]):
    # Declared: the model keeps them in a JSONField, which the schema cannot type.
    scopes = serializers.ListField(
        child=serializers.ChoiceField(choices=SCOPE_CHOICES), read_only=True, help_text="What the token may do."
    )
    revoked = serializers.BooleanField(source="is_revoked", read_only=True)

    class Meta:
        model = ApiToken
        fields = ["id", "name", "prefix", "scopes", "created_at", "last_used_at", "revoked_at", "revoked"]
        read_only_fields = fields


class TokenCreatedSerializer(TokenSerializer):
    token = serializers.SerializerMethodField(help_text="The secret. Shown once; store it now.")

    class Meta(TokenSerializer.Meta):
        fields = [*TokenSerializer.Meta.fields, "token"]
        read_only_fields = fields

    def get_token(self, obj: ApiToken) -> str:
        plaintext: str = self.context["plaintext"]
        return plaintext


class MeSerializer(serializers.ModelSerializer[Player]):
    id = serializers.IntegerField(
        source="user_id",
        help_text="Your account's id: events (the stream, webhooks) name people by it, as user_id, invited_ids, ...",
    )
    username = serializers.CharField(source="user.username")
    email = serializers.EmailField(source="user.email")
    scopes = serializers.SerializerMethodField()
    time_zone = serializers.CharField(
        help_text="IANA time zone name; deadlines in email and the digest hour are read in it."
    )
    email_warning = serializers.SerializerMethodField(
        help_text="Set when mail to your address bounced: no game email goes to it until you change it."
    )
    confirm_moves = serializers.BooleanField(help_text="The game page asks you to confirm a move before it is sent.")
    language = serializers.ChoiceField(
        choices=Language.choices, help_text="The language of your emails, email replies and pages."
    )
    calendar_url = serializers.SerializerMethodField(
        help_text="Your deadlines calendar (iCalendar), to subscribe to in a calendar app (docs/calendar.md). "
        "Anyone with this address sees your deadlines: keep it secret, and replace it with POST "
        "/api/v1/me/calendar/rotate/ if it got out."
    )

    class Meta:
        model = Player
        fields = [
            "id", "username", "email", "display_name", "email_verified_at", "created_at", "scopes", "time_zone",
            "email_warning", "confirm_moves", "language", "calendar_url",
        ]
        read_only_fields = fields

    def get_scopes(self, obj: Player) -> list[str]:
        """The scopes of the token that made this request."""
        token = self.context.get("token")
        return list(token.scopes) if isinstance(token, ApiToken) else []

    def get_email_warning(self, obj: Player) -> str | None:
        return player_email_warning(player=obj)

    def get_calendar_url(self, obj: Player) -> str:
        return calendar_url(feed=calendar_feed_get(user=obj.user))


class CalendarUrlSerializer(serializers.Serializer[dict[str, str]]):
    calendar_url = serializers.CharField(
        help_text="The new address of your deadlines calendar; the one before it answers 404 from now on."
    )


class MeUpdateSerializer(StrictInputSerializer):
    """Change your account's settings; each field is optional and only those sent change."""

    time_zone = serializers.CharField(
        required=False, max_length=200, help_text='An IANA time zone name, such as "Europe/Riga" or "UTC".'
    )
    confirm_moves = serializers.BooleanField(
        required=False, help_text="true: the game page asks you to confirm a move before it is sent."
    )
    language = serializers.ChoiceField(
        choices=Language.choices,
        required=False,
        help_text="en, it or lv: the language of your emails, email replies and pages.",
    )


class AccountProblemSerializer(ProblemSerializer):
    """Problem details; the members below appear only with the codes named in their help text."""

    # The error body with the accounts codes' extension members, for the schema only.

    required_scope = serializers.CharField(required=False, help_text="insufficient_scope: the scope the token lacks.")
    attempts_left = serializers.IntegerField(
        required=False, help_text="verification_failed: wrong codes still allowed."
    )


class EraseSerializer(StrictInputSerializer):
    """Erase your account: your username typed back as the confirmation."""

    # Not required here: a missing confirmation gets the service's answer, which says what to send.
    confirm = serializers.CharField(
        required=False, max_length=150, help_text="Your username, typed back: erasing cannot be undone."
    )


class PasswordSetSerializer(StrictInputSerializer):
    """Set a new password for your account."""

    password = serializers.CharField(write_only=True, style={"input_type": "password"}, max_length=4096)


class TokenRecoverSerializer(StrictInputSerializer):
    """Ask for a code to mint a new token, emailed to your account's address."""

    email = serializers.EmailField(help_text="The address of your account.")


class TokenRecoverAcceptedSerializer(serializers.Serializer[dict[str, str]]):
    detail = serializers.CharField()


class TokenRecoverConfirmSerializer(StrictInputSerializer):
    """Mint a new token with the code emailed by POST /api/v1/tokens/recover/."""

    email = serializers.EmailField()
    code = serializers.CharField(max_length=64, help_text="The code from the email.")
    name = serializers.CharField(max_length=64, help_text="A name for the new token, to tell it apart.")


class EmailAddressSerializer(serializers.Serializer[AddressEntry]):
    """One of your email addresses."""

    # Renders accounts.selectors.AddressEntry.

    id = serializers.IntegerField(
        allow_null=True,
        help_text="The added address's id, for the endpoints under /api/v1/me/emails/{id}/; null for the primary "
        "address, which is your account's `email`.",
    )
    address = serializers.EmailField()
    verified = serializers.BooleanField(help_text="Replies by email from a verified address play; others never do.")
    verified_at = serializers.DateTimeField(allow_null=True)
    primary = serializers.BooleanField(help_text="Game email goes to the primary address.")
    created_at = serializers.DateTimeField()


class EmailAddressAddSerializer(StrictInputSerializer):
    """Add an email address to your account; a code is emailed to it."""

    address = serializers.EmailField(max_length=254, help_text="The address to add; a code is emailed to it.")


class EmailAddressVerifySerializer(StrictInputSerializer):
    """Verify an added email address with the code emailed to it."""

    code = serializers.CharField(max_length=64, help_text="The code emailed to the address.")


class AccountExportSerializer(serializers.Serializer[dict[str, Any]]):
    username = serializers.CharField()
    email = serializers.EmailField()
    display_name = serializers.CharField()
    date_joined = serializers.DateTimeField()
    last_login = serializers.DateTimeField(allow_null=True, help_text="The last sign-in to the admin, if any.")
    email_verified_at = serializers.DateTimeField(allow_null=True)
    has_password = serializers.BooleanField(help_text="Whether a password is set (never the password).")
    addresses = EmailAddressSerializer(many=True, help_text="Every address of the account, the primary one first.")
