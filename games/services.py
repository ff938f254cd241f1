"""Every change to a game goes through one of these functions.

Each one runs in a single transaction that locks the game row, changes it,
bumps ``Game.version``, writes one ``GameEvent`` per change (the outbox) and
queues after-commit work with ``transaction.on_commit``. Reads live in
``games.selectors``.
"""

from __future__ import annotations

import functools
import hashlib
import logging
import random
import secrets
import time
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, ParamSpec, TypeVar

import engine
from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, OperationalError, transaction
from django.db.models import F, Prefetch
from django.utils import timezone

from games import errors
from games.models import Game, GameEvent, IdempotencyRecord, Move, Seat, is_public_id
from games.selectors import game_overdue_ids
from games.signals import game_changed

logger = logging.getLogger(__name__)

P = ParamSpec("P")
R = TypeVar("R")

MIN_SEATS = 2
MAX_SEATS = 4
MAX_MOVE_TIMEOUT_HOURS = 24 * 30

# SQLite serialises writers; a writer that still finds the database locked after
# the connection's busy timeout is retried here so that no client ever sees it.
LOCK_RETRY_ATTEMPTS = 10
LOCK_RETRY_FIRST_DELAY = 0.05
LOCK_RETRY_MAX_DELAY = 1.0

Respond = Callable[[Game, Move], tuple[int, dict[str, Any]]]


def retry_when_database_locked(fn: Callable[P, R]) -> Callable[P, R]:
    """Run ``fn`` again, with jittered backoff, when SQLite reports a lock.

    Only the outermost transaction can be retried, so inside an atomic block the
    error is passed up unchanged.
    """

    @functools.wraps(fn)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        connection = transaction.get_connection()
        if connection.vendor != "sqlite" or connection.in_atomic_block:
            return fn(*args, **kwargs)
        delay = LOCK_RETRY_FIRST_DELAY
        for attempt in range(1, LOCK_RETRY_ATTEMPTS + 1):
            try:
                return fn(*args, **kwargs)
            except OperationalError as exc:
                if "locked" not in str(exc) or attempt == LOCK_RETRY_ATTEMPTS:
                    raise
                logger.info("database locked in %s, attempt %d; retrying", fn.__name__, attempt)
                time.sleep(delay * (1 + random.random()))
                delay = min(delay * 2, LOCK_RETRY_MAX_DELAY)
        raise AssertionError("unreachable")  # pragma: no cover

    return wrapper


def seed_commitment_for(seed: int | str) -> str:
    """SHA-256 hex of the seed's canonical text (its decimal digits)."""
    return hashlib.sha256(str(int(seed)).encode("ascii")).hexdigest()


def request_fingerprint(*, method: str, path: str, body: bytes) -> str:
    digest = hashlib.sha256()
    for part in (method.upper().encode("ascii"), path.encode("utf-8"), body):
        digest.update(len(part).to_bytes(8, "big"))
        digest.update(part)
    return digest.hexdigest()


def etag_for(version: int) -> str:
    return f'"{version}"'


def etag_matches(header: str, version: int) -> bool:
    """True when an If-Match / If-None-Match header names ``version`` (or is ``*``)."""
    for candidate in header.split(","):
        candidate = candidate.strip()
        if candidate == "*":
            return True
        if candidate.startswith("W/"):
            candidate = candidate[2:]
        if candidate.strip('"') == str(version):
            return True
    return False


@dataclass(frozen=True)
class MoveSubmission:
    game: Game
    move: Move | None
    status_code: int | None
    body: dict[str, Any] | None
    replayed: bool


# --- helpers (run inside the caller's transaction) ---------------------------


# What a move can change in the game row; a move saves only these.
PLAY_FIELDS = ("state", "to_move", "deadline_at", "version", "status", "result", "finished_at")


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


def _notify_on_commit(game: Game) -> None:
    game_id, version = game.pk, game.version
    transaction.on_commit(lambda: game_changed.send(sender=Game, game_id=game_id, version=version))


