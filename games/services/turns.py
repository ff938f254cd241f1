"""The turn machinery the services share, run inside ``game_change``'s block on
the game it locked: the state, the clock of a turn, the server's own moves
(quiet moves for seats that left, the bot's, forced passes), settling a turn
and finishing or aborting a game, and a seat leaving it.

These take the change's ``GameWrites`` and never lock or save anything
themselves; ``games.services.change`` says why.
"""

from __future__ import annotations

import hashlib
import logging
import math
from collections.abc import Collection, Iterable
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, Literal

import engine
import engine.bots
from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Max, Q
from django.utils import timezone

from core.queue import task_send

from games import errors
from games.engine_states import state_of_game, state_store
from games.models import BotDispatchPending, BotTurn, Game, GameEvent, GamePause, Move, PlayedBy, Seat
from games.plans.lines import plan_fire, plan_stored
from games.results import GameResult, ResultReason, result_from_outcome, result_last_standing, result_person_left
from games.services.change import GameWrites

if TYPE_CHECKING:
    from django.contrib.auth.models import User

logger = logging.getLogger(__name__)

# The task that plays the oldest due bot turn of the next share in line, one move
# (games.tasks; games.services.bot_turns), on the bots worker.
BOT_TURNS_DISPATCH_TASK = "games.tasks.bot_turns_dispatch"


# Why the bot played a seat's move (move_played's ``bot_reason``, docs/events.md).
BotReason = Literal["timeout", "moderator"]


def joined_seat(game: Game, user: User) -> Seat:
    # Scans the seats (prefetched by game_lock(with_seats=True), else one query).
    for seat in game.seats.all():
        if seat.user_id == user.pk and seat.has_joined:
            return seat
    raise errors.NotAPlayer()  # its default message


def seat_at(seats: Iterable[Seat], index: int | None) -> Seat | None:
    return next((seat for seat in seats if index is not None and seat.index == index), None)


def is_hot_seat(game: Game, seat: Seat) -> bool:
    """A sandbox's seat that no bot plays and that is not its owner's: the owner
    plays it too (a "hot seat"). Sandboxes have no other people in them."""
    return game.kind == Game.Kind.SANDBOX and not seat.bot_name and seat.user_id != game.created_by_id


def acting_seat(game: Game, user: User) -> Seat:
    """The seat ``user`` acts for: their own, except that the owner of a sandbox
    acts for a hot seat whose turn it is (``is_hot_seat``). NotAPlayer without a seat."""
    own = joined_seat(game, user)
    if game.kind == Game.Kind.SANDBOX and game.created_by_id == user.pk:
        to_move = seat_at(game.seats.all(), game.to_move)
        if to_move is not None and is_hot_seat(game, to_move):
            return to_move
    return own


def bank_after_turn(*, bank: int, move_seconds: int, cap: int, used_seconds: float) -> int:
    """A seat's bank after a turn that took ``used_seconds``: the unused part of
    the time per move is added to it up to ``cap``; time beyond the time per move
    comes out of it (never below zero). Whole seconds, rounded for the player."""
    if used_seconds <= move_seconds:
        return max(bank, min(cap, bank + int(move_seconds - used_seconds)))
    return max(0, bank - math.ceil(used_seconds - move_seconds - 1e-6))


def allowed_time(game: Game, seat: Seat | None) -> timedelta:
    """The time a seat has for its turn: the time per move and its bank."""
    return timedelta(seconds=game.move_seconds + (seat.bank_seconds if seat is not None else 0))


def is_paused(game: Game) -> bool:
    # Set when the first pause starts and cleared when the last one ends (_pause_locked, _resume_locked).
    return game.clock_remaining is not None


def start_turn_clock(game: Game, seats: Iterable[Seat], now: datetime) -> None:
    """Start the clock of the seat to move: its deadline is now + the time per
    move + its bank. While the game is paused the clock does not run: the time
    it will have is kept in ``clock_remaining`` and the deadline stays NULL."""
    # Practice games and sandboxes have no clock: nobody's time runs out in them.
    if game.to_move is None or game.status != Game.Status.ACTIVE or game.is_practice:
        game.deadline_at = game.turn_started_at = None
        game.clock_remaining = None
        return
    allowed = allowed_time(game, seat_at(seats, game.to_move))
    if is_paused(game):
        game.clock_remaining = allowed
        game.deadline_at = game.turn_started_at = None
    else:
        game.turn_started_at = now
        game.deadline_at = now + allowed


