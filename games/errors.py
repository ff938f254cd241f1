"""The problems the games API can report; each renders as application/problem+json."""

from __future__ import annotations

from splendor_site.api_errors import ProblemError


class GameNotFound(ProblemError):
    status_code = 404
    code = "game_not_found"
    title = "Game not found"

    @classmethod
    def for_id(cls, game_id: str) -> GameNotFound:
        return cls(f"There is no game with id {game_id!r}. Check the id and try again.")


class NotAPlayer(ProblemError):
    status_code = 403
    code = "not_a_player"
    title = "You are not a player in this game"


class NotYourTurn(ProblemError):
    status_code = 409
    code = "not_your_turn"
    title = "It is not your turn"


class StaleVersion(ProblemError):
    status_code = 409
    code = "stale_version"
    title = "The game has changed since you last read it"


class PreconditionFailed(ProblemError):
    status_code = 412
    code = "precondition_failed"
    title = "If-Match does not match the game's current version"


class PreconditionRequired(ProblemError):
    status_code = 428
    code = "precondition_required"
    title = "Say which version of the game you are playing on"


class InvalidNotation(ProblemError):
    status_code = 400
    code = "invalid_notation"
    title = "The move could not be read"


class IllegalMove(ProblemError):
    status_code = 422
    code = "illegal_move"
    title = "That move is not allowed"


class AmbiguousMove(ProblemError):
    status_code = 422
    code = "ambiguous_move"
    title = "That move could mean more than one thing"


class GameNotActive(ProblemError):
    status_code = 409
    code = "game_not_active"
    title = "The game is not in progress"


class SeatUnavailable(ProblemError):
    status_code = 409
    code = "seat_unavailable"
    title = "There is no seat for you in this game"


class IdempotencyKeyReused(ProblemError):
    status_code = 422
    code = "idempotency_key_reused"
    title = "This Idempotency-Key was already used for a different request"


class InvalidGameSetup(ProblemError):
    status_code = 400
    code = "invalid_game_setup"
    title = "The game cannot be set up that way"


ALL_PROBLEMS: tuple[type[ProblemError], ...] = (
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
    IdempotencyKeyReused,
    InvalidGameSetup,
)
