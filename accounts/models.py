from __future__ import annotations

from typing import Any, NoReturn

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.db.models.functions import Lower

from accounts.names import validate_display_name


class Scope(models.TextChoices):
    READ = "read", "Read: see games and the player's own data"
    PLAY = "play", "Play: create, join and resign games, submit moves (implies read)"


# What each scope grants; `play` implies `read`.
SCOPE_GRANTS: dict[str, frozenset[str]] = {
    Scope.READ: frozenset({Scope.READ}),
    Scope.PLAY: frozenset({Scope.PLAY, Scope.READ}),
}


def scopes_normalise(scopes: list[str] | tuple[str, ...] | set[str]) -> list[str]:
    """Sorted, de-duplicated, with implied scopes added. Unknown scopes raise ValueError."""
    granted: set[str] = set()
    for scope in scopes:
        if scope not in SCOPE_GRANTS:
            raise ValueError(f"unknown scope {scope!r}; known scopes: {', '.join(sorted(SCOPE_GRANTS))}")
        granted |= SCOPE_GRANTS[scope]
    return sorted(granted)


class Language(models.TextChoices):
    """The languages the service speaks: its pages, emails, email replies and the
    words of email commands (engine.grammar). The names are each language's own."""

    EN = "en", "English"
    IT = "it", "Italiano"
    LV = "lv", "Latviešu"


