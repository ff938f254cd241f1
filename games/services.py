"""Every change to a game goes through one of these functions.

Each one runs in a single transaction that locks the game row, changes it,
bumps ``Game.version`` and writes one ``GameEvent`` per change: the outbox, the
one way news leaves this app. After commit the outbox consumers named in
``settings.GAME_EVENT_CONSUMERS`` are queued by task name, so this app imports
none of them. Reads live in ``games.selectors``.

The services speak the game, not HTTP: they take ids, users, move texts and
versions, return what happened, and raise ``games.errors`` (domain errors). A
REST view, an email reply, an admin action or a Celery task calls them alike.
"""

from __future__ import annotations

import hashlib
import logging
import math
import secrets
import time
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, Literal

import engine
from engine.bots.greedy import GreedyBot
from celery import current_app
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.db.models import F, Prefetch, Q
from django.utils import timezone
from kombu.exceptions import OperationalError

from core.db import retry_when_database_locked
from core.queue import task_send
from core.errors import InvalidInput
from core.text import counted, listed
from games import errors, selectors
from games.models import (
    Game,
    GameEvent,
    GameEventClaim,
    GamePause,
    IdempotencyRecord,
    Move,
    PlayedBy,
    Seat,
    Vacation,
    is_public_id,
)
from games.results import GameResult, ResultReason, result_from_outcome, result_last_standing

if TYPE_CHECKING:
    from django.contrib.auth.models import User

logger = logging.getLogger(__name__)

MIN_SEATS = 2
MAX_SEATS = 4
MAX_MOVE_TIMEOUT_HOURS = 24 * 30
MAX_BANK_HOURS = 24 * 60
DEFAULT_FORFEIT_AFTER = 3
DEFAULT_MOVE_TIMEOUT_HOURS = 72
MAX_FORFEIT_AFTER = 10
# Why the bot played a seat's move (move_played's ``bot_reason``, docs/events.md).
BotReason = Literal["timeout", "moderator"]

# A consumer that claimed an event and did not finish it within this time is
# taken to have died: the event may be claimed again (at-least-once delivery).
def _event_claim_lease() -> timedelta:
    return timedelta(seconds=settings.OUTBOX_CLAIM_LEASE_SECONDS)


def seed_commitment_for(seed: int | str) -> str:
    """SHA-256 hex of the seed's canonical text (its decimal digits)."""
    return hashlib.sha256(str(int(seed)).encode("ascii")).hexdigest()


@dataclass(frozen=True)
class MovePlayed:
    """What ``move_submit`` did.

    ``game`` is the saved row with its seats loaded; ``move`` the player's move;
    ``automatic`` the quiet moves the server then played for resigned seats;
    ``details`` what the engine says the move did (it may name a blind-reserved
    card: server-side only, never for another seat).
    """

    game: Game
    move: Move
    details: engine.MoveDetails
    automatic: list[Move] = field(default_factory=list)

    @property
    def version(self) -> int:
        return self.game.version

    @property
    def finished(self) -> bool:
        return self.game.status == Game.Status.FINISHED


# --- helpers (run inside the caller's transaction) ---------------------------


# What a move can change in the game row; a move saves only these.
PLAY_FIELDS = (
    "state", "to_move", "deadline_at", "turn_started_at", "clock_remaining",
    "version", "status", "result", "finished_at",
)


def _lock_game(game_id: str, *, with_seats: bool = False) -> Game:
    """The game row, locked until the transaction ends.

    ``with_seats`` also loads its creator and its seats with their users and
    players (one more query), so that nothing later in the transaction or in
    the answer reads them again. Seats change only under this same lock, so
    the list stays true until commit.
    """
    if not is_public_id(game_id):
        raise errors.GameNotFound.for_id(game_id)
    # A no-op on SQLite, where the IMMEDIATE transaction already holds the write lock.
    # of=("self",): lock the game row, not the creator's user row joined to it.
    games = Game.objects.select_for_update(of=("self",))
    if with_seats:
        games = games.select_related("created_by").prefetch_related(
            Prefetch("seats", queryset=Seat.objects.select_related("user__player"))
        )
    try:
        return games.get(pk=game_id)
    except Game.DoesNotExist:
        raise errors.GameNotFound.for_id(game_id) from None


class _Writes:
    """The rows one service call adds beside the game row: moves and outbox events.

    They are gathered while the call works out what happened and inserted by
    ``flush``, one INSERT per table, before the game row is saved.
    """

    def __init__(self, game: Game) -> None:
        self.game = game
        self.moves: list[Move] = []
        self.events: list[GameEvent] = []

    def change(self, kind: str, payload: dict[str, object]) -> None:
        """Record one state change: bump the version and queue its outbox event.
        Payloads name people by user id and seats by index, never by name or
        address, so that erasing an account erases it here too."""
        self.game.version += 1
        self.events.append(GameEvent(game=self.game, kind=kind, payload={**payload, "version": self.game.version}))

    def flush(self) -> None:
        """Insert the rows, and have the outbox consumers queued once the
        transaction commits (a rolled-back change queues nothing)."""
        # In order, so that event ids follow the versions (the outbox is read by id).
        if self.moves:
            Move.objects.bulk_create(self.moves)
        if self.events:
            GameEvent.objects.bulk_create(self.events)
            event_ids = [event.pk for event in self.events if event.pk is not None]
            # robust: the change is stored by then, so nothing that goes wrong in
            # telling the consumers may turn its answer into an error.
            transaction.on_commit(lambda: game_events_dispatch(event_ids=event_ids), robust=True)
        self.moves, self.events = [], []


def _joined_seat(game: Game, user: User) -> Seat:
    # Scans the seats (prefetched by _lock_game(with_seats=True), else one query).
    for seat in game.seats.all():
        if seat.user_id == user.pk and seat.has_joined:
            return seat
    raise errors.NotAPlayer("You do not have a seat in this game, so you cannot act in it.")


def _seat_at(seats: Iterable[Seat], index: int | None) -> Seat | None:
    return next((seat for seat in seats if index is not None and seat.index == index), None)


def bank_after_turn(*, bank: int, move_seconds: int, cap: int, used_seconds: float) -> int:
    """A seat's bank after a turn that took ``used_seconds``: the unused part of
    the time per move is added to it up to ``cap``; time beyond the time per move
    comes out of it (never below zero). Whole seconds, rounded for the player."""
    if used_seconds <= move_seconds:
        return max(bank, min(cap, bank + int(move_seconds - used_seconds)))
    return max(0, bank - math.ceil(used_seconds - move_seconds - 1e-6))


def _allowed(game: Game, seat: Seat | None) -> timedelta:
    """The time a seat has for its turn: the time per move and its bank."""
    return timedelta(seconds=game.move_seconds + (seat.bank_seconds if seat is not None else 0))


