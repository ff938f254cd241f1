"""What becomes of an account's games and records when it is disabled or
erased (accounts sends the signals; games.receivers calls these), and the
housekeeping of Idempotency-Key records.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.conf import settings
from django.utils import timezone

from core.db import retry_when_database_locked
from games import selectors
from games.models import Game, GameEvent, IdempotencyRecord, Seat
from games.results import ResultReason
from games.services.change import game_change
from games.services.turns import abort, seat_leave


def seats_leave_for_disabled_account(*, user_id: int) -> int:
    """An account was disabled: each of its seats in an active game leaves the
    game at once, as a timeout does (the others play on, and the seat ranks last),
    recorded as ``seat_resigned`` with reason ``account-disabled``; its invitations
    to open games are declined, its seats in open games freed (``seat_left``) and
    the open games it created cancelled. Returns how many games were changed."""
    changed = 0
    for game_id in selectors.game_ids_with_seat(user_id=user_id):
        changed += _leave_for_disabled_account(game_id=game_id, user_id=user_id)
    return changed


@retry_when_database_locked
def _leave_for_disabled_account(*, game_id: str, user_id: int) -> bool:
    now = timezone.now()
    with game_change(game_id) as writes:
        game = writes.game
        seat = game.seats.filter(user_id=user_id).first()
        if seat is None:
            return False
        if game.status == Game.Status.ACTIVE and seat.has_joined and not seat.resigned:
            seat_leave(writes, seat, reason=ResultReason.ACCOUNT_DISABLED, now=now)
        elif game.status == Game.Status.OPEN and seat.invited and not seat.has_joined:
            seat.delete()
            writes.change(GameEvent.Kind.SEAT_DECLINED, {"user_id": user_id})
            if game.invite_only:
                abort(writes, reason="declined", now=now, by_user_id=user_id)
        elif game.status == Game.Status.OPEN and game.created_by_id == user_id:
            abort(writes, reason="cancelled", now=now, by_user_id=user_id)
        elif game.status == Game.Status.OPEN and seat.has_joined:
            # The seat is free again; join positions stay 0..n-1, as the seeded
            # seat order at the start needs (engine.seat_permutation).
            seat.delete()
            joined = list(game.seats.filter(joined_at__isnull=False).order_by("join_position"))
            for position, other in enumerate(joined):
                if other.join_position != position:
                    other.join_position = position
                    other.save(update_fields=["join_position"])
            writes.change(GameEvent.Kind.SEAT_LEFT, {"user_id": user_id, "reason": "account-disabled"})
        else:
            return False
    return True


def idempotency_records_forget_account(*, user_id: int) -> int:
    """An account is being erased (``accounts.signals.account_erased``, inside the
    erasing transaction). The answers kept for Idempotency-Key replays show every
    seat by name as it was then: the account's own records are deleted, and in
    the other players' records of its games its seat gets the name the games show
    now. Returns how many records were deleted or rewritten."""
    changed, _ = IdempotencyRecord.objects.filter(user_id=user_id).delete()
    seat_of_game = dict(
        Seat.objects.filter(user_id=user_id, index__isnull=False).values_list("game_id", "index")
    )
    for game_id, index in seat_of_game.items():
        records = list(IdempotencyRecord.objects.filter(response_body__game__id=game_id))
        if not records:
            continue
        shown = selectors.game_summary(game=selectors.game_get(game_id=game_id), user=None)
        seat = next(entry for entry in shown["seats"] if entry["seat"] == index)
        for record in records:
            body = record.response_body.get("game", {})
            for entry in body.get("seats", []):
                if entry.get("seat") == index:
                    entry["username"], entry["display_name"] = seat["username"], seat["display_name"]
            if "created_by" in body:
                body["created_by"] = shown["created_by"]
            record.save(update_fields=["response_body"])
            changed += 1
    return changed


def idempotency_records_delete_expired(*, now: datetime | None = None) -> int:
    """Delete Idempotency-Key records older than IDEMPOTENCY_KEY_TTL_HOURS: a key
    is honoured that long. Returns how many were deleted."""
    now = now or timezone.now()
    cutoff = now - timedelta(hours=settings.IDEMPOTENCY_KEY_TTL_HOURS)
    deleted, _ = IdempotencyRecord.objects.filter(created_at__lt=cutoff).delete()
    return deleted