def _time_used(game: Game, seat: Seat, now: datetime) -> float:
    """Seconds the seat to move has used of its clock so far (pauses not counted)."""
    if game.clock_remaining is not None:
        return (allowed_time(game, seat) - game.clock_remaining).total_seconds()
    if game.turn_started_at is None:
        return 0.0
    return max(0.0, (now - game.turn_started_at).total_seconds())


def charge_clock(game: Game, seat: Seat, now: datetime) -> bool:
    """Settle the mover's bank for the turn it just played, and reset its timeouts
    in a row (its own move). True when the seat row changed."""
    bank = bank_after_turn(
        bank=seat.bank_seconds,
        move_seconds=game.move_seconds,
        cap=game.bank_cap_seconds,
        used_seconds=_time_used(game, seat, now),
    )
    changed = bank != seat.bank_seconds or seat.consecutive_timeouts != 0
    seat.bank_seconds, seat.consecutive_timeouts = bank, 0
    return changed


def state_of(game: Game) -> engine.State:
    assert game.state is not None  # stored when the game started; moves need a started game
    return state_of_game(game)


def _store_state(game: Game, state: engine.State, seats: Iterable[Seat], now: datetime) -> None:
    state_store(game, state)
    game.to_move = engine.to_move(state)
    start_turn_clock(game, seats, now)


def scores(state: engine.State, players: int) -> list[int]:
    return [engine.score(state, seat) for seat in range(players)]


def finish(writes: GameWrites, *, result: GameResult, now: datetime) -> None:
    game = writes.game
    game.status = Game.Status.FINISHED
    game.result = result
    game.finished_at = now
    game.to_move = None
    game.deadline_at = game.turn_started_at = None
    if game.clock_remaining is not None:
        # Pauses end with the game; nothing is left to resume.
        GamePause.objects.filter(game=game, ended_at__isnull=True).update(ended_at=now)
        game.clock_remaining = None
    writes.change(GameEvent.Kind.GAME_FINISHED, {"result": result})


def record_move(
    writes: GameWrites,
    *,
    before: engine.State,
    move: engine.Move,
    after: engine.State,
    played_by: PlayedBy,
    bot_reason: BotReason | None = None,
    from_plan: bool = False,
) -> tuple[Move, engine.MoveDetails]:
    """Append the move and its ``move_played`` event. A bot's move says why the
    bot played (``bot_reason``): the seat's deadline passed, or a moderator handed
    the seat to the bot. A move of the seat's plan (``from_plan``) is the player's
    own, and its event says nothing more: the plan is its owner's alone."""
    assert (played_by == PlayedBy.BOT) == (bot_reason is not None)
    details = engine.move_details(before, move, after)
    # The engine counts every move applied since the deal, as the move log does.
    ply = before.ply
    automatic = played_by != PlayedBy.PLAYER
    row = Move(
        game=writes.game,
        ply=ply,
        seat=details["seat"],
        text=details["move"],
        private_card=details.get("private_card") or "",
        automatic=automatic,
        played_by=played_by,
        from_plan=from_plan,
    )
    writes.moves.append(row)
    # The payload is public: it never names a blind-reserved card.
    payload: dict[str, Any] = {
        "ply": ply,
        "seat": details["seat"],
        "move": details["move"],
        "automatic": automatic,
        "played_by": played_by.value,
    }
    if bot_reason is not None:
        payload["bot_reason"] = bot_reason
    writes.change(GameEvent.Kind.MOVE_PLAYED, payload)
    return row, details


def _quiet_move(state: engine.State) -> engine.Move:
    """The move the server plays for a resigned seat: the first legal token take,
    else the first legal move (legal moves come sorted by canonical text)."""
    legal = engine.legal_moves(state)
    for move in legal:
        if engine.format_move(move).startswith("take "):
            return move
    return legal[0]


def _forced_pass(state: engine.State) -> engine.Move | None:
    """``pass`` when it is the only legal move (B-PASS-1): nothing to choose, so
    nobody waits for it."""
    legal = engine.legal_moves(state)
    if len(legal) == 1 and engine.format_move(legal[0]) == "pass":
        return legal[0]
    return None