class _Writes:
    """The rows one service call adds beside the game row: moves and outbox events.

    They are gathered while the call works out what happened and inserted by
    ``flush``, one INSERT per table, before the game row is saved.
    """

    def __init__(self, game: Game) -> None:
        self.game = game
        self.moves: list[Move] = []
        self.events: list[GameEvent] = []

    def change(self, kind: str, payload: dict[str, Any]) -> None:
        """Record one state change: bump the version and queue its outbox event."""
        self.game.version += 1
        self.events.append(GameEvent(game=self.game, kind=kind, payload={**payload, "version": self.game.version}))

    def flush(self) -> None:
        # In order, so that event ids follow the versions (the outbox is read by id).
        if self.moves:
            Move.objects.bulk_create(self.moves)
        if self.events:
            GameEvent.objects.bulk_create(self.events)
        self.moves, self.events = [], []


def _joined_seat(game: Game, user: AbstractBaseUser) -> Seat:
    # Scans the seats (prefetched by _lock_game(with_seats=True), else one query).
    for seat in game.seats.all():
        if seat.user_id == user.pk and seat.has_joined:
            return seat
    raise errors.NotAPlayer("You do not have a seat in this game, so you cannot act in it.")


def _deadline(game: Game, now: datetime) -> datetime:
    return now + timedelta(hours=game.move_timeout_hours)


def _state(game: Game) -> Any:
    return engine.from_dict(game.state)


def _store_state(game: Game, state: Any, now: datetime) -> None:
    game.state = engine.to_dict(state)
    game.to_move = engine.to_move(state)
    game.deadline_at = _deadline(game, now) if game.to_move is not None else None


def _scores(state: Any, players: int) -> list[int]:
    return [engine.score(state, seat) for seat in range(players)]


def _result_with_resignations(outcome: dict[str, Any], resigned: Sequence[int]) -> dict[str, Any]:
    """Resigned seats never win and rank below everyone who played on."""
    if not resigned:
        return dict(outcome)
    ranking = [s for s in outcome["ranking"] if s not in resigned] + [s for s in outcome["ranking"] if s in resigned]
    winners = [s for s in outcome["winners"] if s not in resigned] or ranking[:1]
    return {**outcome, "winners": winners, "ranking": ranking, "resigned": sorted(resigned)}


def _finish(writes: _Writes, *, result: dict[str, Any], now: datetime) -> None:
    game = writes.game
    game.status = Game.Status.FINISHED
    game.result = result
    game.finished_at = now
    game.to_move = None
    game.deadline_at = None
    writes.change(GameEvent.Kind.GAME_FINISHED, {"result": result})


def _record_move(writes: _Writes, *, before: Any, move: Any, after: Any, automatic: bool) -> Move:
    details = engine.move_details(before, move, after)
    # The engine counts every move applied since the deal, as the move log does.
    ply = before.ply
    row = Move(
        game=writes.game,
        ply=ply,
        seat=details["seat"],
        text=details["move"],
        private_card=details.get("private_card") or "",
        automatic=automatic,
    )
    writes.moves.append(row)
    # The payload is public: it never names a blind-reserved card.
    writes.change(
        GameEvent.Kind.MOVE_PLAYED,
        {"ply": ply, "seat": details["seat"], "move": details["move"], "automatic": automatic},
    )
    return row


def _quiet_move(state: Any) -> Any:
    """The move the server plays for a resigned seat: the first legal token take,
    else the first legal move (legal moves come sorted by canonical text)."""
    legal = engine.legal_moves(state)
    for move in legal:
        if engine.format_move(move).startswith("take "):
            return move
    return legal[0]


def _play_resigned_seats(writes: _Writes, state: Any, resigned: Collection[int]) -> Any:
    while not engine.is_over(state) and engine.to_move(state) in resigned:
        move = _quiet_move(state)
        after = engine.apply(state, move)
        _record_move(writes, before=state, move=move, after=after, automatic=True)
        state = after
    return state


def _settle(writes: _Writes, state: Any, now: datetime, *, resigned: Collection[int]) -> None:
    """Store the state after a change and finish the game when it is over.
    ``resigned``: the seat indexes that have resigned."""
    _store_state(writes.game, state, now)
    if engine.is_over(state):
        outcome = engine.outcome(state)
        assert outcome is not None  # the engine scores every game that is over
        _finish(writes, result=_result_with_resignations(outcome, sorted(resigned)), now=now)


