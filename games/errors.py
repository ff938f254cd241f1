"""What the games services refuse, as domain errors.

No HTTP here: each error has a ``kind`` that the REST API maps to a status in
``api.problems`` (and an email reply or an admin action shows in its own way).
Codes and fields are a contract with clients: they do not change.
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext, gettext_noop, pgettext

from core.errors import DomainError, ErrorKind


def status_words(status: str) -> str:
    """A game's status as a sentence says it ("This game is finished"), in the active language."""
    words = {
        "open": pgettext("this game is", "open"),
        "active": pgettext("this game is", "active"),
        "finished": pgettext("this game is", "finished"),
        "aborted": pgettext("this game is", "aborted"),
    }
    return words.get(status, status)


class GameNotFound(DomainError):
    kind = ErrorKind.NOT_FOUND
    code = "game_not_found"
    title = gettext_noop("Game not found")

    @classmethod
    def for_id(cls, game_id: str) -> GameNotFound:
        return cls(gettext("There is no game with id %(id)s. Check the id and try again.") % {"id": repr(game_id)})


class NotAPlayer(DomainError):
    kind = ErrorKind.FORBIDDEN
    code = "not_a_player"
    title = gettext_noop("You are not a player in this game")
    default_message = gettext_noop("You do not have a seat in this game, so you cannot act in it.")


class AccountSuspended(DomainError):
    """A suspended player tried to move (by email: the API refuses their tokens first)."""

    kind = ErrorKind.FORBIDDEN
    code = "account_suspended"
    title = gettext_noop("Account suspended")


class NotYourTurn(DomainError):
    """Fields: ``to_move`` (the seat whose turn it is), ``to_move_username`` (the
    username of that seat's player, as the game's ``seats`` show it), ``your_seat``."""

    kind = ErrorKind.CONFLICT
    code = "not_your_turn"
    title = gettext_noop("It is not your turn")

    @classmethod
    def for_seat(cls, *, to_move: int, to_move_username: str, your_seat: int) -> NotYourTurn:
        return cls(
            gettext("It is %(username)s's turn (seat %(to_move)s), not yours (you are seat %(seat)s).")
            % {"username": to_move_username, "to_move": to_move, "seat": your_seat},
            to_move=to_move,
            to_move_username=to_move_username,
            your_seat=your_seat,
        )


class StaleVersion(DomainError):
    """Fields: ``current_version``."""

    kind = ErrorKind.CONFLICT
    code = "stale_version"
    title = gettext_noop("The game has changed since you last read it")


class PreconditionFailed(DomainError):
    """Fields: ``current_version``. An If-Match that names another version."""

    kind = ErrorKind.PRECONDITION_FAILED
    code = "precondition_failed"
    title = gettext_noop("If-Match does not match the game's current version")


class PreconditionRequired(DomainError):
    """Fields: ``current_version``. A move that names no version at all."""

    kind = ErrorKind.PRECONDITION_REQUIRED
    code = "precondition_required"
    title = gettext_noop("Say which version of the game you are playing on")


class InvalidNotation(DomainError):
    """No fields. ``unread`` (an attribute: no client reads it) holds the engine's
    words for what could not be read, when the message is the service's own, so
    that a door which is not the API can say in its own terms where the legal
    moves are (the message sends API clients to GET legal-moves)."""

    kind = ErrorKind.INVALID
    code = "invalid_notation"
    title = gettext_noop("The move could not be read")

    def __init__(self, message: str | None = None, *, unread: str = "", **fields: Any) -> None:
        super().__init__(message, **fields)
        self.unread = unread


class IllegalMove(DomainError):
    """Fields: ``rule`` (the rule id the move breaks, e.g. B-TAKE-2)."""

    kind = ErrorKind.NOT_ALLOWED
    code = "illegal_move"
    title = gettext_noop("That move is not allowed")


class AmbiguousMove(DomainError):
    """Fields: ``rule`` and ``choices`` (every complete legal move it could mean)."""

    kind = ErrorKind.NOT_ALLOWED
    code = "ambiguous_move"
    title = gettext_noop("That move could mean more than one thing")


class GameNotActive(DomainError):
    """Fields: ``game_status``."""

    kind = ErrorKind.CONFLICT
    code = "game_not_active"
    title = gettext_noop("The game is not in progress")

    @classmethod
    def for_move(cls, status: str) -> GameNotActive:
        return cls(
            gettext("This game is %(status)s; moves can be played only while it is active.")
            % {"status": status_words(status)},
            game_status=status,
        )


class SeatUnavailable(DomainError):
    kind = ErrorKind.CONFLICT
    code = "seat_unavailable"
    title = gettext_noop("There is no seat for you in this game")