def bot_seed(game_id: str, ply: int) -> int:
    """The seed of a bot's choice at ``ply`` of a game: the same whenever that turn
    is played again (a replayed timeout chooses the same), different across games."""
    return int.from_bytes(hashlib.sha256(f"{game_id}:{ply}".encode()).digest()[:8], "big")


def bot_make(name: str, seed: int, *, playouts: int | None = None) -> engine.bots.Bot:
    """A bot by its name in ``engine.bots.BOTS``. The search bot gets ``playouts``
    (by default TAKEOVER_BOT_PLAYOUTS); the others take none."""
    if name == "ismcts":
        return engine.bots.make_bot(name, seed=seed, playouts=playouts or settings.TAKEOVER_BOT_PLAYOUTS)
    return engine.bots.make_bot(name, seed=seed)


def bot_choose(state: engine.State, seat: int, *, name: str, game_id: str, playouts: int | None = None) -> str:
    """The move text bot ``name`` chooses for ``seat``, made as a player's would be:
    from the seat's own view and the legal move texts, never the full state."""
    legal = [engine.format_move(move) for move in engine.legal_moves(state)]
    bot = bot_make(name, bot_seed(game_id, state.ply), playouts=playouts)
    return bot.choose(engine.observe(state, seat), legal)


def bot_move(state: engine.State, seat: int, *, game_id: str) -> engine.Move:
    """The takeover bot's choice (TAKEOVER_BOT) for a seat whose player missed the
    deadline or was handed to the bot by a moderator; seeded by the game and the ply."""
    text = bot_choose(state, seat, name=settings.TAKEOVER_BOT, game_id=game_id)
    return engine.parse_move(state, text)


def autoplay(
    writes: GameWrites, state: engine.State, resigned: Collection[int], bots: Collection[int] = ()
) -> engine.State:
    """Play the server's moves until a player has a choice: a quiet move for each
    seat that left, the line of a person's plan that the move before its turn fires
    (``plan_play``), and ``pass`` for a seat that can do nothing else. It stops at
    a seat a moderator gave to the bot (``bots``): the bots worker plays that turn
    (``settle`` writes its ``BotTurn``; games.services.bot_turns), never the change
    that reached it."""
    while not engine.is_over(state):
        seat = engine.to_move(state)
        played_by = PlayedBy.SERVICE
        from_plan = False
        if seat in resigned:
            move: engine.Move | None = _quiet_move(state)
        elif seat is not None and seat in bots:
            break
        else:
            move = plan_play(writes, state, seat)
            if move is not None:
                played_by, from_plan = PlayedBy.PLAYER, True
            else:
                move = _forced_pass(state)
        if move is None:
            break
        after = engine.apply(state, move)
        record_move(writes, before=state, move=move, after=after, played_by=played_by, from_plan=from_plan)
        state = after
    return state


# What a seat keeps of its plan's outcomes (a plan fires at most MAX_DEPTH times, then clears).
PLAN_OUTCOMES_KEPT = 8


def plan_play(writes: GameWrites, state: engine.State, index: int | None) -> engine.Move | None:
    """The move the plan of the person at seat ``index`` plays now, or None; the
    seat's plan and outcomes are updated either way. A plan fires only on a move
    applied in this change (the last of ``writes.moves``: the move before the
    seat's turn). A move it plays is the player's own: its time counts as none,
    so the seat's bank settles as for an instant move and its timeouts in a row
    end. Should be called while holding ``game_change``'s lock. No query unless
    the seat has a plan (its seats come with the lock)."""
    if not writes.moves or index is None:
        return None
    seat = seat_at(writes.game.seats.all(), index)
    if seat is None or not seat.plan or seat.bot or seat.bot_name or seat.resigned:
        return None
    player = getattr(seat.user, "player", None)
    before = writes.moves[-1].text
    if player is not None and player.suspended_at is not None:
        move, seat.plan, outcome = None, [], {"ply": state.ply, "after": before, "cleared": "suspended"}
    else:
        firing = plan_fire(plan_stored(seat.plan), state, before, language=getattr(player, "language", None))
        move, seat.plan, outcome = firing.move, firing.plan, dict(firing.outcome)
    seat.plan_outcomes = [*(seat.plan_outcomes or []), outcome][-PLAN_OUTCOMES_KEPT:]
    fields = ["plan", "plan_outcomes"]
    if move is not None:
        seat.bank_seconds = bank_after_turn(
            bank=seat.bank_seconds, move_seconds=writes.game.move_seconds,
            cap=writes.game.bank_cap_seconds, used_seconds=0,
        )
        seat.consecutive_timeouts = 0
        fields += ["bank_seconds", "consecutive_timeouts"]
    writes.seat_save(seat, fields)
    return move


