"""What the notifications app keeps: players' preferences, per-game mutes, every
notification it decided to send (one row per event, recipient and kind, so a
repeat delivery of an event sends nothing twice), scheduled reminders and
addresses that asked for no invitations."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _


def default_reminder_hours() -> list[int]:
    return [24, 2]


class Preferences(models.Model):
    """A player's choices about email. A player without a row has the defaults."""

    class Mode(models.TextChoices):
        EVERY_TURN = "every_turn", _("An email for every turn")
        DIGEST = "digest", _("A daily digest of games waiting on me")
        OFF = "off", _("No game email")

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="notification_preferences"
    )
    mode = models.CharField(max_length=16, choices=Mode.choices, default=Mode.EVERY_TURN)
    # The hour (0-23) in the player's time zone at which the digest goes out.
    digest_hour = models.PositiveSmallIntegerField(default=8)
    # Hours before a deadline at which a reminder goes out; empty for none.
    reminder_hours = models.JSONField(default=default_reminder_hours)
    # When the next digest is due (UTC), kept so the digest sweep is an index scan.
    next_digest_at = models.DateTimeField(null=True, blank=True, db_index=True)
    # Which kinds of news also go by push to the player's browsers (PushSubscription),
    # whatever ``mode`` says of email. A chat line goes only to a player who asked for
    # each line of a game's table talk (chat.ChatPreference.email_each_line).
    push_your_turn = models.BooleanField(default=True)
    push_reminder = models.BooleanField(default=True)
    push_invitation = models.BooleanField(default=True)
    push_chat_line = models.BooleanField(default=True)
    push_game_over = models.BooleanField(default=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        # One row holds all of one player's choices: the name is plural already.
        verbose_name = verbose_name_plural = "email preferences"

    def __str__(self) -> str:
        return f"{self.user_id}: {self.mode}"


class GameMute(models.Model):
    """No email about this game for this player (the API's PUT .../mute/)."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    game = models.ForeignKey("games.Game", on_delete=models.CASCADE, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "game"], name="gamemute_unique_user_game")]

    def __str__(self) -> str:
        return f"{self.user_id} mutes {self.game_id}"


class Notification(models.Model):
    """One email decided for one recipient. ``key`` is unique: the same event,
    recipient and kind (or the same reminder, or the same digest) is recorded
    once, so at-least-once delivery of events never sends a second copy unless
    a worker died between handing the message to the mail server and saving
    ``sent_at``."""

    class Status(models.TextChoices):
        QUEUED = "queued"
        SENT = "sent"
        FAILED = "failed"  # gave up after retries
        SUPPRESSED = "suppressed"  # not sent: muted, off, opted out, undeliverable

    key = models.CharField(max_length=160, unique=True)
    kind = models.CharField(max_length=32)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    game = models.ForeignKey("games.Game", on_delete=models.CASCADE, null=True, blank=True, related_name="+")
    event = models.ForeignKey("games.GameEvent", on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.QUEUED)
    subject = models.CharField(max_length=200, blank=True, default="")
    message_id = models.CharField(max_length=200, blank=True, default="")
    attempts = models.PositiveIntegerField(default=0)
    # When a queued notification is next tried (SMTP errors back off).
    next_attempt_at = models.DateTimeField(null=True, blank=True)
    last_error = models.CharField(max_length=500, blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)
    sent_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [
            models.Index(
                fields=["next_attempt_at"], condition=Q(status="queued"), name="notification_due_idx"
            ),
            models.Index(fields=["user", "-created_at"], name="notification_user_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.kind} to {self.user_id} ({self.status})"


class Reminder(models.Model):
    """A reminder due before a seat's deadline. Rows are written when a turn
    starts and swept when due; one whose deadline has since changed is dropped."""

    game = models.ForeignKey("games.Game", on_delete=models.CASCADE, related_name="+")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    deadline_at = models.DateTimeField()
    hours_before = models.PositiveIntegerField()
    due_at = models.DateTimeField()
    sent_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["game", "user", "deadline_at", "hours_before"], name="reminder_unique_per_deadline"
            ),
        ]
        indexes = [models.Index(fields=["due_at"], condition=Q(sent_at__isnull=True), name="reminder_due_idx")]

    def __str__(self) -> str:
        return f"{self.game_id} {self.user_id} {self.hours_before}h"


class InvitationOptOut(models.Model):
    """An address that asked for no invitations, by the SHA-256 of its
    lower-cased text, so that the list names nobody."""

    address_digest = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = "invitation opt-out"

    def __str__(self) -> str:
        return self.address_digest[:12]


# --- play by email (notifications.inbound) ---------------------------------------------


class InboundMessage(models.Model):
    """One email received. ``message_key`` (a digest of its Message-ID, or of its
    bytes when it has none) is unique, so the same message delivered twice is
    applied once. ``raw`` is kept only until the message is processed."""

    class Status(models.TextChoices):
        RECEIVED = "received"  # stored, not yet processed
        APPLIED = "applied"  # the command was carried out
        REFUSED = "refused"  # answered with the reason it could not be done
        DROPPED = "dropped"  # no answer at all: auto-reply, bounce, unknown sender, too many errors
        # Not carried out: the sender was not authenticated, and the account's owner was mailed a code.
        CHALLENGED = "challenged"

    message_key = models.CharField(max_length=64, unique=True)
    source = models.CharField(max_length=16)
    raw = models.BinaryField(null=True, blank=True)
    # The SMTP envelope's recipients (RCPT TO), when the way in knows them.
    envelope_to = models.JSONField(default=list, blank=True)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.RECEIVED)
    received_at = models.DateTimeField(auto_now_add=True)
    processed_at = models.DateTimeField(null=True, blank=True)
    # The sender as a digest (notifications.addresses.address_digest): enough to count
    # error replies per sender, and names nobody.
    sender_digest = models.CharField(max_length=64, blank=True, default="")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    game = models.ForeignKey("games.Game", on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    command = models.CharField(max_length=200, blank=True, default="")
    outcome = models.CharField(max_length=300, blank=True, default="")
    # An error reply was sent for it (what the hourly limit per sender counts).
    error_replied = models.BooleanField(default=False)
    # What the reply email shows (the command understood, the error and its rule).
    reply = models.JSONField(default=dict, blank=True)
    # Whether the From: domain was authenticated when the message came in
    # (notifications.inbound.authentication), and how: domains only, no address.
    authenticated = models.BooleanField(default=False)
    authentication = models.CharField(max_length=200, blank=True, default="")

    class Meta:
        indexes = [
            models.Index(fields=["sender_digest", "received_at"], name="inbound_sender_idx"),
            models.Index(fields=["received_at"], condition=Q(status="received"), name="inbound_unprocessed_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.pk} {self.source} {self.status}"


class PendingConfirmation(models.Model):
    """An action asked for by email that waits for a reply ``confirm <code>``
    (the code alone acts: it was mailed only to the account's verified address):
    a resignation, a new game (nobody is invited before the account's owner
    answers), or any other command whose sender was not authenticated."""

    class Action(models.TextChoices):
        RESIGN = "resign"
        NEW_GAME = "new_game"
        COMMAND = "command"

    code = models.CharField(max_length=32, unique=True)
    action = models.CharField(max_length=16, choices=Action.choices)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    game = models.ForeignKey("games.Game", on_delete=models.CASCADE, null=True, blank=True, related_name="+")
    # new_game: {"variant", "seats", "invite": [addresses]}; resign: {}; command: the
    # command as read ("kind", "text", "argument"), the seat and the game version it was
    # made for, and "summary", what the owner was asked to confirm.
    details = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField()
    done_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"{self.action} for {self.user_id}"


# --- Web Push (notifications.push) ---------------------------------------------------------


class PushSubscription(models.Model):
    """One browser's push subscription (the PushSubscription JSON a page posts):
    where to send (``endpoint``, on the browser maker's push service) and the keys
    each message is encrypted for (RFC 8291). An endpoint is one browser's: posted
    again, by whoever is signed in there now, it is the same row."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    endpoint = models.URLField(max_length=2000, unique=True)
    # The browser's P-256 public key (65 bytes) and its 16-byte auth secret, urlsafe base64.
    p256dh = models.CharField(max_length=100)
    auth = models.CharField(max_length=40)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        indexes = [models.Index(fields=["user", "created_at"], name="pushsub_user_idx")]

    def __str__(self) -> str:
        return f"{self.user_id}: push subscription {self.pk}"


class PushMessage(models.Model):
    """One push of one notification (its ``Notification`` row, whatever became of
    its email) to one subscription: recorded once per pair, so a repeated event
    pushes nothing twice. The payload is written when it is sent, in the reader's
    language; failed attempts are retried by a sweep (``next_attempt_at``) with
    WEBHOOKS_RETRY_DELAYS_SECONDS, as webhook deliveries are."""

    class Status(models.TextChoices):
        QUEUED = "queued"
        SENT = "sent"
        FAILED = "failed"  # gave up after retries
        GONE = "gone"  # the push service answered 404 or 410: the subscription was deleted

    notification = models.ForeignKey(Notification, on_delete=models.CASCADE, related_name="+")
    subscription = models.ForeignKey(PushSubscription, on_delete=models.CASCADE, related_name="messages")
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.QUEUED)
    attempts = models.PositiveIntegerField(default=0)
    next_attempt_at = models.DateTimeField(null=True, blank=True)
    last_error = models.CharField(max_length=300, blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)
    sent_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["notification", "subscription"], name="pushmessage_unique_per_subscription")
        ]
        indexes = [
            models.Index(fields=["next_attempt_at"], condition=Q(status="queued"), name="pushmessage_due_idx"),
        ]

    def __str__(self) -> str:
        return f"push {self.notification_id} to {self.subscription_id} ({self.status})"