class AlreadyResigned(DomainError):
    kind = ErrorKind.CONFLICT
    code = "already_resigned"
    title = gettext_noop("You have already resigned from this game")


class NotTheCreator(DomainError):
    kind = ErrorKind.FORBIDDEN
    code = "not_the_creator"
    title = gettext_noop("Only the game's creator can do this")


class GameNotOpen(DomainError):
    """Fields: ``game_status``."""

    kind = ErrorKind.CONFLICT
    code = "game_not_open"
    title = gettext_noop("The game is no longer waiting for players")


class NotInvited(DomainError):
    kind = ErrorKind.CONFLICT
    code = "not_invited"
    title = gettext_noop("You have no invitation to this game")


class IdempotencyKeyReused(DomainError):
    kind = ErrorKind.NOT_ALLOWED
    code = "idempotency_key_reused"
    title = gettext_noop("This Idempotency-Key was already used for a different request")


class InvalidGameSetup(DomainError):
    kind = ErrorKind.INVALID
    code = "invalid_game_setup"
    title = gettext_noop("The game cannot be set up that way")


class TooManyInvitations(DomainError):
    """Fields: ``next_invitation_at`` (ISO 8601) when the limit says when; with Retry-After."""

    kind = ErrorKind.TOO_MANY
    code = "too_many_invitations"
    title = gettext_noop("You have sent as many invitations as you may in a day")


class TooManyPracticeGames(DomainError):
    """PRACTICE_GAMES_ACTIVE_PER_ACCOUNT practice games and sandboxes of the account's
    are in play already. Fields: ``practice_games_active``, ``practice_games_limit``."""

    kind = ErrorKind.CONFLICT
    code = "too_many_practice_games"
    title = gettext_noop("You have as many practice games in play as you may")


class InvalidVacation(DomainError):
    kind = ErrorKind.INVALID
    code = "invalid_vacation"
    title = gettext_noop("That vacation cannot be taken")


class NotEnoughVacation(DomainError):
    """Fields: ``days_left`` (this calendar year)."""

    kind = ErrorKind.NOT_ALLOWED
    code = "not_enough_vacation"
    title = gettext_noop("You do not have that many vacation days left this year")


class PauseNotAllowed(DomainError):
    """The game's rules allow no such pause (``Game.pauses_allowed`` for a
    moderator's pause, ``Game.vacation_allowed`` for a vacation)."""

    kind = ErrorKind.NOT_ALLOWED
    code = "pause_not_allowed"
    title = gettext_noop("This game's rules do not allow that pause")


class SandboxNotAllowed(DomainError):
    """A private game that is still being played, seen by someone without a seat in
    it (a moderator): only its players, from their seats, make sandboxes of it."""

    kind = ErrorKind.FORBIDDEN
    code = "sandbox_not_allowed"
    title = gettext_noop("You cannot make a sandbox of this game")


class SandboxBotsNotAllowed(DomainError):
    """A sandbox with bots of an active rated or league game: a bot would be an
    engine to consult in the middle of a game that counts."""

    kind = ErrorKind.INVALID
    code = "sandbox_bots_not_allowed"
    title = gettext_noop("A sandbox of a game that counts has no bots while it is played")


class SandboxUnavailable(DomainError):
    """The game has no position to play from: it never started, or the position
    asked for is the end of the game."""

    kind = ErrorKind.CONFLICT
    code = "sandbox_not_available"
    title = gettext_noop("There is no position to make a sandbox from")


ALL_ERRORS: tuple[type[DomainError], ...] = (
    GameNotFound,
    NotAPlayer,
    NotYourTurn,
    StaleVersion,
    PreconditionFailed,
    PreconditionRequired,
    InvalidNotation,
    IllegalMove,
    AmbiguousMove,
    GameNotActive,
    SeatUnavailable,
    AlreadyResigned,
    NotTheCreator,
    GameNotOpen,
    NotInvited,
    IdempotencyKeyReused,
    InvalidGameSetup,
    TooManyInvitations,
    TooManyPracticeGames,
    InvalidVacation,
    NotEnoughVacation,
    PauseNotAllowed,
    SandboxNotAllowed,
    SandboxBotsNotAllowed,
    SandboxUnavailable,
)


class PlanOnYourTurn(DomainError):
    """A plan (conditional moves) is stored only while the seat waits. Fields:
    ``your_seat``."""

    kind = ErrorKind.CONFLICT
    code = "plan_on_your_turn"
    title = gettext_noop("It is your turn: play your move")
    default_message = gettext_noop(
        "It is your turn now: play your move. A plan is stored only while you wait for the others."
    )