def _start(writes: _Writes, now: datetime) -> None:
    game = writes.game
    joined = list(game.seats.filter(joined_at__isnull=False).select_related("user").order_by("join_position"))
    seed = secrets.randbits(256)
    order = engine.seat_permutation(seed, len(joined))
    for seat_index, join_position in enumerate(order):
        joined[join_position].index = seat_index
    Seat.objects.bulk_update(joined, ["index"])
    state = engine.new_game(variant=game.variant, players=len(joined), seed=seed)
    game.seed = str(seed)
    game.seed_commitment = seed_commitment_for(seed)
    game.status = Game.Status.ACTIVE
    game.started_at = now
    _store_state(game, state, now)
    writes.change(
        GameEvent.Kind.GAME_STARTED,
        {
            "seed_commitment": game.seed_commitment,
            "seats": [
                {"seat": s.index, "username": s.user.get_username()} for s in sorted(joined, key=lambda s: s.index)
            ],
        },
    )


# --- services ------------------------------------------------------------------


@retry_when_database_locked
def game_create(
    *,
    creator: AbstractBaseUser,
    variant: str = "base",
    seats: int = 2,
    invited: Sequence[AbstractBaseUser] = (),
    open_seats: int | None = None,
    move_timeout_hours: int = 72,
) -> Game:
    """Create a game with the creator in the first seat.

    Invited users get a reserved seat that they take with ``seat_join``; the
    remaining seats are open to anyone. The game starts when every seat is taken.
    """
    if variant not in engine.VARIANTS:
        raise errors.InvalidGameSetup(f"Unknown variant {variant!r}; choose one of: {', '.join(engine.VARIANTS)}.")
    if not MIN_SEATS <= seats <= MAX_SEATS:
        raise errors.InvalidGameSetup(f"A game has {MIN_SEATS} to {MAX_SEATS} seats; you asked for {seats}.")
    if not 1 <= move_timeout_hours <= MAX_MOVE_TIMEOUT_HOURS:
        raise errors.InvalidGameSetup(
            f"The time per move must be between 1 and {MAX_MOVE_TIMEOUT_HOURS} hours; you asked for {move_timeout_hours}."
        )
    invited = list(dict.fromkeys(invited))
    if any(user.pk == creator.pk for user in invited):
        raise errors.InvalidGameSetup("You take a seat in the games you create; do not invite yourself.")
    computed_open = seats - 1 - len(invited)
    if computed_open < 0:
        raise errors.InvalidGameSetup(
            f"You invited {len(invited)} players but there are only {seats - 1} seats besides yours."
        )
    if open_seats is not None and open_seats != computed_open:
        raise errors.InvalidGameSetup(
            f"{seats} seats with {len(invited)} invited players leave {computed_open} open seats, not {open_seats}."
        )
    now = timezone.now()
    with transaction.atomic():
        game = Game.objects.create(
            variant=variant, seat_count=seats, created_by=creator, move_timeout_hours=move_timeout_hours
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
                "creator": creator.get_username(),
                "invited": [user.get_username() for user in invited],
            },
        )
        writes.flush()
        game.save()
        _notify_on_commit(game)
    return game


@retry_when_database_locked
def seat_join(*, game: Game, user: AbstractBaseUser, expected_version: int | None = None) -> Seat:
    """Take an invited or open seat. The join that fills the last seat starts the game."""
    now = timezone.now()
    with transaction.atomic():
        locked = _lock_game(game.pk)
        if locked.status != Game.Status.OPEN:
            raise errors.SeatUnavailable("This game has already started or ended, so there is no seat left to take.")
        if expected_version is not None and expected_version != locked.version:
            raise errors.StaleVersion(
                f"You expected version {expected_version} but the game is at version {locked.version}; "
                "read it again and retry.",
                current_version=locked.version,
            )
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
        writes.change(GameEvent.Kind.SEAT_JOINED, {"username": user.get_username(), "invited": seat.invited})
        if joined_count + 1 == locked.seat_count:
            _start(writes, now)
        writes.flush()
        locked.save()
        _notify_on_commit(locked)
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
                f"The game starts when all {locked.seat_count} seats are taken; {joined} are so far."
            )
        writes = _Writes(locked)
        _start(writes, now)
        writes.flush()
        locked.save()
        _notify_on_commit(locked)
    _refresh(game, locked)
    return game