def bot_seats(seats: Iterable[Seat]) -> set[int]:
    """The indexes of the seats the bot plays (Seat.bot), of those still in the game."""
    return {s.index for s in seats if s.bot and not s.resigned and s.index is not None}


def settle(
    writes: GameWrites,
    state: engine.State,
    now: datetime,
    *,
    seats: Iterable[Seat],
    resigned: Collection[int],
    timed_out: Collection[int],
) -> None:
    """Store the state after a change, start the next turn's clock and finish the
    game when it is over. ``resigned``: the seat indexes that have left
    (``timed_out``: on time)."""
    _store_state(writes.game, state, seats, now)
    if engine.is_over(state):
        outcome = engine.outcome(state)
        assert outcome is not None  # the engine scores every game that is over
        finish(writes, result=result_from_outcome(outcome, resigned=resigned, timed_out=timed_out), now=now)
    bot_turn_write_if_due(writes.game, seats)


def bot_turn_due(game: Game, seats: Iterable[Seat]) -> Seat | None:
    """The seat whose turn it is when a bot plays it: a practice game's or a
    sandbox's bot (Seat.bot_name), or a seat a moderator handed to the bot
    (Seat.bot). None when a person is to move or the game is not active."""
    if game.status != Game.Status.ACTIVE:
        return None
    seat = seat_at(seats, game.to_move)
    if seat is None or seat.resigned:
        return None
    if game.is_practice:
        return seat if seat.bot_name else None
    return seat if seat.bot else None


def bot_turn_share(game: Game) -> int | None:
    """The account whose share of the bots' time a game's bot turns count against:
    the person of a practice game or a sandbox; None for a real game (a seat a
    moderator handed to the bot), which is a share of its own."""
    return game.created_by_id if game.is_practice else None


def bot_turn_write_if_due(game: Game, seats: Iterable[Seat], *, now: datetime | None = None) -> bool:
    """When it is now a bot's turn (``bot_turn_due``), write the game's ``BotTurn``,
    in this change's transaction, and have the dispatcher queued once it commits
    (BOT_TURNS_DISPATCH_TASK): the bots worker plays the move, never the change
    that reached it. A game already in line keeps its place (the dispatcher that
    holds it writes it again). Should be called while holding ``game_change``'s
    lock. True when a row was written. One query when no bot is due: none."""
    seat = bot_turn_due(game, seats)
    if seat is None or BotTurn.objects.filter(game=game).exists():
        return False
    account_id = bot_turn_share(game)
    # A share already in line keeps its turn in the line: its new row is served
    # when its share is, not ahead of everyone else's.
    served_at = (
        BotTurn.objects.filter(account_id=account_id).aggregate(last=Max("served_at"))["last"]
        if account_id is not None
        else None
    )
    kind = BotTurn.Kind.PRACTICE if game.is_practice else BotTurn.Kind.MODERATOR
    BotTurn.objects.create(
        game=game, account_id=account_id, kind=kind, due_at=now or timezone.now(), served_at=served_at
    )
    transaction.on_commit(bot_turns_dispatch_queue, robust=True)
    return True


# How long a dispatcher message counts as waiting in the queue (BotDispatchPending):
# one lost on the way holds back no other for longer.
BOT_DISPATCH_PENDING_SECONDS = 60


