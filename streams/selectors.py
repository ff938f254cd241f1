"""What a stream reads: an account's events after an id, whether a connection is
still the token's open one, and the snapshot a stream starts with."""

from __future__ import annotations

from datetime import datetime
from typing import Any, TypedDict

from django.db.models import Max

from games.audience import real_games_q
from games.models import Game, Seat
from streams.models import StreamConnection, StreamCursor, StreamEvent


class Frame(TypedDict):
    id: int
    event: str
    data: dict[str, Any]


def stream_last_id(*, user_id: int) -> int:
    """The account's latest event id (0 before its first)."""
    last = StreamCursor.objects.filter(user_id=user_id).values_list("last_id", flat=True).first()
    return int(last or 0)


def stream_can_resume(*, user_id: int, after: int, last_id: int) -> bool:
    """Whether every event after ``after`` is still kept: the next one is stored,
    or there is none yet. An id this account was never sent cannot resume."""
    if after < 0 or after > last_id:
        return False
    if after == last_id:
        return True
    return StreamEvent.objects.filter(user_id=user_id, seq=after + 1).exists()


def stream_events_after(*, user_id: int, after: int, limit: int) -> list[Frame]:
    rows = (
        StreamEvent.objects.filter(user_id=user_id, seq__gt=after)
        .order_by("seq")
        .values_list("seq", "kind", "data")[:limit]
    )
    return [{"id": seq, "event": kind, "data": data} for seq, kind, data in rows]


def stream_end_reason(*, token_id: int, connection: str) -> str | None:
    """Why a stream must end now, or None while it may go on: ``replaced`` once
    another stream of the same token was opened, ``revoked`` once its token was
    revoked or its account disabled or suspended (one query)."""
    row = (
        StreamConnection.objects.filter(token_id=token_id)
        .values_list("connection", "token__revoked_at", "token__user__is_active", "token__user__player__suspended_at")
        .first()
    )
    if row is None:
        return "replaced"
    current, revoked_at, active, suspended_at = row
    if revoked_at is not None or not active or suspended_at is not None:
        return "revoked"
    return None if current == connection else "replaced"


def stream_recent_heads(*, since: datetime) -> dict[int, int]:
    """Each account with events since ``since``, and its latest id among them: the
    embedded default's way to learn which streams have news (streams.bus)."""
    rows = StreamEvent.objects.filter(created_at__gte=since).values("user_id").annotate(head=Max("seq")).order_by()
    return {row["user_id"]: row["head"] for row in rows}


def stream_snapshot(*, user_id: int) -> dict[str, Any]:
    """The account's open and active games and whose turn it is, and the invitations
    it has not answered (docs/stream.md, "Event ids, reconnecting and the
    snapshot"). No board: nothing hidden."""
    live = (Game.Status.OPEN, Game.Status.ACTIVE)
    seats = (
        Seat.objects.filter(real_games_q(prefix="game__"), user_id=user_id, game__status__in=live)
        .select_related("game")
        .order_by("game__created_at", "game_id")
    )
    games: list[dict[str, Any]] = []
    invitations: list[dict[str, Any]] = []
    for seat in seats:
        game = seat.game
        if seat.joined_at is None:
            if game.status == Game.Status.OPEN:
                invitations.append(
                    {"game_id": game.pk, "variant": game.variant, "seats": game.seat_count, "version": game.version}
                )
            continue
        playing = game.status == Game.Status.ACTIVE and not seat.resigned and not seat.bot
        games.append(
            {
                "game_id": game.pk,
                "variant": game.variant,
                "status": game.status,
                "version": game.version,
                "seat": seat.index,
                "to_move": game.to_move,
                "your_turn": playing and seat.index is not None and seat.index == game.to_move,
            }
        )
    return {"games": games, "invitations": invitations}