def _sentence(message: str) -> str:
    """The engine's words as a sentence for a person: capital first, full stop last."""
    message = message.strip()
    if not message:
        return message
    message = message[0].upper() + message[1:]
    return message if message[-1] in ".!?" else message + "."


@retry_when_database_locked
def move_submit(
    *,
    game_id: str,
    user: AbstractBaseUser,
    text: str,
    expected_version: int | None = None,
    if_match: str | None = None,
    idempotency_key: str | None = None,
    fingerprint: str | None = None,
    respond: Respond | None = None,
) -> MoveSubmission:
    """Play one turn for the caller's seat.

    The caller must say which version it played on, with ``expected_version``
    and/or an ``If-Match`` header value. With an ``idempotency_key`` the response
    that ``respond`` builds is stored in the same transaction, and a repeat of
    the same request returns it again without playing anything.
    """
    now = timezone.now()
    with transaction.atomic():
        # The seats come with the lock: the caller's seat, the resigned seats and
        # the answer's seat list are all read from this one list.
        game = _lock_game(game_id, with_seats=True)
        if idempotency_key is not None:
            record = IdempotencyRecord.objects.filter(user=user, key=idempotency_key).first()
            if record is not None:
                if record.fingerprint != fingerprint:
                    raise errors.IdempotencyKeyReused(
                        "This Idempotency-Key was already used for a different request; "
                        "use a new key for a new move."
                    )
                return MoveSubmission(
                    game=game, move=None, status_code=record.response_status, body=record.response_body, replayed=True
                )
        seat = _joined_seat(game, user)
        if game.status != Game.Status.ACTIVE:
            raise errors.GameNotActive(
                f"This game is {game.status}; moves can be played only while it is active.",
                game_status=game.status,
            )
        # "If-Match: *" matches any version, so on its own it names none.
        if expected_version is None and (if_match is None or if_match.strip() == "*"):
            raise errors.PreconditionRequired(
                "Send the version you played on, as \"expected_version\" in the body or an If-Match header "
                "naming it (If-Match: * names no version), "
                f"so that a move is never played on a position you have not seen. The game is at version {game.version}.",
                current_version=game.version,
            )
        if if_match is not None and not etag_matches(if_match, game.version):
            raise errors.PreconditionFailed(
                f"If-Match {if_match} does not match the game's version {game.version}; read the game again and retry.",
                current_version=game.version,
            )
        if expected_version is not None and expected_version != game.version:
            raise errors.StaleVersion(
                f"You played on version {expected_version} but the game is at version {game.version}; "
                "read the game again and retry.",
                current_version=game.version,
            )
        state = _state(game)
        if engine.to_move(state) != seat.index:
            raise errors.NotYourTurn(
                f"It is seat {engine.to_move(state)}'s turn, not yours (you are seat {seat.index}).",
                to_move=engine.to_move(state), your_seat=seat.index,
            )
        try:
            move = engine.parse_move(state, text)
        except engine.AmbiguousMove as exc:
            raise errors.AmbiguousMove(_sentence(exc.message), rule=exc.rule, choices=list(exc.choices)) from None
        except engine.IllegalMove as exc:
            raise errors.IllegalMove(_sentence(exc.message), rule=exc.rule) from None
        except engine.InvalidNotation as exc:
            raise errors.InvalidNotation(
                f"Could not read the move ({exc}). Moves look like \"take WUG\", \"take RR\", "
                "\"reserve 2-13\", \"reserve deck3\", \"buy 1-07\" or \"pass\"; GET legal-moves lists yours."
            ) from None
        writes = _Writes(game)
        after = engine.apply(state, move)
        row = _record_move(writes, before=state, move=move, after=after, automatic=False)
        resigned = {s.index for s in game.seats.all() if s.resigned and s.index is not None}
        after = _play_resigned_seats(writes, after, resigned)
        _settle(writes, after, now, resigned=resigned)
        writes.flush()
        game.save(update_fields=PLAY_FIELDS)
        status_code: int | None = None
        body: dict[str, Any] | None = None
        if respond is not None:
            status_code, body = respond(game, row)
        if idempotency_key is not None:
            if body is None or status_code is None or fingerprint is None:
                raise ValueError("an idempotency_key needs a fingerprint and a respond callback")
            try:
                with transaction.atomic():
                    IdempotencyRecord.objects.create(
                        user=user, key=idempotency_key, fingerprint=fingerprint,
                        response_status=status_code, response_body=body,
                    )
            except IntegrityError:
                # The same key, sent at the same moment for another game: this
                # move is rolled back with the rest of the transaction.
                raise errors.IdempotencyKeyReused(
                    "This Idempotency-Key was already used for a different request; "
                    "use a new key for a new move."
                ) from None
        _notify_on_commit(game)
    return MoveSubmission(game=game, move=row, status_code=status_code, body=body, replayed=False)


