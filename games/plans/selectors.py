"""Reads of conditional moves ("plans", docs/plans.md): a seat's own plan, for
its holder alone, and which moves came from a plan, once the game is over.
Where a plan fires: ``games.plans``."""

from __future__ import annotations

from typing import TYPE_CHECKING, TypedDict

from games import errors
from games.models import Game, Move, Seat
from games.plans.lines import PlanLine, PlanOutcome, plan_stored

if TYPE_CHECKING:
    from django.contrib.auth.models import AnonymousUser, User


class SeatPlan(TypedDict):
    """A seat's plan as its holder sees it: the lines, what the plan did since it
    was stored (``outcomes``, oldest first), the game's version and whether it
    may be stored now (``can_store``: the game is active and the seat waits)."""

    game_id: str
    version: int
    your_seat: int | None
    can_store: bool
    lines: list[PlanLine]
    outcomes: list[PlanOutcome]


def plan_seat(*, game: Game, user: User | AnonymousUser | None) -> Seat:
    """The caller's own joined seat in the game (its seats prefetched or not),
    else NotAPlayer: a plan is shown to its holder and nobody else."""
    if user is not None and user.is_authenticated:
        for seat in game.seats.all():
            if seat.user_id == user.pk and seat.has_joined:
                return seat
    raise errors.NotAPlayer()


def seat_plan(*, game: Game, user: User | AnonymousUser | None) -> SeatPlan:
    """``user``'s plan in the game (NotAPlayer for anyone without a seat,
    moderators included)."""
    seat = plan_seat(game=game, user=user)
    waiting = game.status == Game.Status.ACTIVE and not seat.resigned and game.to_move != seat.index
    return {
        "game_id": game.pk,
        "version": game.version,
        "your_seat": seat.index,
        "can_store": waiting,
        "lines": plan_stored(seat.plan),
        "outcomes": list(seat.plan_outcomes or []),
    }


def plan_plies(*, game: Game) -> list[int] | None:
    """The plies of the moves a plan played, once the game is over; None while it
    runs (which moves came from a plan would tell of the plans)."""
    if not game.is_over:
        return None
    return list(Move.objects.filter(game=game, from_plan=True).order_by("ply").values_list("ply", flat=True))
