"""Reads for the webhooks app: a player's endpoints, their deliveries, and who
an event concerns."""

from __future__ import annotations

import json
from datetime import datetime
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.db.models import QuerySet
from django.utils.module_loading import import_string

from games.models import GameEvent, Seat
from webhooks.errors import WebhookNotFound
from webhooks.models import Delivery, Endpoint

if TYPE_CHECKING:
    from django.contrib.auth.models import User

# Kinds promised by docs/events.md that a deployment may not write yet; accepted
# in an endpoint's filter so that a client can subscribe before they appear.
EXPECTED_EVENT_KINDS = ("turn_timed_out", "clock_paused", "clock_resumed")

# Events that name a person who no longer holds a seat (declined, left): they
# are sent to that person as well as to the players.
_SUBJECT_KINDS = ("seat_declined", "seat_left")


def event_kinds() -> list[str]:
    """Every event name an endpoint may ask for, read from GameEvent.Kind now."""
    return sorted({*GameEvent.Kind.values, *EXPECTED_EVENT_KINDS})


def endpoint_list(*, owner: User) -> QuerySet[Endpoint]:
    return Endpoint.objects.filter(owner=owner).order_by("id")


def endpoint_get(*, owner: User, endpoint_id: int) -> Endpoint:
    """One of ``owner``'s endpoints; another player's is as good as missing."""
    try:
        return Endpoint.objects.get(pk=endpoint_id, owner=owner)
    except Endpoint.DoesNotExist:
        raise WebhookNotFound.for_id(endpoint_id) from None


def delivery_list(*, endpoint: Endpoint) -> QuerySet[Delivery]:
    """Newest first, with each delivery's event and attempts loaded."""
    return (
        Delivery.objects.filter(endpoint=endpoint)
        .select_related("event")
        .prefetch_related("attempt_log")
        .order_by("-created_at", "-id")
    )


def event_recipients(*, event: GameEvent) -> set[int]:
    """The user ids of the players of the event's game: joined or invited seats,
    the invitees named when the game was created, and the person a decline or a
    departure is about; for the kinds settings.GAME_EVENT_RECIPIENTS names, whom
    its function says."""
    chooser = settings.GAME_EVENT_RECIPIENTS.get(event.kind)
    if chooser is not None:  # a chat line: the function its app names (docs/webhooks.md)
        return set(import_string(chooser)(event))
    users = set(Seat.objects.filter(game_id=event.game_id).values_list("user_id", flat=True))
    payload: dict[str, Any] = event.payload if isinstance(event.payload, dict) else {}
    if event.kind == GameEvent.Kind.GAME_CREATED:
        users.update(int(user_id) for user_id in payload.get("invited_ids") or [] if isinstance(user_id, int))
    if event.kind in _SUBJECT_KINDS and isinstance(payload.get("user_id"), int):
        users.add(payload["user_id"])
    return users


def endpoints_for_event(*, event: GameEvent) -> list[Endpoint]:
    """Active endpoints of the event's players that ask for its kind."""
    endpoints = Endpoint.objects.filter(owner_id__in=event_recipients(event=event), is_active=True).order_by("id")
    return [endpoint for endpoint in endpoints if endpoint.wants(event.kind)]


def deliveries_due(*, now: datetime, limit: int) -> list[int]:
    """Ids of pending deliveries whose next attempt is due, oldest due first."""
    return list(
        Delivery.objects.filter(status=Delivery.Status.PENDING, next_attempt_at__lte=now)
        .order_by("next_attempt_at", "id")
        .values_list("id", flat=True)[:limit]
    )


def delivery_payload(*, event: GameEvent) -> dict[str, Any]:
    """What a delivery sends: the event's kind, time and public payload, and
    nothing else (never the board or the state; people by user id only)."""
    return {"type": event.kind, "timestamp": event.created_at.isoformat(), "data": event.public_data()}


def delivery_body(*, event: GameEvent) -> str:
    """The payload as the exact text that is signed and sent."""
    return json.dumps(delivery_payload(event=event), separators=(",", ":"), ensure_ascii=False)