def _is_paused(game: Game) -> bool:
    # Set when the first pause starts and cleared when the last one ends (_pause_locked, _resume_locked).
    return game.clock_remaining is not None


def _start_turn_clock(game: Game, seats: Iterable[Seat], now: datetime) -> None:
    """Start the clock of the seat to move: its deadline is now + the time per
    move + its bank. While the game is paused the clock does not run: the time
    it will have is kept in ``clock_remaining`` and the deadline stays NULL."""
    if game.to_move is None or game.status != Game.Status.ACTIVE:
        game.deadline_at = game.turn_started_at = None
        game.clock_remaining = None
        return
    allowed = _allowed(game, _seat_at(seats, game.to_move))
    if _is_paused(game):
        game.clock_remaining = allowed
        game.deadline_at = game.turn_started_at = None
    else:
        game.turn_started_at = now
        game.deadline_at = now + allowed


def _time_used(game: Game, seat: Seat, now: datetime) -> float:
    """Seconds the seat to move has used of its clock so far (pauses not counted)."""
    if game.clock_remaining is not None:
        return (_allowed(game, seat) - game.clock_remaining).total_seconds()
    if game.turn_started_at is None:
        return 0.0
    return max(0.0, (now - game.turn_started_at).total_seconds())


def _charge_clock(game: Game, seat: Seat, now: datetime) -> bool:
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


def _state(game: Game) -> engine.State:
    assert game.state is not None  # stored when the game started; moves need a started game
    return engine.from_dict(game.state)


def _store_state(game: Game, state: engine.State, seats: Iterable[Seat], now: datetime) -> None:
    game.state = engine.to_dict(state)
    game.to_move = engine.to_move(state)
    _start_turn_clock(game, seats, now)


def _scores(state: engine.State, players: int) -> list[int]:
    return [engine.score(state, seat) for seat in range(players)]


def _finish(writes: _Writes, *, result: GameResult, now: datetime) -> None:
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


def _record_move(
    writes: _Writes,
    *,
    before: engine.State,
    move: engine.Move,
    after: engine.State,
    played_by: PlayedBy,
    bot_reason: BotReason | None = None,
) -> tuple[Move, engine.MoveDetails]:
    """Append the move and its ``move_played`` event. A bot's move says why the
    bot played (``bot_reason``): the seat's deadline passed, or a moderator handed
    the seat to the bot."""
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


def _autoplay(
    writes: _Writes, state: engine.State, resigned: Collection[int], bots: Collection[int] = ()
) -> engine.State:
    """Play the server's moves until a player has a choice: a quiet move for each
    seat that left, the greedy bot's for a seat a moderator gave to the bot
    (``bots``), and ``pass`` for a seat that can do nothing else."""
    while not engine.is_over(state):
        seat = engine.to_move(state)
        played_by = PlayedBy.SERVICE
        if seat in resigned:
            move: engine.Move | None = _quiet_move(state)
        elif seat in bots:
            move, played_by = _bot_move(state, seat), PlayedBy.BOT
        else:
            move = _forced_pass(state)
        if move is None:
            break
        after = engine.apply(state, move)
        # The seats in ``bots`` are the bot's because a moderator handed them over.
        reason: BotReason | None = "moderator" if played_by == PlayedBy.BOT else None
        _record_move(writes, before=state, move=move, after=after, played_by=played_by, bot_reason=reason)
        state = after
    return state


def _bot_seats(seats: Iterable[Seat]) -> set[int]:
    """The indexes of the seats the bot plays (Seat.bot), of those still in the game."""
    return {s.index for s in seats if s.bot and not s.resigned and s.index is not None}