def bot_turns_dispatch_queue(*, force: bool = False) -> bool:
    """Queue the dispatcher unless a message for it is already waiting in the queue
    (``BotDispatchPending``; ``force``: queue it anyway, as the beat's safety net
    does): the `bots` queue then holds one dispatcher message at a time, and each
    run queues the next while turns are due. A broker that refuses is logged: the
    beat's ``requeue_bot_turns`` queues it again. True when a message was sent."""
    now = timezone.now()
    until = now + timedelta(seconds=BOT_DISPATCH_PENDING_SECONDS)
    try:
        if not force and not bot_dispatch_pending_mark(now=now, until=until):
            return False
        task_send(BOT_TURNS_DISPATCH_TASK)
    except Exception:
        logger.warning("could not queue the bots' dispatcher", exc_info=True)
        BotDispatchPending.objects.filter(pk=1, until=until).update(until=None)
        return False
    return True


def bot_dispatch_pending_mark(*, now: datetime, until: datetime) -> bool:
    """Mark a dispatcher message as waiting until ``until``, unless one already is
    (one conditional UPDATE: of two callers at once, one wins). True when marked."""
    waiting = Q(until__isnull=True) | Q(until__lt=now)
    if BotDispatchPending.objects.filter(waiting, pk=1).update(until=until):
        return True
    try:
        with transaction.atomic():
            _, created = BotDispatchPending.objects.get_or_create(pk=1, defaults={"until": until})
    except IntegrityError:
        return False  # another caller made the row at the same moment, and marked it
    return created


def bot_dispatch_pending_clear() -> None:
    """The dispatcher's message was taken by a worker: a change may queue another."""
    BotDispatchPending.objects.filter(pk=1).update(until=None)


def seats_left(game: Game) -> tuple[set[int], set[int]]:
    """The indexes of the seats that left the game, and of those that left on time
    (from the seats loaded with the game)."""
    resigned = {s.index for s in game.seats.all() if s.resigned and s.index is not None}
    timed_out = {s.index for s in game.seats.all() if s.timed_out and s.index is not None}
    return resigned, timed_out


def seat_leave(writes: GameWrites, seat: Seat, *, reason: ResultReason, now: datetime) -> None:
    game = writes.game
    seat.resigned = True
    seat.resigned_at = now
    seat.timed_out = reason in (ResultReason.TIMEOUT, ResultReason.ACCOUNT_DISABLED)
    seat.save(update_fields=["resigned", "resigned_at", "timed_out"])
    writes.change(
        GameEvent.Kind.SEAT_RESIGNED, {"seat": seat.index, "user_id": seat.user_id, "reason": reason.value}
    )
    state = state_of(game)
    seats = list(game.seats.all().order_by("index"))
    remaining = [s for s in seats if not s.resigned]
    timed_out = {s.index for s in seats if s.timed_out and s.index is not None}
    # The last to leave outlasted the others, so ranks above them.
    left = sorted(
        (s for s in seats if s.resigned and s.index is not None),
        key=lambda s: (s.resigned_at or now, s.index or 0),
        reverse=True,
    )
    if len(remaining) == 1 and remaining[0].index is not None:
        result = result_last_standing(
            winner=remaining[0].index,
            left_in_order=[s.index for s in left if s.index is not None],
            scores=scores(state, game.seat_count),
            timed_out=timed_out,
            reason=reason,
        )
        finish(writes, result=result, now=now)
        return
    if game.is_practice and seat.user_id == game.created_by_id:
        # Its person left a practice game or a sandbox: the bots (and hot seats) would
        # play for nobody, so it ends here, as it stands.
        finish(
            writes,
            result=result_person_left(
                left_in_order=[s.index for s in left if s.index is not None],
                scores=scores(state, game.seat_count),
                timed_out=timed_out,
                reason=reason,
            ),
            now=now,
        )
        return
    resigned = {s.index for s in seats if s.resigned and s.index is not None}
    state = autoplay(writes, state, resigned, bot_seats(seats))
    # A seat that left on its own turn is played past and the next clock starts;
    # one that left on another's turn leaves that turn's clock as it was.
    if engine.to_move(state) != game.to_move or engine.is_over(state):
        settle(writes, state, now, seats=seats, resigned=resigned, timed_out=timed_out)


def abort(writes: GameWrites, *, reason: str, now: datetime, by_user_id: int | None = None) -> None:
    game = writes.game
    game.status = Game.Status.ABORTED
    game.finished_at = now
    game.to_move = None
    game.deadline_at = None
    writes.change(GameEvent.Kind.GAME_ABORTED, {"reason": reason, "by_user_id": by_user_id})
