"""Webhooks: endpoints a player registers, and one delivery per (endpoint, game event).

A ``Delivery`` is swept like any other deadline: ``next_attempt_at`` is an
indexed column (partial index on pending rows) that ``webhooks.tasks.deliver_due``
reads; each attempt leaves a ``DeliveryAttempt`` row the owner can see.
"""

from __future__ import annotations

import base64
import secrets

from django.conf import settings
from django.db import models
from django.db.models import Q

from games.models import GameEvent

SECRET_PREFIX = "whsec_"
SECRET_BYTES = 32
MESSAGE_ID_PREFIX = "msg_"
MAX_URL_LENGTH = 2000
MAX_ERROR_LENGTH = 200
# What a Discord or Slack channel is told of; other events are not posted there.
CHAT_EVENT_KINDS = (GameEvent.Kind.GAME_STARTED, GameEvent.Kind.MOVE_PLAYED, GameEvent.Kind.GAME_FINISHED)


def new_endpoint_secret() -> str:
    """A Standard Webhooks signing secret: ``whsec_`` and base64 of random bytes."""
    return SECRET_PREFIX + base64.b64encode(secrets.token_bytes(SECRET_BYTES)).decode("ascii")


def new_message_id() -> str:
    return MESSAGE_ID_PREFIX + secrets.token_urlsafe(18)


class Endpoint(models.Model):
    """Where a player's third-party client wants the events of their games sent;
    or, in a chat format, a Discord or Slack channel that is told of them in one
    line each (webhooks.chat_text). An endpoint with a ``league`` (set by one of
    its admins) hears of that league's public games rather than of its owner's."""

    class Format(models.TextChoices):
        # Standard Webhooks: the event as signed JSON (docs/webhooks.md).
        STANDARD = "standard"
        # A Discord or Slack incoming webhook: one line of text, unsigned.
        DISCORD = "discord"
        SLACK = "slack"

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="webhook_endpoints")
    url = models.CharField(max_length=MAX_URL_LENGTH)
    # Event kinds (GameEvent.kind) to send; empty means every kind.
    events = models.JSONField(default=list, blank=True)
    # Used to sign each delivery, so it is kept as it is; shown to the owner only
    # when it is made (registration, rotation), never listed or shown in the admin.
    secret = models.CharField(max_length=100, default=new_endpoint_secret)
    format = models.CharField(max_length=16, choices=Format.choices, default=Format.STANDARD)
    # Set only by one of the league's admins, and used only while its owner is one
    # (webhooks.selectors.endpoints_for_event): every public game of the league is
    # posted here, its private games never.
    league = models.ForeignKey(
        "leagues.League", on_delete=models.CASCADE, null=True, blank=True, related_name="webhook_endpoints"
    )
    is_active = models.BooleanField(default=True)
    disabled_at = models.DateTimeField(null=True, blank=True)
    disabled_reason = models.CharField(max_length=MAX_ERROR_LENGTH, blank=True, default="")
    # Failed attempts in a row (any delivery), and when the first of them was.
    consecutive_failures = models.PositiveIntegerField(default=0)
    failing_since = models.DateTimeField(null=True, blank=True)
    # While an attempt to this endpoint is under way: when its lease ends. One
    # attempt at a time per endpoint, so that one slow receiver holds one worker
    # at most (webhooks.services._claim).
    attempt_until = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]
        indexes = [models.Index(fields=["owner", "is_active"], name="webhook_endpoint_owner_idx")]

    def __str__(self) -> str:
        return f"webhook {self.pk} of {self.owner_id}"

    @property
    def is_chat(self) -> bool:
        """Posts one line of text to a chat platform (Discord, Slack)."""
        return self.format != self.Format.STANDARD

    def wants(self, kind: str) -> bool:
        if self.is_chat and kind not in CHAT_EVENT_KINDS:
            return False
        return not self.events or kind in self.events


class Delivery(models.Model):
    """One event for one endpoint, tried until it succeeds or the retries run out."""

    class Status(models.TextChoices):
        PENDING = "pending"
        SUCCEEDED = "succeeded"
        FAILED = "failed"

    endpoint = models.ForeignKey(Endpoint, on_delete=models.CASCADE, related_name="deliveries")
    event = models.ForeignKey(GameEvent, on_delete=models.CASCADE, related_name="webhook_deliveries")
    # The `webhook-id` header: the same for every attempt, so receivers can drop repeats.
    message_id = models.CharField(max_length=64, unique=True, default=new_message_id)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING)
    attempts = models.PositiveIntegerField(default=0)
    # When the next attempt is due (pending only). A worker that claims the row
    # pushes it forward by a lease, so nobody else sends it meanwhile.
    next_attempt_at = models.DateTimeField(null=True, blank=True)
    last_status_code = models.PositiveSmallIntegerField(null=True, blank=True)
    last_error = models.CharField(max_length=MAX_ERROR_LENGTH, blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)
    delivered_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name_plural = "deliveries"
        constraints = [
            models.UniqueConstraint(fields=["endpoint", "event"], name="webhook_delivery_unique_endpoint_event"),
        ]
        indexes = [
            models.Index(
                fields=["next_attempt_at"], condition=Q(status="pending"), name="webhook_delivery_due_idx"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.message_id} ({self.status})"


class DeliveryAttempt(models.Model):
    """One HTTP request (or the refusal to make it) for a delivery."""

    delivery = models.ForeignKey(Delivery, on_delete=models.CASCADE, related_name="attempt_log")
    attempted_at = models.DateTimeField()
    status_code = models.PositiveSmallIntegerField(null=True, blank=True)
    error = models.CharField(max_length=MAX_ERROR_LENGTH, blank=True, default="")
    duration_ms = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["attempted_at", "id"]

    def __str__(self) -> str:
        return f"attempt on {self.delivery_id} at {self.attempted_at:%Y-%m-%d %H:%M:%S}"

    @property
    def succeeded(self) -> bool:
        return self.status_code is not None and 200 <= self.status_code < 300
