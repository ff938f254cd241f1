"""Moderation: what a moderator does to a game or a player, and the log of it.

Every action here runs in one transaction that changes the game through the
same helpers as ``games.services`` (the row lock, the outbox, the version) and
appends one ``ModerationEntry``: all of it or none of it. A reason is required
for every action. People are named by user id in the log and in the events, so
erasing an account leaves no name behind.

The admin (games.admin) is a thin adapter over these functions; who may call
them is the caller's business (the ``games.moderate_game`` permission there).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext

from accounts.services import player_for_user, player_suspend, player_unsuspend, player_warn
from core.db import retry_when_database_locked
from core.errors import InvalidInput
from games import errors
from games.models import Game, GameEvent, GamePause, ModerationEntry, Seat, new_seat_key
from games.results import GameResult, ResultReason
from games.services.change import game_change
from games.services.clocks import game_pause, game_resume
from games.services.lifecycle import MAX_MOVE_TIMEOUT_HOURS
from games.services.turns import (
    abort,
    bot_turn_write_if_due,
    finish,
    is_paused,
    scores,
    seat_at,
    seats_left,
    start_turn_clock,
    state_of,
)

if TYPE_CHECKING:
    from django.contrib.auth.models import User

MAX_REASON_LENGTH = 2000
Action = ModerationEntry.Action


def moderation_reason_clean(reason: str | None) -> str:
    """The reason as it is logged; refused when empty (every action needs one)."""
    text = (reason or "").strip()
    if not text:
        raise InvalidInput({"reason": [gettext("Give a reason: every moderation action is logged with one.")]})
    if len(text) > MAX_REASON_LENGTH:
        raise InvalidInput(
            {
                "reason": [
                    gettext("Keep the reason under %(most)s characters; it has %(length)s.")
                    % {"most": MAX_REASON_LENGTH, "length": len(text)}
                ]
            }
        )
    return text


def moderation_entry_record(
    *,
    by_user: User,
    action: str,
    reason: str,
    game_id: str | None = None,
    target_user_id: int | None = None,
    details: dict[str, Any] | None = None,
    now: datetime | None = None,
) -> ModerationEntry:
    """Append one entry to the moderation log (in the caller's transaction)."""
    return ModerationEntry.objects.create(
        user_id=by_user.pk,
        action=action,
        reason=moderation_reason_clean(reason),
        game_id=game_id,
        target_user_id=target_user_id,
        details=details or {},
        at=now or timezone.now(),
    )


def _check_active(game: Game, refusal: str) -> None:
    """GameNotActive unless the game is active; ``refusal`` says why, with ``%(status)s``."""
    if game.status != Game.Status.ACTIVE:
        raise errors.GameNotActive(refusal % {"status": errors.status_words(game.status)}, game_status=game.status)


# --- games -----------------------------------------------------------------------


@retry_when_database_locked
def moderation_game_abort(*, game_id: str, by_user: User, reason: str) -> Game:
    """Annul a game that is open or active: it becomes aborted, with no result
    (a ``game_aborted`` event, reason ``moderator``). Its clock and pauses end."""
    reason = moderation_reason_clean(reason)
    now = timezone.now()
    with transaction.atomic():
        with game_change(game_id) as writes:
            game = writes.game
            if game.is_over:
                raise errors.GameNotActive(
                    gettext("This game is already %(status)s; only an open or active game can be aborted.")
                    % {"status": errors.status_words(game.status)},
                    game_status=game.status,
                )
            was = game.status
            abort(writes, reason="moderator", now=now, by_user_id=by_user.pk)
            game.turn_started_at = None
            game.clock_remaining = None
            GamePause.objects.filter(game=game, ended_at__isnull=True).update(ended_at=now)
        moderation_entry_record(
            by_user=by_user, action=Action.GAME_ABORTED, reason=reason, game_id=game.pk,
            details={"status_before": was, "version": game.version}, now=now,
        )
    return game


def _places_checked(places: Sequence[int], seat_count: int) -> list[int]:
    """Places by seat as a ranking can have them: 1 is first, and equal players
    share a place with the next places skipped (1, 1, 3)."""
    if len(places) != seat_count:
        raise InvalidInput(
            {
                "places": [
                    gettext("Give a place for each of the %(seats)s seats, in seat order; you gave %(given)s.")
                    % {"seats": seat_count, "given": len(places)}
                ]
            }
        )
    checked = [int(place) for place in places]
    expected = [1 + sum(1 for other in checked if other < place) for place in checked]
    if checked != expected:
        raise InvalidInput(
            {
                "places": [
                    gettext(
                        "%(places)s is not a ranking: 1 is first and players sharing a place skip the places "
                        "after it (such as 1, 1, 3); these would be %(expected)s."
                    )
                    % {"places": ", ".join(map(str, checked)), "expected": ", ".join(map(str, expected))}
                ]
            }
        )
    return checked


@retry_when_database_locked
def moderation_game_adjudicate(*, game_id: str, by_user: User, reason: str, places: Sequence[int]) -> Game:
    """End an active game with the places a moderator decided (by seat; 1 is
    first). The result's reason is ``adjudicated``; the scores are the points on
    the board now. Writes ``game_adjudicated`` then ``game_finished``."""
    reason = moderation_reason_clean(reason)
    now = timezone.now()
    with transaction.atomic():
        with game_change(game_id, with_seats=True) as writes:
            game = writes.game
            _check_active(game, gettext("This game is %(status)s; only an active game can be adjudicated."))
            checked = _places_checked(places, game.seat_count)
            resigned, timed_out = seats_left(game)
            ranking = sorted(range(game.seat_count), key=lambda seat: (checked[seat], seat))
            result: GameResult = {
                "winners": [seat for seat in ranking if checked[seat] == 1],
                "scores": scores(state_of(game), game.seat_count),
                "places": checked,
                "ranking": ranking,
                "reason": ResultReason.ADJUDICATED.value,
                "resigned": sorted(resigned),
                "timed_out": sorted(timed_out),
            }
            writes.change(GameEvent.Kind.GAME_ADJUDICATED, {"by_user_id": by_user.pk, "places": checked})
            finish(writes, result=result, now=now)
        moderation_entry_record(
            by_user=by_user, action=Action.GAME_ADJUDICATED, reason=reason, game_id=game.pk,
            details={"places": checked, "version": game.version}, now=now,
        )
    return game


@retry_when_database_locked
def moderation_deadline_extend(*, game_id: str, by_user: User, reason: str, hours: int) -> Game:
    """Give the seat to move ``hours`` more on this turn's clock (on the time left,
    while the game is paused). The extension is free: it does not come out of the
    seat's bank. Writes ``deadline_extended``."""
    reason = moderation_reason_clean(reason)
    if not 1 <= hours <= MAX_MOVE_TIMEOUT_HOURS:
        raise InvalidInput(
            {
                "hours": [
                    gettext("Extend a deadline by 1 to %(most)s hours; you asked for %(asked)s.")
                    % {"most": MAX_MOVE_TIMEOUT_HOURS, "asked": hours}
                ]
            }
        )
    now = timezone.now()
    extra = timedelta(hours=hours)
    with transaction.atomic():
        with game_change(game_id, with_seats=True) as writes:
            game = writes.game
            _check_active(game, gettext("This game is %(status)s; only an active game can be given more time."))
            seat = seat_at(game.seats.all(), game.to_move)
            if seat is None:
                raise errors.GameNotActive(gettext("Nobody is to move in this game, so there is no deadline to extend."))
            if is_paused(game):
                assert game.clock_remaining is not None
                game.clock_remaining += extra
            elif game.deadline_at is not None:
                game.deadline_at += extra
                if game.turn_started_at is not None:
                    game.turn_started_at += extra
            else:
                raise errors.GameNotActive(
                    gettext("This game's clock is not running, so there is no deadline to extend.")
                )
            writes.change(
                GameEvent.Kind.DEADLINE_EXTENDED,
                {
                    "seat": seat.index,
                    "user_id": seat.user_id,
                    "hours": hours,
                    "deadline_at": game.deadline_at.isoformat() if game.deadline_at is not None else None,
                    "by_user_id": by_user.pk,
                },
            )
        moderation_entry_record(
            by_user=by_user, action=Action.DEADLINE_EXTENDED, reason=reason, game_id=game.pk,
            target_user_id=seat.user_id,
            details={
                "hours": hours,
                "seat": seat.index,
                "deadline_at": game.deadline_at.isoformat() if game.deadline_at is not None else None,
            },
            now=now,
        )
    return game


@retry_when_database_locked
def moderation_game_pause(*, game_id: str, by_user: User, reason: str) -> GamePause:
    """Stop the game's clock until a moderator resumes it (a pause with reason
    ``moderator``; ``games.services.game_pause``)."""
    reason = moderation_reason_clean(reason)
    with transaction.atomic():
        pause = game_pause(
            game_id=game_id, reason=GamePause.Reason.MODERATOR, by_user_id=by_user.pk, note=reason[:500]
        )
        moderation_entry_record(
            by_user=by_user, action=Action.GAME_PAUSED, reason=reason, game_id=game_id,
            details={"pause_id": pause.pk},
        )
    return pause


@retry_when_database_locked
def moderation_game_resume(*, game_id: str, by_user: User, reason: str) -> None:
    """End the game's moderator pauses (``games.services.game_resume``); the clock
    runs again unless another reason (a vacation) still holds it."""
    reason = moderation_reason_clean(reason)
    with transaction.atomic():
        if not game_resume(game_id=game_id, reason=GamePause.Reason.MODERATOR):
            raise InvalidInput(
                {"game": [gettext("Game %(game)s has no moderator's pause to end.") % {"game": game_id}]}
            )
        moderation_entry_record(by_user=by_user, action=Action.GAME_RESUMED, reason=reason, game_id=game_id)


@retry_when_database_locked
def moderation_seat_replace(
    *,
    game_id: str,
    seat_index: int,
    by_user: User,
    reason: str,
    new_user: User | None = None,
    bot: bool = False,
) -> Seat:
    """Hand a seat of an active game to another player (``new_user``), or to the
    takeover bot (``bot``, TAKEOVER_BOT), whose turns the bots worker then plays,
    each within moments (this one, if it is the seat's turn, once this commits). A new
    player gets a fresh clock if it is their turn, and the seat's links and reply
    address are renewed (those sent to the old player stop working), and the old
    player's private notes on the seat are cleared (games.notes). Writes
    ``seat_replaced``."""
    reason = moderation_reason_clean(reason)
    if bot == (new_user is not None):
        raise InvalidInput(
            {"new_user": [gettext("Choose either another player or the bot for the seat, not both.")]}
        )
    now = timezone.now()
    with transaction.atomic():
        with game_change(game_id, with_seats=True) as writes:
            game = writes.game
            _check_active(game, gettext("This game is %(status)s; only an active game can be changed."))
            seats = list(game.seats.all())
            seat = seat_at(seats, seat_index)
            if seat is None:
                numbers = ", ".join(str(s.index) for s in seats if s.index is not None)
                raise InvalidInput(
                    {
                        "seat": [
                            gettext("Game %(game)s has no seat %(seat)s; its seats are %(seats)s.")
                            % {"game": game_id, "seat": seat_index, "seats": numbers}
                        ]
                    }
                )
            if seat.resigned:
                raise InvalidInput(
                    {"seat": [gettext("Seat %(seat)s has left the game; there is nobody to replace.") % {"seat": seat_index}]}
                )
            old_user_id = seat.user_id
            if new_user is not None:
                if any(s.user_id == new_user.pk for s in seats):
                    raise InvalidInput(
                        {
                            "new_user": [
                                gettext("%(name)s already has a seat in this game; choose someone else.")
                                % {"name": new_user.get_username()}
                            ]
                        }
                    )
                if not new_user.is_active or player_for_user(user=new_user).suspended_at is not None:
                    raise InvalidInput(
                        {
                            "new_user": [
                                gettext("%(name)s's account is disabled or suspended; choose someone else.")
                                % {"name": new_user.get_username()}
                            ]
                        }
                    )
                seat.user = new_user
                seat.bot = False
                seat.link_key, seat.reply_key = new_seat_key(), new_seat_key()
                # Its notes were the last holder's (games.notes): the next one never reads them.
                seat.note, seat.move_notes = "", {}
            else:
                if seat.bot:
                    raise InvalidInput(
                        {"seat": [gettext("The bot already plays seat %(seat)s.") % {"seat": seat_index}]}
                    )
                seat.bot = True
            seat.consecutive_timeouts = 0
            # A plan is its holder's: neither the next holder nor the bot plays it.
            seat.plan, seat.plan_outcomes = [], []
            seat.save(
                update_fields=[
                    "user", "bot", "link_key", "reply_key", "consecutive_timeouts", "plan", "plan_outcomes", "note",
                    "move_notes",
                ]
            )
            writes.change(
                GameEvent.Kind.SEAT_REPLACED,
                {
                    "seat": seat.index,
                    "old_user_id": old_user_id,
                    "new_user_id": new_user.pk if new_user is not None else None,
                    "bot": bot,
                    "by_user_id": by_user.pk,
                },
            )
            if game.to_move == seat.index:
                if bot:
                    # The bots worker plays the turn once this commits (games.services.bot_turns).
                    bot_turn_write_if_due(game, seats, now=now)
                else:
                    start_turn_clock(game, seats, now)
        moderation_entry_record(
            by_user=by_user, action=Action.SEAT_REPLACED, reason=reason, game_id=game.pk,
            target_user_id=old_user_id,
            details={
                "seat": seat.index,
                "new_user_id": new_user.pk if new_user is not None else None,
                "bot": bot,
            },
            now=now,
        )
    return seat


# --- players ------------------------------------------------------------------------


def moderation_player_warn(
    *, user: User, by_user: User, reason: str, game_id: str | None = None, details: dict[str, Any] | None = None
) -> ModerationEntry:
    """Record a warning to a player (the reason is what they were warned about);
    once it commits, the player is told (``accounts.services.player_warn``).
    ``details`` scope it (a league admin's warning names the league)."""
    with transaction.atomic():
        entry = moderation_entry_record(
            by_user=by_user,
            action=Action.PLAYER_WARNED,
            reason=reason,
            game_id=game_id,
            target_user_id=user.pk,
            details=details,
        )
        player_warn(user=user, by_user=by_user, reason=entry.reason, warning_id=entry.pk, game_id=game_id)
        return entry


@retry_when_database_locked
def moderation_player_suspend(*, user: User, by_user: User, reason: str) -> bool:
    """Suspend an account (``accounts.services.player_suspend``): its tokens and
    seat links stop working and it cannot move; its turns time out as usual.
    False, and nothing logged, when it was suspended already."""
    reason = moderation_reason_clean(reason)
    with transaction.atomic():
        if not player_suspend(user=user, by_user=by_user, reason=reason):
            return False
        moderation_entry_record(by_user=by_user, action=Action.PLAYER_SUSPENDED, reason=reason, target_user_id=user.pk)
    return True


@retry_when_database_locked
def moderation_player_unsuspend(*, user: User, by_user: User, reason: str) -> bool:
    """Lift a suspension. False, and nothing logged, when there was none."""
    reason = moderation_reason_clean(reason)
    with transaction.atomic():
        if not player_unsuspend(user=user, by_user=by_user):
            return False
        moderation_entry_record(
            by_user=by_user, action=Action.PLAYER_UNSUSPENDED, reason=reason, target_user_id=user.pk
        )
    return True


# --- looking ---------------------------------------------------------------------------


def moderation_board_view_record(*, game: Game, seat_index: int, by_user: User) -> ModerationEntry:
    """Log that a moderator looked at the board as a seat sees it. Refused
    (PermissionDenied) to anyone who holds a seat in the game: that would show
    them an opponent's hidden cards."""
    if Seat.objects.filter(game=game, user_id=by_user.pk).exists():
        raise PermissionDenied(gettext("You hold a seat in this game, so you cannot see it as another seat does."))
    return moderation_entry_record(
        by_user=by_user,
        action=Action.BOARD_VIEWED,
        reason=f"Looked at the board as seat {seat_index}.",
        game_id=game.pk,
        details={"seat": seat_index},
    )

