"""Each account's stream: its sequence, its events, and which connection of a token
is the open one."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class StreamCursor(models.Model):
    """The last event id given to an account: ids are 1, 2, 3, ... per account.

    Assigned under this row's lock (``services``), so that the events of one account
    become visible in id order: a stream that has read id n never misses n - 1."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, primary_key=True)
    last_id = models.PositiveBigIntegerField(default=0)

    def __str__(self) -> str:
        return f"stream of user {self.user_id} at {self.last_id}"


class StreamEvent(models.Model):
    """One event as one account may see it; kept STREAM_REPLAY_HOURS for replays."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    seq = models.PositiveBigIntegerField()
    kind = models.CharField(max_length=32)
    data = models.JSONField()
    created_at = models.DateTimeField(db_index=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "seq"], name="stream_event_user_seq")]

    def __str__(self) -> str:
        return f"{self.kind} #{self.seq} for user {self.user_id}"


class StreamConnection(models.Model):
    """The open stream of a token: a new one replaces it (docs/stream.md)."""

    token = models.OneToOneField("accounts.ApiToken", on_delete=models.CASCADE, primary_key=True)
    connection = models.CharField(max_length=32)
    opened_at = models.DateTimeField()

    def __str__(self) -> str:
        return f"stream {self.connection} of token {self.token_id}"