class Player(models.Model):
    """The game-facing side of a Django user. The email address lives on the user."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="player")
    # Shown to others, in plain-text email too: no control characters (accounts.names).
    display_name = models.CharField(max_length=64, validators=[validate_display_name])
    email_verified_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    # Set by accounts.services.player_erase: the row stays (seats keep pointing at
    # the user) but holds nothing that names the person.
    erased_at = models.DateTimeField(null=True, blank=True)
    # IANA name; deadlines and digests are shown in it.
    time_zone = models.CharField(max_length=64, default="UTC")
    # Set when mail to the address bounced hard: no more mail goes there until
    # the player changes it (the API and the game page warn them).
    email_undeliverable_at = models.DateTimeField(null=True, blank=True)
    email_undeliverable_reason = models.CharField(max_length=255, blank=True, default="")
    # Set by a moderator (accounts.services.player_suspend): the account's tokens and
    # seat links stop working and it cannot move; its seats stay and time out as
    # usual. Why is kept in the moderation log, not here.
    suspended_at = models.DateTimeField(null=True, blank=True)
    # The game page asks before it sends a move (a tap on the wrong card costs a turn).
    confirm_moves = models.BooleanField(default=True)
    # Every email, email reply and page the player gets is in it (docs/i18n.md);
    # chosen at sign-up from the browser's Accept-Language.
    language = models.CharField(max_length=8, choices=Language.choices, default=Language.EN)
    # An account the service itself holds seats with (a practice game's bot, a
    # sandbox's hot seat): no address, no password, never verified, so it is never
    # emailed, cannot sign in and has no public profile (accounts.services.system_account_get).
    system = models.BooleanField(default=False)

    class Meta:
        # What staff do to an account from the admin (accounts.services.account_actions):
        # no model permission fits, since neither edits the row.
        permissions = [
            ("disable_player", "Can disable a player's account"),
            ("erase_player", "Can erase a player's account for good"),
        ]

    def __str__(self) -> str:
        return self.display_name

    @property
    def is_erased(self) -> bool:
        return self.erased_at is not None

    @property
    def is_suspended(self) -> bool:
        return self.suspended_at is not None


class ApiToken(models.Model):
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens")
    name = models.CharField(max_length=64)
    key_hash = models.CharField(max_length=64, unique=True, editable=False)  # SHA-256 hex
    prefix = models.CharField(max_length=16, editable=False)
    scopes = models.JSONField(default=list)
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name = "API token"

    def __str__(self) -> str:
        return f"{self.prefix}… ({self.name})"

    @property
    def is_revoked(self) -> bool:
        return self.revoked_at is not None

    def has_scope(self, scope: str) -> bool:
        return scope in self.scopes


class EmailVerification(models.Model):
    """A code sent by email: to verify a sign-up or an address added to an account,
    or to mint a new token for an account whose owner lost theirs. Only a keyed hash of the code is kept."""

    class Purpose(models.TextChoices):
        SIGNUP = "signup", "Verify a sign-up"
        TOKEN_RECOVERY = "token_recovery", "Mint a token for a player who lost theirs"
        ADDRESS = "address", "Verify an address added to an account"

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="email_verifications"
    )
    purpose = models.CharField(max_length=16, choices=Purpose.choices, default=Purpose.SIGNUP)
    # For Purpose.ADDRESS: the added address the code goes to (accounts.services.addresses).
    email_address = models.ForeignKey(
        "EmailAddress", on_delete=models.CASCADE, null=True, blank=True, related_name="verifications"
    )
    code_hash = models.CharField(max_length=64)
    # The code is derived from this and SECRET_KEY (accounts.services), so the
    # worker that emails it needs only this row's id: no code in a task message.
    code_salt = models.CharField(max_length=32, blank=True, default="")
    expires_at = models.DateTimeField()
    failed_attempts = models.PositiveSmallIntegerField(default=0)
    used_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]


class PasswordFailures(models.Model):
    """Wrong passwords given for one username from one client address, to slow
    guessing without letting a stranger lock the owner out from elsewhere
    (accounts.services.login_check).

    The username is kept only as a SHA-256 digest (a row may name an account
    that does not exist, or one that is later erased), the address only as a
    keyed digest.
    """

    username_digest = models.CharField(max_length=64)
    client_digest = models.CharField(max_length=64, default="")
    failures = models.PositiveIntegerField(default=0)
    locked_until = models.DateTimeField(null=True, blank=True)
    last_failure_at = models.DateTimeField()

    class Meta:
        # One row holds all of one username's failures from one address: the name is plural already.
        verbose_name = verbose_name_plural = "password failures"
        constraints = [
            models.UniqueConstraint(fields=["username_digest", "client_digest"], name="password_failures_per_client")
        ]

    def __str__(self) -> str:
        return f"{self.username_digest[:12]}: {self.failures} failures"


class AccountEmailSent(models.Model):
    """An email with a code or a link (a sign-up code, a token recovery code, a
    password reset link) sent at someone's request: counted per recipient and
    per requesting client address, so that neither one address's inbox nor one
    client can be used to send many (accounts.services.account_email_take).

    Both addresses are kept only as keyed digests; rows older than the longest
    window are deleted (accounts.services.account_emails_forget_old).
    """

    class Kind(models.TextChoices):
        SIGNUP_CODE = "signup_code", "Sign-up code"
        RECOVERY_CODE = "recovery_code", "Token recovery code"
        PASSWORD_RESET = "password_reset", "Password reset link"
        ADDRESS_CODE = "address_code", "Added address's code"

    kind = models.CharField(max_length=16, choices=Kind.choices)
    address_digest = models.CharField(max_length=64)
    client_digest = models.CharField(max_length=64)
    sent_at = models.DateTimeField()

    class Meta:
        verbose_name = "account email sent"
        verbose_name_plural = "account emails sent"
        indexes = [
            models.Index(fields=["address_digest", "sent_at"], name="account_email_by_address"),
            models.Index(fields=["client_digest", "sent_at"], name="account_email_by_client"),
        ]


class UsernameSkeleton(models.Model):
    """The confusable skeleton of an account's username (accounts.names), kept so
    that a new username is compared with every other in one indexed look-up.
    Written whenever a username is saved, whatever saves it (accounts.receivers).
    Not unique: accounts made before skeletons were compared may share one, and
    keep their names."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, primary_key=True, related_name="username_skeleton"
    )
    digest = models.CharField(max_length=64, db_index=True)

    class Meta:
        verbose_name = "username skeleton"


