"""A seat's conditional moves ("plans", docs/plans.md): storing and clearing
them. Where they fire: ``games.plans``.

Storing a plan changes nothing anyone else sees: no version, no event, so that
nobody learns that a plan exists. The game's row is locked all the same, so a
plan is stored against the position it was written for.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

import engine
from django.utils.translation import gettext

from core.db import retry_when_database_locked
from core.errors import InvalidInput
from games import errors
from games.models import Game
from games.plans.lines import PlanLine, plan_read
from games.services.change import game_change
from games.services.moves import move_languages, version_check
from games.services.turns import joined_seat, state_of

if TYPE_CHECKING:
    from django.contrib.auth.models import User


@retry_when_database_locked
def plan_store(
    *, game_id: str, user: User, lines: object, expected_version: int, languages: Iterable[str] | None = None
) -> list[PlanLine]:
    """Replace ``user``'s plan in the game with ``lines`` (the JSON the player
    sent), read on the version they chose it on, and return it in canonical
    notation. Its outcomes so far are forgotten.

    Refusals: GameNotFound, NotAPlayer, AlreadyResigned, GameNotActive,
    StaleVersion, PlanOnYourTurn, InvalidInput (by field path:
    ``lines[0].next[1].then``). An empty list clears the plan.
    """
    with game_change(game_id, with_seats=True) as writes:
        game = writes.game
        seat = joined_seat(game, user)
        if seat.resigned:
            raise errors.AlreadyResigned(gettext("You have left this game; a plan would never be played."))
        if game.status != Game.Status.ACTIVE:
            raise errors.GameNotActive(
                gettext("A plan can be stored only while the game is being played."), game_status=game.status
            )
        version_check(game, expected_version=expected_version)
        state = state_of(game)
        assert seat.index is not None  # a seat of an active game has its place
        if engine.to_move(state) == seat.index:
            raise errors.PlanOnYourTurn(your_seat=seat.index)
        read_in = move_languages(user) if languages is None else tuple(languages)
        plan, problems = plan_read(state, lines, seat=seat.index, languages=read_in)
        if problems:
            raise InvalidInput(problems)
        seat.plan, seat.plan_outcomes = plan, []
        seat.save(update_fields=["plan", "plan_outcomes"])
    return plan


@retry_when_database_locked
def plan_clear(*, game_id: str, user: User) -> None:
    """Forget ``user``'s plan in the game and what it did (NotAPlayer without a
    seat). Clearing a plan there is not is no error."""
    with game_change(game_id, with_seats=True) as writes:
        seat = joined_seat(writes.game, user)
        if seat.plan or seat.plan_outcomes:
            seat.plan, seat.plan_outcomes = [], []
            seat.save(update_fields=["plan", "plan_outcomes"])
