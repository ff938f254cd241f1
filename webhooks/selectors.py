"""Reads for the webhooks app: a player's endpoints, their deliveries, and the
endpoints an event goes to (to those who hear of it: games.audience)."""

from __future__ import annotations

import json
from datetime import datetime
from typing import TYPE_CHECKING, Any

from django.db.models import QuerySet

from games.audience import event_audience
from games.models import Game, GameEvent
from leagues import selectors as league_selectors
from webhooks.errors import WebhookNotFound
from webhooks.models import Delivery, Endpoint

if TYPE_CHECKING:
    from django.contrib.auth.models import User

# Kinds promised by docs/events.md that a deployment may not write yet; accepted
# in an endpoint's filter so that a client can subscribe before they appear.
EXPECTED_EVENT_KINDS = ("turn_timed_out", "clock_paused", "clock_resumed")


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


def endpoints_for_event(*, event: GameEvent) -> list[Endpoint]:
    """Active endpoints of those who hear of the event (games.audience: the
    game's players, the people it names; a chat line's listeners) that ask for its
    kind; and, for a public game of a league, the league's endpoints whose owner
    still administers it. A league's endpoint never hears of its owner's own games,
    nor of a private game of its league."""
    endpoints = list(
        Endpoint.objects.filter(owner_id__in=event_audience(event), is_active=True, league__isnull=True).order_by("id")
    )
    endpoints += league_endpoints_for_game(game_id=event.game_id)
    return [endpoint for endpoint in endpoints if endpoint.wants(event.kind)]


def league_endpoints_for_game(*, game_id: str) -> list[Endpoint]:
    """The active endpoints of the game's league, when the game is public."""
    league_id = league_selectors.league_of_game(game_id=game_id)
    if league_id is None or not Game.objects.filter(pk=game_id, public=True).exists():
        return []
    admins = league_selectors.league_admin_ids(league_id=league_id)
    return list(Endpoint.objects.filter(league_id=league_id, owner_id__in=admins, is_active=True).order_by("id"))


def league_exists(*, league_id: int) -> bool:
    return league_selectors.league_exists(league_id=league_id)


def league_administered_by(*, league_id: int, user: User) -> bool:
    return user.pk in league_selectors.league_admin_ids(league_id=league_id)


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