class EmailAddress(models.Model):
    """An address of the account besides its primary one (``User.email``, verified
    when ``Player.email_verified_at`` is set): play by email believes a reply from
    any verified one (notifications.inbound.services), and game email goes to the
    primary only. Making one primary swaps it with ``User.email``
    (accounts.services.addresses). A verified address belongs to one account; an
    unverified one claims nothing, so several accounts may be waiting to verify
    the same one, and verifying it removes the others' rows."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="email_addresses")
    address = models.EmailField(max_length=254)
    verified_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at", "id"]
        verbose_name = "email address"
        verbose_name_plural = "email addresses"
        constraints = [
            models.UniqueConstraint(Lower("address"), "user", name="email_address_once_per_account"),
            models.UniqueConstraint(
                Lower("address"), condition=Q(verified_at__isnull=False), name="email_address_verified_once"
            ),
        ]

    def __str__(self) -> str:
        return self.address

    @property
    def is_verified(self) -> bool:
        return self.verified_at is not None


class CalendarFeed(models.Model):
    """The secret in the address of an account's deadlines calendar,
    ``/calendar/<secret>.ics`` (calendars.views, docs/calendar.md).

    Kept in clear, since the settings page and ``GET /api/v1/me/`` show the address
    whenever asked; looked up only by its SHA-256 (``secret_digest``), so that how
    long a look-up takes tells nothing about the stored secrets. Made on first need
    (accounts.services.calendar_feed_get), replaced by a rotation, after which the
    old address answers 404; deleted when the account is erased. Never logged
    (api.log_redaction), exported or shown whole in the admin."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="calendar_feed")
    secret = models.CharField(max_length=64, editable=False)
    secret_digest = models.CharField(max_length=64, unique=True, editable=False)  # SHA-256 hex of secret
    created_at = models.DateTimeField(auto_now_add=True)
    rotated_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name = "calendar feed"

    def __str__(self) -> str:
        return f"calendar feed of account {self.user_id} (…{self.secret_tail})"

    @property
    def secret_tail(self) -> str:
        """The last four characters: enough to tell two addresses apart, nothing to open one with."""
        return self.secret[-4:]


class AccountActionLogQuerySet(models.QuerySet["AccountActionLog"]):
    """Rows are only ever added: a bulk update or delete is refused as ``save`` and
    ``delete`` are on one row."""

    def update(self, **kwargs: Any) -> NoReturn:
        raise ValueError("The account action log is append-only: an entry is never changed.")

    def delete(self) -> NoReturn:
        raise ValueError("The account action log is append-only: an entry is never deleted.")


class AccountActionLog(models.Model):
    """What staff did to an account from the admin: disabled or erased it
    (accounts.services.account_actions). Append-only: nothing updates or deletes a
    row, and the admin shows them to superusers alone, read-only.

    The account is named by its user id and by its username *at the time*, kept on
    purpose when the account is erased: it is the record of why and by whom.
    ``reason`` is the staff's own (never sent); ``message_sent`` is the email the
    person was sent, word for word, empty when there was no address to send it to."""

    class Action(models.TextChoices):
        DISABLED = "disabled", "Disabled the account"
        ERASED = "erased", "Erased the account"

    actor_user_id = models.IntegerField(help_text="The staff user who acted (a user id).")
    target_user_id = models.IntegerField(db_index=True)
    target_username = models.CharField(max_length=150)
    action = models.CharField(max_length=16, choices=Action.choices)
    reason = models.TextField()
    message_sent = models.TextField(blank=True, default="")
    at = models.DateTimeField(db_index=True)

    objects = AccountActionLogQuerySet.as_manager()

    class Meta:
        ordering = ["-at", "-id"]
        verbose_name = "account action log entry"
        verbose_name_plural = "account action log entries"

    def save(self, *args: Any, **kwargs: Any) -> None:
        if not self._state.adding:
            raise ValueError("The account action log is append-only: an entry is never changed.")
        super().save(*args, **kwargs)

    def delete(self, *args: Any, **kwargs: Any) -> NoReturn:
        raise ValueError("The account action log is append-only: an entry is never deleted.")

    def __str__(self) -> str:
        return f"{self.get_action_display()}: {self.target_username} (user {self.target_user_id})"
