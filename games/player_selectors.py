"""Reads for a player's pages on the site: their games sorted for "My games" and
the home page, and the public games with a free seat. Split from games.selectors
(which keeps the API's reads); the visibility rules are the same ones.

Every read here costs a fixed number of queries, whatever the number of games:
one for the games and one for their seats (with users and players); the games'
labels from the apps built on games (``game_list_labels``) one read per extension.
"""

from __future__ import annotations

from datetime import UTC, datetime
from collections.abc import Sequence
from typing import TYPE_CHECKING, TypedDict

from django.db.models import Count, Exists, F, OuterRef, Prefetch, Q, QuerySet
from django.db.models.functions import Coalesce

from games.extensions import extensions
from games.models import Game, Seat

if TYPE_CHECKING:
    from django.contrib.auth.models import User

FINISHED_SHOWN = 20
OPEN_GAMES_SHOWN = 50
# No deadline (a paused clock, a game not started) sorts after every real one.
_FAR_FUTURE = datetime(9999, 12, 31, tzinfo=UTC)


def _seats_with_players() -> Prefetch[str, QuerySet[Seat], str]:
    return Prefetch("seats", queryset=Seat.objects.select_related("user__player"))


class PlayerGames(TypedDict):
    waiting_for_you: list[Game]
    waiting_for_others: list[Game]
    invitations: list[Game]
    not_started: list[Game]
    finished: list[Game]


def _mine(user: User) -> QuerySet[Game]:
    # Real games only: practice games and sandboxes are listed apart
    # (games.practice.selectors.practice_games).
    return Game.objects.filter(Exists(Seat.objects.filter(game=OuterRef("pk"), user=user)), kind=Game.Kind.REAL)


def seat_of(game: Game, user: User) -> Seat | None:
    """The user's seat in a game read here (its seats are prefetched: no query)."""
    return next((seat for seat in game.seats.all() if seat.user_id == user.pk), None)


def is_users_turn(game: Game, user: User) -> bool:
    seat = seat_of(game, user)
    return (
        game.status == Game.Status.ACTIVE
        and seat is not None
        and seat.index is not None
        and seat.index == game.to_move
        and not seat.resigned
    )


def is_open_invitation(game: Game, user: User) -> bool:
    seat = seat_of(game, user)
    return game.status == Game.Status.OPEN and seat is not None and seat.invited and seat.joined_at is None


def deadline_order(game: Game) -> tuple[datetime, str]:
    """Soonest deadline first; a paused clock or none at all last."""
    running = game.deadline_at if game.deadline_at is not None and game.clock_remaining is None else None
    return (running or _FAR_FUTURE, game.pk)


def player_games(*, user: User, finished_shown: int = FINISHED_SHOWN) -> PlayerGames:
    """The user's games in the groups of "My games": active games waiting for the
    user (soonest deadline first, none last), active games waiting for others (the
    same order), open invitations and open games the user has joined (newest
    first), and the last ``finished_shown`` finished or aborted games (newest end
    first). Four queries: the unfinished games and their seats, the finished ones
    and theirs."""
    current = list(
        _mine(user)
        .filter(status__in=(Game.Status.OPEN, Game.Status.ACTIVE))
        .order_by("-created_at", "pk")
        .prefetch_related(_seats_with_players())
    )
    active = sorted((game for game in current if game.status == Game.Status.ACTIVE), key=deadline_order)
    opened = [game for game in current if game.status == Game.Status.OPEN]
    finished = list(
        _mine(user)
        .filter(status__in=(Game.Status.FINISHED, Game.Status.ABORTED))
        .order_by(F("finished_at").desc(nulls_last=True), "-created_at", "pk")
        .prefetch_related(_seats_with_players())[:finished_shown]
    )
    return {
        "waiting_for_you": [game for game in active if is_users_turn(game, user)],
        "waiting_for_others": [game for game in active if not is_users_turn(game, user)],
        "invitations": [game for game in opened if is_open_invitation(game, user)],
        "not_started": [game for game in opened if not is_open_invitation(game, user)],
        "finished": finished,
    }


def open_public_games(*, user: User, limit: int = OPEN_GAMES_SHOWN) -> list[Game]:
    """Public games not started yet with a seat neither taken nor reserved, that
    ``user`` holds no seat in, oldest first (they have waited longest). Private
    games are joined through an invitation or a link, so they are not listed."""
    return list(
        Game.objects.filter(status=Game.Status.OPEN, public=True, kind=Game.Kind.REAL)
        .exclude(Exists(Seat.objects.filter(game=OuterRef("pk"), user=user)))
        .annotate(seats_held=Coalesce(Count("seats"), 0))
        .filter(seats_held__lt=F("seat_count"))
        .filter(~Q(created_by__is_active=False))
        .order_by("created_at", "pk")
        .select_related("created_by__player")
        .prefetch_related(_seats_with_players())[:limit]
    )



def game_list_labels(games: Sequence[Game]) -> dict[str, str]:
    """The line the apps built on games add to each game in a player's lists (a
    tournament and its round: ``GameExtension.game_list_labels``), by game id: the
    registered extensions' labels in their order. One call per extension, so a
    list costs what its extensions' reads cost, whatever its length."""
    if not games:
        return {}
    labels: dict[str, list[str]] = {}
    for extension in extensions():
        for game_id, label in extension.game_list_labels(games).items():
            labels.setdefault(game_id, []).append(label)
    return {game_id: " · ".join(found) for game_id, found in labels.items()}
