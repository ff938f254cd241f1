"""Playing a turn: ``move_submit``, the one way a player's move enters a game,
and ``move_check``, what it would say of a move, playing nothing."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import engine
from engine.grammar import reading_languages
from django.db.models import Prefetch
from django.utils import timezone
from django.utils.translation import gettext

from core.db import retry_when_database_locked
from core.errors import DomainError
from games import errors, metrics
from games.engine_text import engine_text
from games.models import Game, Move, PlayedBy, Seat
from games.services.change import PLAY_FIELDS, game_change
from games.services.turns import (
    acting_seat,
    autoplay,
    bot_seats,
    charge_clock,
    joined_seat,
    record_move,
    seats_left,
    settle,
    state_of,
)

if TYPE_CHECKING:
    from django.contrib.auth.models import User


@dataclass(frozen=True)
class MovePlayed:
    """What ``move_submit`` did.

    ``game`` is the saved row with its seats loaded; ``move`` the player's move;
    ``automatic`` the moves played after it in the same change (quiet moves for
    resigned seats, the bot's for a seat handed to it, forced passes, and the
    lines of other seats' plans, which are those players' own moves);
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


def _sentence(message: str) -> str:
    """The engine's words as a sentence for a person: capital first, full stop last."""
    message = message.strip()
    if not message:
        return message
    message = message[0].upper() + message[1:]
    return message if message[-1] in ".!?" else message + "."


def _parse(state: engine.State, text: str, languages: Iterable[str]) -> engine.Move:
    """The engine's reading of ``text`` (in English and ``languages``), its
    refusals as domain errors naming the rule."""
    try:
        return engine.parse_move(state, text, languages=languages)
    except engine.AmbiguousMove as exc:
        raise errors.AmbiguousMove(
            _sentence(engine_text(exc.text)), rule=exc.rule, choices=list(exc.choices)
        ) from None
    except engine.IllegalMove as exc:
        raise errors.IllegalMove(_sentence(engine_text(exc.text)), rule=exc.rule) from None
    except engine.InvalidNotation as exc:
        reason = engine_text(exc.text)
        raise errors.InvalidNotation(
            gettext(
                'Could not read the move (%(reason)s). Moves look like "take WUG", "take RR", '
                '"reserve 2-13", "reserve deck3", "buy 1-07" or "pass"; GET legal-moves lists yours.'
            )
            % {"reason": reason},
            unread=reason,
        ) from None


def _check_not_suspended(seat: Seat) -> None:
    """A suspended player cannot move, by any channel (their turns time out as usual)."""
    player = getattr(seat.user, "player", None)
    if player is not None and player.suspended_at is not None:
        raise errors.AccountSuspended(
            gettext(
                "A moderator suspended your account; you cannot move while it is suspended. "
                "Your turns time out as usual."
            )
        )


def _check_can_move(game: Game, seat: Seat, *, expected_version: int) -> engine.State:
    """The state to play on, once the game, the version and the turn allow a move."""
    if game.status != Game.Status.ACTIVE:
        raise errors.GameNotActive.for_move(game.status)
    version_check(game, expected_version=expected_version)
    state = state_of(game)
    to_move = engine.to_move(state)
    if to_move != seat.index:
        # An active game has a seat to move, and a seat that joined it has its index.
        assert to_move is not None and seat.index is not None
        # Its username as the game's seats show it: an erased player's is already
        # deleted-<id>, and an erased player's active seats have left the game.
        mover = Seat.objects.select_related("user").get(game=game, index=to_move)
        raise errors.NotYourTurn.for_seat(
            to_move=to_move, to_move_username=mover.user.get_username(), your_seat=seat.index
        )
    return state


