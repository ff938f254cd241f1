"""Push reads: a player's subscriptions, and the messages whose retry is due."""

from __future__ import annotations

from datetime import datetime
from urllib.parse import urlsplit

from django.db.models import QuerySet

from notifications.models import PushMessage, PushSubscription


def push_subscriptions_of(*, user_id: int) -> QuerySet[PushSubscription]:
    return PushSubscription.objects.filter(user_id=user_id).order_by("created_at", "pk")


def endpoint_host(endpoint: str) -> str:
    """What a listing shows of an endpoint: its host, never its path (the path is the
    push service's secret address for one browser)."""
    return urlsplit(endpoint).hostname or ""


def push_messages_due(*, now: datetime, limit: int) -> list[int]:
    return list(
        PushMessage.objects.filter(status=PushMessage.Status.QUEUED, next_attempt_at__lte=now)
        .order_by("next_attempt_at")
        .values_list("pk", flat=True)[:limit]
    )