def _settle(
    writes: _Writes,
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
        _finish(writes, result=result_from_outcome(outcome, resigned=resigned, timed_out=timed_out), now=now)


def _seats_left(game: Game) -> tuple[set[int], set[int]]:
    """The indexes of the seats that left the game, and of those that left on time
    (from the seats loaded with the game)."""
    resigned = {s.index for s in game.seats.all() if s.resigned and s.index is not None}
    timed_out = {s.index for s in game.seats.all() if s.timed_out and s.index is not None}
    return resigned, timed_out


def _start(writes: _Writes, now: datetime) -> None:
    game = writes.game
    joined = list(game.seats.filter(joined_at__isnull=False).order_by("join_position"))
    seed = secrets.randbits(256)
    order = engine.seat_permutation(seed, len(joined))
    for seat_index, join_position in enumerate(order):
        joined[join_position].index = seat_index
    for seat in joined:
        seat.bank_seconds = game.bank_start_seconds
    seated = [joined[join_position] for join_position in order]  # by seat index
    Seat.objects.bulk_update(joined, ["index", "bank_seconds"])
    state = engine.new_game(variant=game.variant, players=len(joined), seed=seed)
    game.seed = str(seed)
    game.seed_commitment = seed_commitment_for(seed)
    game.status = Game.Status.ACTIVE
    game.started_at = now
    game.state = engine.to_dict(state)
    writes.change(
        GameEvent.Kind.GAME_STARTED,
        {
            "seed_commitment": game.seed_commitment,
            "seats": [{"seat": s.index, "user_id": s.user_id} for s in seated],
        },
    )
    state = _autoplay(writes, state, resigned=())
    _settle(writes, state, now, seats=seated, resigned=(), timed_out=())


def _duration(seconds: int) -> str:
    if seconds % 3600 == 0:
        return counted(seconds // 3600, "hour")
    return counted(seconds, "second")


def _check_time_control(move_seconds: int, bank_seconds: int, bank_cap_seconds: int, forfeit_after: int) -> None:
    if not 1 <= move_seconds <= MAX_MOVE_TIMEOUT_HOURS * 3600:
        raise errors.InvalidGameSetup(
            f"The time per move must be between 1 second and {MAX_MOVE_TIMEOUT_HOURS} hours; "
            f"you asked for {_duration(move_seconds)}."
        )
    if not 0 <= bank_seconds <= MAX_BANK_HOURS * 3600:
        raise errors.InvalidGameSetup(
            f"The time bank at the start must be between 0 and {MAX_BANK_HOURS} hours; "
            f"you asked for {_duration(bank_seconds)}."
        )
    if not bank_seconds <= bank_cap_seconds <= MAX_BANK_HOURS * 3600:
        raise errors.InvalidGameSetup(
            f"The time bank's cap must be at least the bank at the start ({_duration(bank_seconds)}) and at most "
            f"{MAX_BANK_HOURS} hours; you asked for {_duration(bank_cap_seconds)}."
        )
    if not 1 <= forfeit_after <= MAX_FORFEIT_AFTER:
        raise errors.InvalidGameSetup(
            f"forfeit_after is the timeout in a row that forfeits a seat: from 1 (the first) to "
            f"{MAX_FORFEIT_AFTER}; you asked for {forfeit_after}."
        )


def _check_invitations_per_day(creator: User, inviting: int, now: datetime) -> None:
    """At most INVITATIONS_PER_DAY invited seats in the games ``creator`` made in
    the last 24 hours, these included; beyond it, say when the next one is possible."""
    limit: int = settings.INVITATIONS_PER_DAY
    since = now - timedelta(days=1)
    sent = selectors.invitations_sent_since(user_id=creator.pk, since=since)  # oldest first
    over = len(sent) + inviting - limit
    if over <= 0:
        return
    if inviting > limit:
        raise errors.TooManyInvitations(
            f"You can invite at most {counted(limit, 'player')} a day; this game invites {inviting}."
        )
    free_at = sent[over - 1] + timedelta(days=1)
    wait = max(1, math.ceil((free_at - now).total_seconds()))
    raise errors.TooManyInvitations(
        f"You can invite at most {counted(limit, 'player')} a day and have invited {len(sent)} in the last "
        f"24 hours; you can invite {counted(inviting, 'more player')} from {free_at.isoformat(timespec='seconds')}.",
        retry_after=wait,
        next_invitation_at=free_at.isoformat(timespec="seconds"),
    )


# --- services ------------------------------------------------------------------


@retry_when_database_locked
def game_create(
    *,
    creator: User,
    variant: str = "base",
    seats: int = 2,
    invited: Sequence[User] = (),
    open_seats: int | None = None,
    move_timeout_hours: int = 72,
    move_seconds: int | None = None,
    bank_seconds: int = 0,
    bank_cap_seconds: int | None = None,
    forfeit_after: int = DEFAULT_FORFEIT_AFTER,
    public: bool = False,
    rated: bool = False,
    vacation_allowed: bool = True,
    pauses_allowed: bool = True,
) -> Game:
    """Create a game with the creator in the first seat.

    Invited users get a reserved seat that they take with ``seat_join``; the
    remaining seats are open to anyone. The game starts when every seat is taken.
    The time control: ``move_seconds`` per move (by default
    ``move_timeout_hours``), each seat's bank at the start (``bank_seconds``) and
    the most it can hold (``bank_cap_seconds``, by default the start), and the
    timeout in a row that forfeits a seat (``forfeit_after``). The rules a
    league sets: ``vacation_allowed`` (False: a vacation never pauses the game)
    and ``pauses_allowed`` (False: no moderator's pause). Invitations count
    against INVITATIONS_PER_DAY (TooManyInvitations).
    """
    if variant not in engine.VARIANTS:
        raise errors.InvalidGameSetup(f"Unknown variant {variant!r}; choose one of: {', '.join(engine.VARIANTS)}.")
    if not MIN_SEATS <= seats <= MAX_SEATS:
        raise errors.InvalidGameSetup(f"A game has {MIN_SEATS} to {MAX_SEATS} seats; you asked for {seats}.")
    if move_seconds is None:
        if not 1 <= move_timeout_hours <= MAX_MOVE_TIMEOUT_HOURS:
            raise errors.InvalidGameSetup(
                f"The time per move must be between 1 and {MAX_MOVE_TIMEOUT_HOURS} hours; "
                f"you asked for {move_timeout_hours}."
            )
        move_seconds = move_timeout_hours * 3600
    if bank_cap_seconds is None:
        bank_cap_seconds = bank_seconds
    _check_time_control(move_seconds, bank_seconds, bank_cap_seconds, forfeit_after)
    invited = list(invited)
    if len({user.pk for user in invited}) != len(invited):
        names = [user.get_username() for user in invited]
        twice = sorted({name for name in names if names.count(name) > 1})
        raise errors.InvalidGameSetup(f"You invited {listed(twice)} more than once; invite each player once.")
    if any(user.pk == creator.pk for user in invited):
        raise errors.InvalidGameSetup("You take a seat in the games you create; do not invite yourself.")
    computed_open = seats - 1 - len(invited)
    if computed_open < 0:
        raise errors.InvalidGameSetup(
            f"You invited {counted(len(invited), 'player')} but there "
            f"{'is' if seats == 2 else 'are'} only {counted(seats - 1, 'seat')} besides yours."
        )
    if open_seats is not None and open_seats != computed_open:
        raise errors.InvalidGameSetup(
            f"{counted(seats, 'seat')} with {counted(len(invited), 'invited player')} "
            f"{'leaves' if computed_open == 1 else 'leave'} {counted(computed_open, 'open seat')}, not {open_seats}."
        )
    now = timezone.now()
    with transaction.atomic():
        if invited:
            _check_invitations_per_day(creator, len(invited), now)
        game = Game.objects.create(
            variant=variant,
            seat_count=seats,
            created_by=creator,
            move_timeout_hours=move_seconds // 3600,
            move_seconds=move_seconds,
            bank_start_seconds=bank_seconds,
            bank_cap_seconds=bank_cap_seconds,
            forfeit_after=forfeit_after,
            invite_only=bool(invited) and computed_open == 0,
            public=public,
            rated=rated,
            vacation_allowed=vacation_allowed,
            pauses_allowed=pauses_allowed,
        )
        Seat.objects.bulk_create(
            [
                Seat(game=game, user=creator, joined_at=now, join_position=0),
                *(Seat(game=game, user=user, invited=True) for user in invited),
            ]
        )
        writes = _Writes(game)
        writes.change(
            GameEvent.Kind.GAME_CREATED,
            {
                "variant": variant,
                "seats": seats,
                "public": public,
                "rated": rated,
                "creator_id": creator.pk,
                "invited_ids": [user.pk for user in invited],
            },
        )
        writes.flush()
        game.save()
    return game


def _check_expected_version(game: Game, expected_version: int | None) -> None:
    """StaleVersion unless the caller named no version or the game's own. Should
    be called while holding the game's row lock (``_lock_game``), before any write."""
    if expected_version is not None and expected_version != game.version:
        raise errors.StaleVersion(
            f"You expected version {expected_version} but the game is at version {game.version}; "
            "read it again and retry.",
            current_version=game.version,
        )


@retry_when_database_locked
def seat_join(*, game: Game, user: User, expected_version: int | None = None) -> Seat:
    """Take an invited or open seat. The join that fills the last seat starts the game."""
    now = timezone.now()
    with transaction.atomic():
        locked = _lock_game(game.pk)
        if locked.status != Game.Status.OPEN:
            raise errors.SeatUnavailable("This game has already started or ended, so there is no seat left to take.")
        _check_expected_version(locked, expected_version)
        seat = locked.seats.filter(user=user).first()
        if seat is not None and seat.has_joined:
            raise errors.SeatUnavailable("You already have a seat in this game.")
        joined_count = locked.seats.filter(joined_at__isnull=False).count()
        if seat is None:
            if locked.seats.count() >= locked.seat_count:
                raise errors.SeatUnavailable("Every seat in this game is taken or reserved for an invited player.")
            seat = Seat(game=locked, user=user)
        seat.joined_at = now
        seat.join_position = joined_count
        seat.save()
        writes = _Writes(locked)
        writes.change(GameEvent.Kind.SEAT_JOINED, {"user_id": user.pk, "invited": seat.invited})
        if joined_count + 1 == locked.seat_count:
            _start(writes, now)
        writes.flush()
        locked.save()
    _refresh(game, locked)
    return seat


@retry_when_database_locked
def game_start(*, game: Game) -> Game:
    """Start a game whose seats are all taken (``seat_join`` does this by itself)."""
    now = timezone.now()
    with transaction.atomic():
        locked = _lock_game(game.pk)
        if locked.status != Game.Status.OPEN:
            raise errors.GameNotActive("This game has already started or ended.")
        joined = locked.seats.filter(joined_at__isnull=False).count()
        if joined != locked.seat_count:
            raise errors.SeatUnavailable(
                f"The game starts when all {locked.seat_count} seats are taken; "
                f"{joined} {'is' if joined == 1 else 'are'} so far."
            )
        writes = _Writes(locked)
        _start(writes, now)
        writes.flush()
        locked.save()
    _refresh(game, locked)
    return game


def _sentence(message: str) -> str:
    """The engine's words as a sentence for a person: capital first, full stop last."""
    message = message.strip()
    if not message:
        return message
    message = message[0].upper() + message[1:]
    return message if message[-1] in ".!?" else message + "."


def _parse(state: engine.State, text: str) -> engine.Move:
    """The engine's reading of ``text``, its refusals as domain errors naming the rule."""
    try:
        return engine.parse_move(state, text)
    except engine.AmbiguousMove as exc:
        raise errors.AmbiguousMove(_sentence(exc.message), rule=exc.rule, choices=list(exc.choices)) from None
    except engine.IllegalMove as exc:
        raise errors.IllegalMove(_sentence(exc.message), rule=exc.rule) from None
    except engine.InvalidNotation as exc:
        raise errors.InvalidNotation(
            f"Could not read the move ({exc}). Moves look like \"take WUG\", \"take RR\", "
            "\"reserve 2-13\", \"reserve deck3\", \"buy 1-07\" or \"pass\"; GET legal-moves lists yours."
        ) from None


def _check_not_suspended(seat: Seat) -> None:
    """A suspended player cannot move, by any channel (their turns time out as usual)."""
    player = getattr(seat.user, "player", None)
    if player is not None and player.suspended_at is not None:
        raise errors.AccountSuspended(
            "A moderator suspended your account; you cannot move while it is suspended. "
            "Your turns time out as usual."
        )


def _check_can_move(game: Game, seat: Seat, *, expected_version: int) -> engine.State:
    """The state to play on, once the game, the version and the turn allow a move."""
    if game.status != Game.Status.ACTIVE:
        raise errors.GameNotActive.for_move(game.status)
    if expected_version != game.version:
        if expected_version > game.version:
            where = f"the game is only at version {game.version}"
        else:
            where = f"the game is at version {game.version}"
        raise errors.StaleVersion(
            f"You played on version {expected_version} but {where}; read the game again and retry.",
            current_version=game.version,
        )
    state = _state(game)
    if engine.to_move(state) != seat.index:
        raise errors.NotYourTurn(
            f"It is seat {engine.to_move(state)}'s turn, not yours (you are seat {seat.index}).",
            to_move=engine.to_move(state),
            your_seat=seat.index,
        )
    return state


@retry_when_database_locked
def move_submit(*, game_id: str, user: User, text: str, expected_version: int) -> MovePlayed:
    """Play one turn for ``user``'s seat in the game, on the version they chose it on.

    ``text`` is read by the engine's lenient parser. Refusals: GameNotFound,
    NotAPlayer, GameNotActive, StaleVersion (with ``current_version``),
    NotYourTurn, InvalidNotation, IllegalMove and AmbiguousMove (with the rule
    id). The mover's bank is settled and its timeouts in a row reset; then the
    server plays the turns of resigned seats and forced passes, the next seat's
    clock starts, and the game finishes when the engine says it is over.
    Nothing is written unless everything is.
    """
    now = timezone.now()
    with transaction.atomic():
        # The seats come with the lock: the caller's seat, the resigned seats and
        # the caller's answer are all read from this one list.
        game = _lock_game(game_id, with_seats=True)
        seat = _joined_seat(game, user)
        _check_not_suspended(seat)
        state = _check_can_move(game, seat, expected_version=expected_version)
        move = _parse(state, text)
        writes = _Writes(game)
        after = engine.apply(state, move)
        row, details = _record_move(writes, before=state, move=move, after=after, played_by=PlayedBy.PLAYER)
        if _charge_clock(game, seat, now):
            seat.save(update_fields=["bank_seconds", "consecutive_timeouts"])
        resigned, timed_out = _seats_left(game)
        after = _autoplay(writes, after, resigned, _bot_seats(game.seats.all()))
        automatic = writes.moves[1:]
        _settle(writes, after, now, seats=game.seats.all(), resigned=resigned, timed_out=timed_out)
        writes.flush()
        game.save(update_fields=PLAY_FIELDS)
    return MovePlayed(game=game, move=row, details=details, automatic=automatic)


def _resign_locked(writes: _Writes, seat: Seat, *, reason: ResultReason, now: datetime) -> None:
    game = writes.game
    seat.resigned = True
    seat.resigned_at = now
    seat.timed_out = reason in (ResultReason.TIMEOUT, ResultReason.ACCOUNT_DISABLED)
    seat.save(update_fields=["resigned", "resigned_at", "timed_out"])
    writes.change(
        GameEvent.Kind.SEAT_RESIGNED, {"seat": seat.index, "user_id": seat.user_id, "reason": reason.value}
    )
    state = _state(game)
    seats = list(game.seats.all().order_by("index"))
    remaining = [s for s in seats if not s.resigned]
    timed_out = {s.index for s in seats if s.timed_out and s.index is not None}
    if len(remaining) == 1 and remaining[0].index is not None:
        # The last to leave outlasted the others, so ranks above them.
        left = sorted(
            (s for s in seats if s.resigned and s.index is not None),
            key=lambda s: (s.resigned_at or now, s.index or 0),
            reverse=True,
        )
        result = result_last_standing(
            winner=remaining[0].index,
            left_in_order=[s.index for s in left if s.index is not None],
            scores=_scores(state, game.seat_count),
            timed_out=timed_out,
            reason=reason,
        )
        _finish(writes, result=result, now=now)
        return
    resigned = {s.index for s in seats if s.resigned and s.index is not None}
    state = _autoplay(writes, state, resigned, _bot_seats(seats))
    # A seat that left on its own turn is played past and the next clock starts;
    # one that left on another's turn leaves that turn's clock as it was.
    if engine.to_move(state) != game.to_move or engine.is_over(state):
        _settle(writes, state, now, seats=seats, resigned=resigned, timed_out=timed_out)


@retry_when_database_locked
def game_resign(*, game: Game, user: User, expected_version: int | None = None) -> Game:
    """Resign the caller's seat; with ``expected_version``, only while the game
    is at that version (StaleVersion otherwise, and nothing changes).

    With two seats the other player wins at once. With more, the game goes on:
    the server plays the resigned seat's turns with a quiet move, the seat ranks
    last, and when one player is left standing that player wins.
    """
    now = timezone.now()
    with transaction.atomic():
        locked = _lock_game(game.pk)
        seat = _joined_seat(locked, user)
        # Before the status: a resignation that ended the game is still yours.
        if seat.resigned:
            raise errors.AlreadyResigned(
                "You have already resigned from this game"
                + ("; the others play on without you." if locked.status == Game.Status.ACTIVE else ".")
            )
        if locked.status != Game.Status.ACTIVE:
            raise errors.GameNotActive(
                f"This game is {locked.status}; you can resign only while it is active.",
                game_status=locked.status,
            )
        _check_expected_version(locked, expected_version)
        writes = _Writes(locked)
        _resign_locked(writes, seat, reason=ResultReason.RESIGNATION, now=now)
        writes.flush()
        locked.save()
    _refresh(game, locked)
    return game


def _abort(writes: _Writes, *, reason: str, now: datetime, by_user_id: int | None = None) -> None:
    game = writes.game
    game.status = Game.Status.ABORTED
    game.finished_at = now
    game.to_move = None
    game.deadline_at = None
    writes.change(GameEvent.Kind.GAME_ABORTED, {"reason": reason, "by_user_id": by_user_id})


@retry_when_database_locked
def game_cancel(*, game_id: str, user: User, expected_version: int | None = None) -> Game:
    """The creator calls off a game that has not started: it becomes aborted and
    everyone invited is told (a ``game_aborted`` event, reason ``cancelled``).
    With ``expected_version``, only while the game is at that version."""
    now = timezone.now()
    with transaction.atomic():
        game = _lock_game(game_id)
        if game.created_by_id != user.pk:
            raise errors.NotTheCreator("Only the player who created this game can cancel it.")
        if game.status != Game.Status.OPEN:
            raise errors.GameNotOpen(
                f"This game is {game.status}; only a game that has not started can be cancelled "
                "(an active game can be resigned).",
                game_status=game.status,
            )
        _check_expected_version(game, expected_version)
        writes = _Writes(game)
        _abort(writes, reason="cancelled", now=now, by_user_id=user.pk)
        writes.flush()
        game.save()
    return game


@retry_when_database_locked
def seat_decline(*, game_id: str, user: User, expected_version: int | None = None) -> Game:
    """An invitee turns the invitation down. Their reserved seat becomes open to
    anyone, unless the creator reserved every other seat for invitees
    (``invite_only``): then the game is aborted (reason ``declined``). With
    ``expected_version``, only while the game is at that version."""
    now = timezone.now()
    with transaction.atomic():
        game = _lock_game(game_id)
        if game.status != Game.Status.OPEN:
            raise errors.GameNotOpen(
                f"This game is {game.status}; an invitation can be declined only before the game starts.",
                game_status=game.status,
            )
        seat = game.seats.filter(user=user, invited=True, joined_at__isnull=True).first()
        if seat is None:
            raise errors.NotInvited("You have no open invitation to this game, so there is nothing to decline.")
        _check_expected_version(game, expected_version)
        seat.delete()
        writes = _Writes(game)
        writes.change(GameEvent.Kind.SEAT_DECLINED, {"user_id": user.pk})
        if game.invite_only:
            _abort(writes, reason="declined", now=now, by_user_id=user.pk)
        writes.flush()
        game.save()
    return game


def game_expire_open(*, now: datetime | None = None) -> int:
    """Abort open games nobody has joined for OPEN_GAME_EXPIRY_DAYS (reason
    ``expired``). Each game has its own transaction; returns how many."""
    now = now or timezone.now()
    cutoff = now - timedelta(days=settings.OPEN_GAME_EXPIRY_DAYS)
    expired = 0
    for game_id in selectors.game_open_ids(created_before=cutoff):
        expired += _expire_one(game_id=game_id, cutoff=cutoff, now=now)
    return expired


@retry_when_database_locked
def _expire_one(*, game_id: str, cutoff: datetime, now: datetime) -> bool:
    with transaction.atomic():
        game = _lock_game(game_id)
        if game.status != Game.Status.OPEN or game.created_at > cutoff:
            return False
        writes = _Writes(game)
        _abort(writes, reason="expired", now=now)
        writes.flush()
        game.save()
    return True


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
    with transaction.atomic():
        game = _lock_game(game_id)
        seat = game.seats.filter(user_id=user_id).first()
        if seat is None:
            return False
        writes = _Writes(game)
        if game.status == Game.Status.ACTIVE and seat.has_joined and not seat.resigned:
            _resign_locked(writes, seat, reason=ResultReason.ACCOUNT_DISABLED, now=now)
        elif game.status == Game.Status.OPEN and seat.invited and not seat.has_joined:
            seat.delete()
            writes.change(GameEvent.Kind.SEAT_DECLINED, {"user_id": user_id})
            if game.invite_only:
                _abort(writes, reason="declined", now=now, by_user_id=user_id)
        elif game.status == Game.Status.OPEN and game.created_by_id == user_id:
            _abort(writes, reason="cancelled", now=now, by_user_id=user_id)
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
        writes.flush()
        game.save()
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


# --- clocks: timeouts, the bot, vacation, pauses ------------------------------------

SWEEP_BATCH = 100


def game_time_out_overdue(*, now: datetime | None = None) -> int:
    """Act on every active game whose deadline has passed (``game_time_out``), in
    batches of SWEEP_BATCH, each game in its own transaction under its row lock.
    Sweeps running at once share the work: a game another sweep holds is skipped
    (``skip_locked`` on PostgreSQL) and each deadline is re-checked under the
    lock, so each game is acted on once. Returns how many games were acted on."""
    now = now or timezone.now()
    acted = 0
    seen: set[str] = set()
    while True:
        batch = selectors.game_overdue_ids(now=now, limit=SWEEP_BATCH, exclude=seen)
        if not batch:
            return acted
        seen.update(batch)
        for game_id in batch:
            acted += _time_out(game_id=game_id, now=now, skip_locked=True)


def game_time_out(*, game_id: str, now: datetime | None = None) -> bool:
    """The deadline of the seat to move has passed: a vacation day if the player
    has one left, else a timeout (the bot plays the turn, or the seat is forfeited
    on its ``forfeit_after``-th timeout in a row). Safe to run twice: returns
    False and changes nothing when the deadline has not passed."""
    return _time_out(game_id=game_id, now=now or timezone.now(), skip_locked=False)


@retry_when_database_locked
def _time_out(*, game_id: str, now: datetime, skip_locked: bool) -> bool:
    if not is_public_id(game_id):
        raise errors.GameNotFound.for_id(game_id)
    with transaction.atomic():
        game = (
            Game.objects.select_for_update(of=("self",), skip_locked=skip_locked)
            .prefetch_related(Prefetch("seats", queryset=Seat.objects.order_by("index")))
            .filter(pk=game_id)
            .first()
        )
        # Gone, held by another sweep, or no longer due: the deadline is re-checked under the lock.
        if game is None or game.status != Game.Status.ACTIVE or game.deadline_at is None or game.deadline_at > now:
            return False
        seat = _seat_at(game.seats.all(), game.to_move)
        assert seat is not None  # an active game's seat to move is seated
        writes = _Writes(game)
        vacation_until = _vacation_day_locked(writes, seat, now)
        if vacation_until is None:
            _time_out_locked(writes, seat, now)
        writes.flush()
        game.save()
    if vacation_until is not None:
        # The player's other games, each under its own lock after this one's is
        # released (locking them here could deadlock with another sweep).
        _vacation_pause_games(
            user_id=seat.user_id, until=vacation_until, notice_game_id=None, skip=game.pk, now=now
        )
    return True


def _time_out_locked(writes: _Writes, seat: Seat, now: datetime) -> None:
    """One more timeout in a row for ``seat``: the ``forfeit_after``-th forfeits it
    (as a resignation, reason timeout); before that the bot plays the turn and the
    player stays in the game. The seat used all its time, so its bank is empty."""
    game = writes.game
    seat.consecutive_timeouts += 1
    seat.bank_seconds = 0
    seat.save(update_fields=["consecutive_timeouts", "bank_seconds"])
    writes.change(
        GameEvent.Kind.TURN_TIMED_OUT,
        {
            "seat": seat.index,
            "user_id": seat.user_id,
            "consecutive": seat.consecutive_timeouts,
            "forfeit_after": game.forfeit_after,
        },
    )
    if seat.consecutive_timeouts >= game.forfeit_after:
        _resign_locked(writes, seat, reason=ResultReason.TIMEOUT, now=now)
        return
    state = _state(game)
    move = _bot_move(state, seat.index)
    after = engine.apply(state, move)
    _record_move(writes, before=state, move=move, after=after, played_by=PlayedBy.BOT, bot_reason="timeout")
    resigned, timed_out = _seats_left(game)
    after = _autoplay(writes, after, resigned, _bot_seats(game.seats.all()))
    _settle(writes, after, now, seats=game.seats.all(), resigned=resigned, timed_out=timed_out)


def _bot_move(state: engine.State, seat: int | None) -> engine.Move:
    """The built-in greedy bot's choice for ``seat``, made as a player's would be:
    from the seat's own view and the legal move texts, never the full state."""
    legal = [engine.format_move(move) for move in engine.legal_moves(state)]
    # Seeded by the ply, so that a replayed timeout chooses the same (the seed only breaks ties).
    text = GreedyBot(seed=state.ply).choose(engine.observe(state, seat), legal)
    return engine.parse_move(state, text)


def _pause_locked(
    writes: _Writes,
    *,
    reason: str,
    user_id: int | None,
    until: datetime | None,
    now: datetime,
    note: str = "",
    automatic: bool = False,
    notice: bool = True,
) -> GamePause:
    """Add a reason for the locked game's clock to stop (or extend the same
    reason's pause for the same person). The first pause keeps the time left on
    the clock and clears the deadline."""
    game = writes.game
    same = Q(user_id=user_id) if user_id is not None else Q(user__isnull=True)
    pause = GamePause.objects.filter(same, game=game, reason=reason, ended_at__isnull=True).first()
    if pause is None:
        pause = GamePause.objects.create(
            game=game, reason=reason, user_id=user_id, started_at=now, ends_at=until, note=note
        )
    else:
        pause.ends_at = None if until is None or pause.ends_at is None else max(pause.ends_at, until)
        if note:
            pause.note = note
        pause.save(update_fields=["ends_at", "note"])
    if not _is_paused(game):
        left = game.deadline_at - now if game.deadline_at is not None else timedelta(0)
        game.clock_remaining = max(left, timedelta(0))
        game.deadline_at = game.turn_started_at = None
    writes.change(
        GameEvent.Kind.CLOCK_PAUSED,
        {
            "reason": reason,
            "user_id": user_id,
            "until": pause.ends_at.isoformat() if pause.ends_at is not None else None,
            "automatic": automatic,
            "notice": notice,
        },
    )
    return pause


def _resume_locked(writes: _Writes, pauses: Sequence[GamePause], now: datetime) -> None:
    """End these pauses of the locked game; when none is left the clock runs
    again with the time it had left."""
    game = writes.game
    if not pauses:
        return
    GamePause.objects.filter(pk__in=[pause.pk for pause in pauses]).update(ended_at=now)
    still_paused = GamePause.objects.filter(game=game, ended_at__isnull=True).exists()
    if not still_paused and game.clock_remaining is not None:
        game.deadline_at = now + game.clock_remaining
        seat = _seat_at(game.seats.all(), game.to_move)
        game.turn_started_at = game.deadline_at - _allowed(game, seat)
        game.clock_remaining = None
    for reason in sorted({pause.reason for pause in pauses}):
        writes.change(GameEvent.Kind.CLOCK_RESUMED, {"reason": reason, "clock_running": not still_paused})


PAUSE_REASONS: list[str] = list(GamePause.Reason.values)


def _check_pause_reason(reason: str) -> None:
    if reason not in GamePause.Reason.values:
        raise InvalidInput(
            {"reason": [f"{reason!r} is not a reason to pause a game; the reasons are {listed(PAUSE_REASONS)}."]}
        )


def _check_pause_allowed(game: Game, reason: str) -> None:
    if reason == GamePause.Reason.MODERATOR and not game.pauses_allowed:
        raise errors.PauseNotAllowed("This game's rules allow no pauses, so a moderator cannot pause its clock.")
    if reason == GamePause.Reason.VACATION and not game.vacation_allowed:
        raise errors.PauseNotAllowed("This game's rules allow no vacation, so its clock runs during a vacation.")


@retry_when_database_locked
def game_pause(
    *,
    game_id: str,
    reason: str,
    by_user_id: int | None = None,
    until: datetime | None = None,
    note: str = "",
    automatic: bool = False,
    notice: bool = True,
    now: datetime | None = None,
) -> GamePause:
    """Stop the game's clock for ``reason`` (vacation, moderator, server) until
    ``until`` (None: until ``game_resume``). Pauses for different reasons combine:
    the clock runs again only when the last one ends. Refusals: GameNotFound,
    GameNotActive, InvalidInput (a reason or an end that makes no sense),
    PauseNotAllowed (a moderator's pause in a game whose ``pauses_allowed`` is
    False, a vacation in one whose ``vacation_allowed`` is False; a pause for the
    server is always allowed)."""
    now = now or timezone.now()
    _check_pause_reason(reason)
    if until is not None and until <= now:
        raise InvalidInput({"until": [f"A pause must end in the future; {until.isoformat()} has passed."]})
    with transaction.atomic():
        game = _lock_game(game_id, with_seats=True)
        if game.status != Game.Status.ACTIVE:
            raise errors.GameNotActive(
                f"This game is {game.status}; only an active game's clock can be paused.", game_status=game.status
            )
        _check_pause_allowed(game, reason)
        writes = _Writes(game)
        pause = _pause_locked(
            writes,
            reason=reason,
            user_id=by_user_id,
            until=until,
            now=now,
            note=note,
            automatic=automatic,
            notice=notice,
        )
        writes.flush()
        game.save()
    return pause


@retry_when_database_locked
def game_resume(*, game_id: str, reason: str, user_id: int | None = None, now: datetime | None = None) -> bool:
    """End the game's pauses for ``reason`` (for vacation, only ``user_id``'s when
    given). False when there was none. The clock runs again, with the time it
    had left, once no other reason holds it."""
    now = now or timezone.now()
    _check_pause_reason(reason)
    with transaction.atomic():
        game = _lock_game(game_id, with_seats=True)
        pauses = GamePause.objects.filter(game=game, reason=reason, ended_at__isnull=True)
        if user_id is not None:
            pauses = pauses.filter(user_id=user_id)
        found = list(pauses)
        if not found:
            return False
        writes = _Writes(game)
        _resume_locked(writes, found, now)
        writes.flush()
        game.save()
    return True


def game_pauses_end_due(*, now: datetime | None = None) -> int:
    """End every pause whose ``ends_at`` has passed (the beat task
    ``games.tasks.end_pauses``). Returns how many games had pauses ended."""
    now = now or timezone.now()
    return sum(_end_due_pauses(game_id=game_id, now=now) for game_id in selectors.game_ids_with_due_pauses(now=now))


@retry_when_database_locked
def _end_due_pauses(*, game_id: str, now: datetime) -> bool:
    with transaction.atomic():
        game = _lock_game(game_id, with_seats=True)
        due = list(GamePause.objects.filter(game=game, ended_at__isnull=True, ends_at__lte=now))
        if not due:
            return False
        writes = _Writes(game)
        _resume_locked(writes, due, now)
        writes.flush()
        game.save()
    return True


def games_pause_all(
    *, reason: str, by_user_id: int | None = None, note: str = "", until: datetime | None = None
) -> int:
    """Pause every active game for ``reason`` (operators, after an outage). Each
    game in its own transaction; returns how many."""
    _check_pause_reason(reason)
    paused = 0
    for game_id in selectors.game_active_ids():
        try:
            game_pause(game_id=game_id, reason=reason, by_user_id=by_user_id, until=until, note=note)
        except errors.GameNotActive:
            continue  # it ended since the list was read
        except errors.PauseNotAllowed:
            continue  # its rules allow no such pause
        paused += 1
    return paused


def games_resume_all(*, reason: str) -> int:
    """End every game's pauses for ``reason``; returns how many games."""
    _check_pause_reason(reason)
    return sum(game_resume(game_id=game_id, reason=reason) for game_id in selectors.game_ids_paused_for(reason=reason))


# Vacation


def _vacation_days_left(user_id: int, year: int) -> int:
    return max(0, settings.VACATION_DAYS_PER_YEAR - selectors.vacation_days_used(user_id=user_id, year=year))


def _lock_user(user_id: int) -> None:
    # One player's vacation days are counted and taken one call at a time.
    get_user_model().objects.select_for_update().filter(pk=user_id).first()


def _vacation_day_locked(writes: _Writes, seat: Seat, now: datetime) -> datetime | None:
    """A deadline of ``seat`` passed: if its player is on vacation, or has a day
    left this year (one is taken now), the game pauses for them instead of a
    timeout. A game that allows no vacation (``vacation_allowed`` False) never
    pauses and takes no day: the timeout happens. Returns when the vacation
    ends, or None when there is none (or the game allows none)."""
    if not writes.game.vacation_allowed:
        return None
    _lock_user(seat.user_id)
    current = selectors.vacation_current(user_id=seat.user_id, now=now)
    if current is not None:
        until = current.ends_at
    elif _vacation_days_left(seat.user_id, now.year) >= 1:
        until = now + timedelta(days=1)
        Vacation.objects.create(user_id=seat.user_id, starts_at=now, ends_at=until, days=1, automatic=True)
    else:
        return None
    _pause_locked(
        writes, reason=GamePause.Reason.VACATION, user_id=seat.user_id, until=until, now=now, automatic=True
    )
    return until


def _vacation_pause_games(
    *, user_id: int, until: datetime, notice_game_id: str | None, skip: str | None, now: datetime
) -> int:
    """Pause the player's active games (where they still play) for their vacation
    until ``until``; each game in its own transaction. Games that allow no
    vacation are left running."""
    paused = 0
    for game_id in selectors.game_ids_playing(user_id=user_id):
        if game_id == skip:
            continue
        try:
            game_pause(
                game_id=game_id,
                reason=GamePause.Reason.VACATION,
                by_user_id=user_id,
                until=until,
                automatic=skip is not None,
                notice=game_id == notice_game_id,
                now=now,
            )
        except errors.GameNotActive:
            continue  # it ended since the list was read
        except errors.PauseNotAllowed:
            continue  # its rules allow no vacation: its clock runs
        paused += 1
    return paused


@retry_when_database_locked
def _vacation_record(*, user_id: int, days: int, now: datetime) -> Vacation:
    with transaction.atomic():
        _lock_user(user_id)
        left = _vacation_days_left(user_id, now.year)
        if days > left:
            raise errors.NotEnoughVacation(
                f"You asked for {counted(days, 'day')} of vacation but have {counted(left, 'day')} left "
                f"this year (of {settings.VACATION_DAYS_PER_YEAR}).",
                days_left=left,
            )
        current = selectors.vacation_current(user_id=user_id, now=now)
        # Days taken during a vacation follow on from it.
        starts_at = current.ends_at if current is not None else now
        return Vacation.objects.create(
            user_id=user_id, starts_at=starts_at, ends_at=starts_at + timedelta(days=days), days=days
        )


def vacation_take(*, user: User, days: int, now: datetime | None = None) -> Vacation:
    """Take ``days`` of vacation from now (after the current vacation, if on one):
    the player's clocks stop in all their active games until it ends. Refusals:
    InvalidVacation (fewer than one day), NotEnoughVacation (with ``days_left``)."""
    now = now or timezone.now()
    if days < 1:
        raise errors.InvalidVacation(f"Take at least one day of vacation; you asked for {days}.")
    vacation = _vacation_record(user_id=user.pk, days=days, now=now)
    games = selectors.game_ids_playing(user_id=user.pk)
    _vacation_pause_games(
        user_id=user.pk, until=vacation.ends_at, notice_game_id=games[0] if games else None, skip=None, now=now
    )
    return vacation


def _refresh(target: Game, source: Game) -> None:
    """Copy the locked, saved row's fields onto the caller's instance."""
    for field in Game._meta.concrete_fields:
        setattr(target, field.attname, getattr(source, field.attname))
    # Seats prefetched before the change are stale now.
    getattr(target, "_prefetched_objects_cache", {}).clear()


# --- the outbox's consumers ------------------------------------------------------


# After a message the broker did not take, this process queues nothing for so long:
# the broker is down or hung, and each try would cost a request up to
# BROKER_TIMEOUT_SECONDS. The outbox keeps the events; redelivery queues them.
PUBLISH_PAUSE_SECONDS = 5.0
_publish_failed_at: float | None = None


def game_events_dispatch(*, event_ids: Sequence[int]) -> None:
    """Queue each outbox consumer's task for these events, by task name.

    Runs after commit, in the request (or task) that made the change, so it
    costs that request one failed publish at most: each waits on the broker for
    BROKER_TIMEOUT_SECONDS at most (the Celery app's publishing connections), the
    first that fails ends the dispatch, and for PUBLISH_PAUSE_SECONDS after it this
    process does not try at all. A broker that cannot take the message loses
    nothing: the events stay unclaimed and ``game_events_redeliver`` queues them again.
    """
    global _publish_failed_at
    paused = _publish_failed_at is not None and time.monotonic() - _publish_failed_at < PUBLISH_PAUSE_SECONDS
    if paused and not current_app.conf.task_always_eager:  # eager tasks run here: no broker to spare
        logger.info("outbox events %s not queued (the broker failed just now); they will be redelivered", list(event_ids))
        return
    consumers: dict[str, str] = settings.GAME_EVENT_CONSUMERS
    for consumer, task_name in consumers.items():
        for event_id in event_ids:
            try:
                task_send(task_name, event_id)
            except Exception as exc:
                if not _broker_failed(exc):
                    logger.warning(
                        "could not queue outbox event %s for consumer %s; it will be redelivered",
                        event_id, consumer, exc_info=True,
                    )
                    continue
                _publish_failed_at = time.monotonic()
                logger.warning(
                    "could not queue outbox event %s for consumer %s (the broker did not take it); "
                    "it and the rest of %s will be redelivered",
                    event_id, consumer, list(event_ids), exc_info=True,
                )
                return
    _publish_failed_at = None


def _broker_failed(exc: Exception) -> bool:
    """Whether the broker did not take a message (down, hung, refusing), rather
    than a task run inline failing: with eager tasks there is no broker."""
    return not current_app.conf.task_always_eager and isinstance(exc, OperationalError | OSError)


def game_event_claim(*, event_id: int, consumer: str, now: datetime | None = None) -> bool:
    """Claim one outbox event for one consumer. True for exactly one caller while
    the claim holds, however many workers try at once: the claim is a row unique
    per (event, consumer). A claim not finished within OUTBOX_CLAIM_LEASE_SECONDS is taken
    to belong to a worker that died and can be claimed again."""
    now = now or timezone.now()
    try:
        with transaction.atomic():
            GameEventClaim.objects.create(event_id=event_id, consumer=consumer, claimed_at=now)
        return True
    except IntegrityError:
        pass
    retaken = GameEventClaim.objects.filter(
        event_id=event_id, consumer=consumer, done_at__isnull=True, claimed_at__lte=now - _event_claim_lease()
    ).update(claimed_at=now, attempts=F("attempts") + 1)
    return retaken == 1


def game_event_done(*, event_id: int, consumer: str) -> None:
    """Record that ``consumer`` has handled the event: it is never offered again."""
    GameEventClaim.objects.filter(event_id=event_id, consumer=consumer).update(done_at=timezone.now())


def game_event_consume(*, event_id: int, consumer: str, handle: Callable[[GameEvent], None]) -> bool:
    """Claim the event for ``consumer``, run ``handle`` on it and record it done.

    Returns False when another worker holds or has finished the claim. When
    ``handle`` raises, the claim is left to expire and the event is offered
    again: at-least-once delivery, so ``handle`` must tolerate a repeat.
    """
    if not game_event_claim(event_id=event_id, consumer=consumer):
        return False
    event = GameEvent.objects.select_related("game").get(pk=event_id)
    handle(event)
    game_event_done(event_id=event_id, consumer=consumer)
    return True


def game_events_redeliver(*, older_than: timedelta | None = None, limit: int = 500) -> int:
    """Queue again, for each consumer, the events it has not finished: never
    claimed (the broker or the worker was down when they were written) or
    claimed by a worker that died. Events older than OUTBOX_REDELIVER_MAX_HOURS
    are news no more and are left alone: a consumer added later is not sent the
    whole history. Returns how many were queued."""
    consumers: dict[str, str] = settings.GAME_EVENT_CONSUMERS
    queued = 0
    now = timezone.now()
    oldest = now - timedelta(hours=settings.OUTBOX_REDELIVER_MAX_HOURS)
    for consumer, task_name in consumers.items():
        event_ids = selectors.game_events_pending(
            consumer=consumer,
            created_before=now - (older_than or timedelta(seconds=settings.OUTBOX_REDELIVER_AFTER_SECONDS)),
            created_after=oldest,
            claimed_before=now - _event_claim_lease(),
            limit=limit,
        )
        for event_id in event_ids:
            try:
                task_send(task_name, event_id)
                queued += 1
            except Exception:
                logger.warning("could not queue outbox event %s for %s", event_id, consumer, exc_info=True)
    return queued