def version_check(game: Game, *, expected_version: int) -> None:
    """StaleVersion (with ``current_version``) unless the locked game is at
    ``expected_version``: what a player chose on is what it is played on."""
    if expected_version != game.version:
        if expected_version > game.version:
            message = gettext(
                "You played on version %(played)s but the game is only at version %(version)s; "
                "read the game again and retry."
            )
        else:
            message = gettext(
                "You played on version %(played)s but the game is at version %(version)s; read the game again and retry."
            )
        raise errors.StaleVersion(
            message % {"played": expected_version, "version": game.version},
            current_version=game.version,
        )


def move_languages(user: User) -> tuple[str, ...]:
    """The languages a player's move text is read in by default: English and the
    account's language (``Player.language``), at every door."""
    return reading_languages(getattr(getattr(user, "player", None), "language", None))


@retry_when_database_locked
def move_submit(
    *, game_id: str, user: User, text: str, expected_version: int, languages: Iterable[str] | None = None
) -> MovePlayed:
    """Play one turn for ``user``'s seat in the game, on the version they chose it on.

    ``text`` is read by the engine's lenient parser, in English and ``languages``
    (engine.grammar; by default the account's, ``move_languages``). Refusals: GameNotFound,
    NotAPlayer, GameNotActive, StaleVersion (with ``current_version``),
    NotYourTurn, InvalidNotation, IllegalMove and AmbiguousMove (with the rule
    id). The mover's bank is settled and its timeouts in a row reset; then the
    server plays the turns of resigned seats and forced passes, the next seat's
    clock starts, and the game finishes when the engine says it is over. In a
    sandbox its owner also plays each hot seat's turn (``turns.acting_seat``);
    in a practice game or a sandbox a bot's turn is then queued for a worker.
    Nothing is written unless everything is.
    """
    now = timezone.now()
    try:
        # The seats come with the lock: the caller's seat, the resigned seats and
        # the caller's answer are all read from this one list.
        with game_change(game_id, with_seats=True, save_fields=PLAY_FIELDS) as writes:
            game = writes.game
            # Every seat here is one of those loaded with the lock: their rows are
            # written with the move, in one statement on PostgreSQL.
            writes.defer_seat_saves = True
            _check_not_suspended(joined_seat(game, user))
            # The user's own seat, or in a sandbox the hot seat to move (turns.is_hot_seat).
            seat = acting_seat(game, user)
            state = _check_can_move(game, seat, expected_version=expected_version)
            move = _parse(state, text, move_languages(user) if languages is None else languages)
            after = engine.apply(state, move)
            row, details = record_move(writes, before=state, move=move, after=after, played_by=PlayedBy.PLAYER)
            if charge_clock(game, seat, now):
                writes.seat_save(seat, ["bank_seconds", "consecutive_timeouts"])
            resigned, timed_out = seats_left(game)
            after = autoplay(writes, after, resigned, bot_seats(game.seats.all()))
            automatic = writes.moves[1:]
            settle(writes, after, now, seats=game.seats.all(), resigned=resigned, timed_out=timed_out)
    except DomainError as refusal:
        metrics.move_refused(refusal.code)
        raise
    return MovePlayed(game=game, move=row, details=details, automatic=automatic)


def move_check(
    *, game_id: str, user: User, text: str, expected_version: int, languages: Iterable[str] | None = None
) -> engine.Move:
    """The move ``move_submit`` would play now, or the refusal it would give,
    without playing anything: the same checks, read on the game as it is (no
    lock, nothing written). For a door that must not act yet (an emailed move
    that waits for its sender's code): the move is checked again when submitted."""
    game = (
        Game.objects.prefetch_related(Prefetch("seats", queryset=Seat.objects.select_related("user__player")))
        .filter(pk=game_id)
        .first()
    )
    if game is None:
        raise errors.GameNotFound.for_id(game_id)
    _check_not_suspended(joined_seat(game, user))
    seat = acting_seat(game, user)
    state = _check_can_move(game, seat, expected_version=expected_version)
    return _parse(state, text, move_languages(user) if languages is None else languages)