def _resign_locked(writes: _Writes, seat: Seat, *, reason: str, now: datetime) -> None:
    game = writes.game
    seat.resigned = True
    seat.resigned_at = now
    seat.save(update_fields=["resigned", "resigned_at"])
    writes.change(GameEvent.Kind.SEAT_RESIGNED, {"seat": seat.index, "reason": reason})
    state = _state(game)
    remaining = list(game.seats.filter(resigned=False).order_by("index"))
    if len(remaining) == 1:
        resigned_order = list(
            game.seats.filter(resigned=True).order_by(F("resigned_at").desc(), "-index").values_list("index", flat=True)
        )
        result = {
            "winners": [remaining[0].index],
            "scores": _scores(state, game.seat_count),
            "ranking": [remaining[0].index, *resigned_order],
            "reason": reason,
            "resigned": sorted(resigned_order),
        }
        _finish(writes, result=result, now=now)
        return
    resigned = set(game.seats.filter(resigned=True).values_list("index", flat=True))
    state = _play_resigned_seats(writes, state, resigned)
    _settle(writes, state, now, resigned=resigned)


@retry_when_database_locked
def game_resign(*, game: Game, user: AbstractBaseUser) -> Game:
    """Resign the caller's seat.

    With two seats the other player wins at once. With more, the game goes on:
    the server plays the resigned seat's turns with a quiet move, the seat ranks
    last, and when one player is left standing that player wins.
    """
    now = timezone.now()
    with transaction.atomic():
        locked = _lock_game(game.pk)
        seat = _joined_seat(locked, user)
        if locked.status != Game.Status.ACTIVE:
            raise errors.GameNotActive(
                f"This game is {locked.status}; you can resign only while it is active.",
                game_status=locked.status,
            )
        if seat.resigned:
            raise errors.GameNotActive("You have already resigned from this game.")
        writes = _Writes(locked)
        _resign_locked(writes, seat, reason="resignation", now=now)
        writes.flush()
        locked.save()
        _notify_on_commit(locked)
    _refresh(game, locked)
    return game


@retry_when_database_locked
def game_time_out_overdue() -> int:
    """Run ``game_time_out`` on every game whose deadline has passed; returns how
    many had a player run out of time. Each game has its own transaction."""
    return sum(game_time_out(game_id=game_id) for game_id in game_overdue_ids())


def game_time_out(*, game_id: str, now: datetime | None = None) -> bool:
    """Resign the seat to move when its deadline has passed. Safe to run twice:
    returns False and changes nothing when the deadline has not passed."""
    now = now or timezone.now()
    with transaction.atomic():
        game = _lock_game(game_id)
        if game.status != Game.Status.ACTIVE or game.deadline_at is None or game.deadline_at > now:
            return False
        seat = game.seats.get(index=game.to_move)
        writes = _Writes(game)
        _resign_locked(writes, seat, reason="timeout", now=now)
        writes.flush()
        game.save()
        _notify_on_commit(game)
    return True


def _refresh(target: Game, source: Game) -> None:
    """Copy the locked, saved row's fields onto the caller's instance."""
    for field in Game._meta.concrete_fields:
        setattr(target, field.attname, getattr(source, field.attname))
    # Seats prefetched before the change are stale now.
    getattr(target, "_prefetched_objects_cache", {}).clear()


def game_event_claim(*, event_id: int) -> bool:
    """Mark an outbox event processed. True for exactly one caller, however many
    workers try at once: the UPDATE only matches a row that is still unprocessed."""
    claimed = GameEvent.objects.filter(pk=event_id, processed_at__isnull=True).update(processed_at=timezone.now())
    return claimed == 1
