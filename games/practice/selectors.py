"""Reads about practice games and sandboxes (``Game.kind``): a player's own, for
the API's list and the site's pages, and those the beat's jobs look after (a bot
left to move, a game nobody touched). Real games' reads are in games.selectors
and games.player_selectors, which leave these out."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from django.db.models import Exists, F, OuterRef, Prefetch, Q, QuerySet
from django.utils import timezone

from games.models import Game, Move, Seat

if TYPE_CHECKING:
    from django.contrib.auth.models import AnonymousUser, User

PRACTICE_KINDS = (Game.Kind.PRACTICE, Game.Kind.SANDBOX)

# A bot that has been to move this long had its task lost (the broker was down).
BOT_TURN_STALE_SECONDS = 60


def _seats_with_players() -> Prefetch[str, QuerySet[Seat], str]:
    return Prefetch("seats", queryset=Seat.objects.select_related("user__player"))


def practice_games(*, user: User, kind: str | None = None, status: str | None = None) -> QuerySet[Game]:
    """The practice games and sandboxes ``user`` made, newest first: listed to
    their owner only (``kind``: just ``practice`` or ``sandbox``; ``status``: one
    status). Two queries with their seats."""
    kinds = [kind] if kind else list(PRACTICE_KINDS)
    games = Game.objects.filter(kind__in=kinds, created_by=user)
    if status:
        games = games.filter(status=status)
    return games.order_by("-created_at", "pk").select_related("created_by").prefetch_related(_seats_with_players())


def practice_games_active_count(*, user_id: int) -> int:
    """How many practice games and sandboxes ``user_id`` made are in play: what
    PRACTICE_GAMES_ACTIVE_PER_ACCOUNT limits."""
    return Game.objects.filter(kind__in=PRACTICE_KINDS, created_by_id=user_id, status=Game.Status.ACTIVE).count()


def practice_game_ids_waiting_on_bots(*, now: datetime | None = None) -> list[str]:
    """Active practice games and sandboxes where a bot has been to move for
    BOT_TURN_STALE_SECONDS or more (its last move, or the start, is that old)."""
    cutoff = (now or timezone.now()) - timedelta(seconds=BOT_TURN_STALE_SECONDS)
    bot_to_move = Seat.objects.filter(game=OuterRef("pk"), index=OuterRef("to_move"), resigned=False).exclude(
        bot_name=""
    )
    recent_move = Move.objects.filter(game=OuterRef("pk"), created_at__gt=cutoff)
    return list(
        Game.objects.filter(kind__in=PRACTICE_KINDS, status=Game.Status.ACTIVE, started_at__lte=cutoff)
        .filter(Exists(bot_to_move))
        .exclude(Exists(recent_move))
        .order_by("pk")
        .values_list("pk", flat=True)
    )


def practice_game_ids_untouched(*, since: datetime) -> list[str]:
    """Active practice games and sandboxes with no move since ``since`` and started
    before it: what OPEN_GAME_EXPIRY_DAYS expires. Oldest first."""
    recent_move = Move.objects.filter(game=OuterRef("pk"), created_at__gte=since)
    return list(
        Game.objects.filter(kind__in=PRACTICE_KINDS, status=Game.Status.ACTIVE, started_at__lt=since)
        .exclude(Exists(recent_move))
        .order_by(F("started_at").asc(), "pk")
        .values_list("pk", flat=True)
    )


def practice_game_q() -> Q:
    """Practice games and sandboxes, as a filter on Game (``~`` it for real games)."""
    return Q(kind__in=PRACTICE_KINDS)


def viewing_seat(game: Game, user: User | AnonymousUser | None, own: int | None) -> int | None:
    """Whose view ``user`` reads and plays: their own seat's (``own``), except that a
    sandbox's owner reads and plays a hot seat whose turn it is (a seat no bot
    plays and not the owner's: games.services.turns.is_hot_seat)."""
    if game.kind != Game.Kind.SANDBOX or own is None or user is None or game.created_by_id != user.pk:
        return own
    to_move = next((s for s in game.seats.all() if s.index == game.to_move), None)
    if to_move is not None and not to_move.bot_name and to_move.user_id != game.created_by_id:
        return to_move.index
    return own
