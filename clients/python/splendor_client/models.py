"""The API's resources as typed dictionaries.

Each is what the server sends, unchanged: a response's JSON is the model, so a
field the server adds later is still there to read (a ``TypedDict`` does not
drop keys). The names follow the OpenAPI schema's components (``/api/schema/``);
a test of the service checks every field declared here against that schema.
"""

# No ``from __future__ import annotations`` here: a TypedDict reads ``NotRequired``
# from its annotations when the class is made, which needs them evaluated.
from typing import Any, NotRequired, TypedDict

from engine import BoardView

#: The board as one seat (or a spectator) sees it: the engine's ``BoardView``
#: (``engine.observe``), passed through unchanged. The server builds it with the
#: same engine that this package carries, so the type is the engine's own.
Board = BoardView


class Seat(TypedDict):
    """Schema component ``Seat``."""

    seat: int | None
    username: str
    display_name: str
    joined: bool
    invited: bool
    resigned: bool
    bank_seconds: int
    consecutive_timeouts: int
    bot: bool
    bot_name: str | None


class TimeControl(TypedDict):
    """Schema component ``TimeControl``."""

    move_seconds: int
    bank_seconds: int
    bank_cap_seconds: int


class TimeoutPolicy(TypedDict):
    """Schema component ``TimeoutPolicy``."""

    forfeit_after: int


class GameResult(TypedDict):
    """Schema component ``GameResult``: how a finished game ended."""

    winners: list[int]
    scores: list[int]
    places: list[int]
    ranking: list[int]
    reason: str
    resigned: list[int]
    timed_out: list[int]


class GameSummary(TypedDict):
    """Schema component ``GameSummary``: a game as the list shows it (no board)."""

    id: str
    kind: str
    sandbox_of: str | None
    variant: str
    status: str
    version: int
    seat_count: int
    open_seats: int
    seats: list[Seat]
    to_move: int | None
    your_seat: int | None
    move_timeout_hours: int | None
    time_control: TimeControl
    timeout_policy: TimeoutPolicy
    public: bool
    rated: bool
    deadline_at: str | None
    paused: bool
    seed_commitment: str | None
    created_by: str
    created_at: str
    started_at: str | None
    finished_at: str | None
    result: GameResult | None


class Game(GameSummary):
    """Schema component ``GameView``: one game as the caller may see it."""

    board: Board | None
    seed: str | None


class GamePage(TypedDict):
    """Schema component ``PaginatedGameSummaryList``: one page of the game list."""

    count: int
    next: NotRequired[str | None]
    previous: NotRequired[str | None]
    results: list[GameSummary]


class LegalMoves(TypedDict):
    """Schema component ``LegalMoves``: canonical texts, sorted; empty when it is
    not the caller's turn."""

    version: int
    to_move: int | None
    your_seat: int | None
    moves: list[str]


class MoveCreated(TypedDict):
    """Schema component ``MoveCreated``: the answer to a played move."""

    move: str
    ply: int
    game: Game


class MoveHistoryEntry(TypedDict):
    """Schema component ``MoveHistoryEntry``: one move of a game's history."""

    ply: int
    seat: int
    move: str
    automatic: bool
    played_by: str
    created_at: str
    private_card: NotRequired[str]


class Me(TypedDict):
    """Schema component ``Me``: the account the token belongs to."""

    username: str
    email: str
    display_name: str
    email_verified_at: str | None
    created_at: str
    scopes: list[str]
    time_zone: str
    language: str
    # The account's secret address of its deadlines calendar (docs/calendar.md).
    calendar_url: str


class Token(TypedDict):
    """Schema component ``Token``: a token, never its secret."""

    id: int
    name: str
    prefix: str
    created_at: str
    last_used_at: str | None
    revoked_at: str | None
    revoked: bool


class TokenCreated(Token):
    """Schema component ``TokenCreated``: a new token, with its secret (shown once)."""

    token: str


class Problem(TypedDict):
    """Schema component ``GameProblem`` (RFC 9457): every error's body. Branch on
    ``code``; the optional members appear only with the codes that use them."""

    type: str
    title: str
    status: int
    detail: str
    code: str
    errors: NotRequired[dict[str, Any]]
    retry_after: NotRequired[int]
    rule: NotRequired[str]
    choices: NotRequired[list[str]]
    current_version: NotRequired[int]


#: One line of a plan (docs/plans.md): if the move before your turn is ``if``
#: (notation, or ``any``), play ``then``; its ``next`` lines become the plan.
#: ("if" is a keyword, hence the functional form.)
PlanLine = TypedDict("PlanLine", {"if": str, "then": str, "next": NotRequired[list["PlanLine"]]})


class PlanOutcome(TypedDict):
    """Schema component ``PlanOutcome``: what a plan did at one of your turns."""

    ply: int
    after: str
    played: NotRequired[str]
    cleared: NotRequired[str]
    move: NotRequired[str]
    rule: NotRequired[str]
    reason: NotRequired[str]


class Plan(TypedDict):
    """Schema component ``Plan``: your conditional moves in a game, yours alone."""

    game_id: str
    version: int
    your_seat: int | None
    can_store: bool
    lines: list[PlanLine]
    outcomes: list[PlanOutcome]


class ChatLine(TypedDict):
    """Schema component ``ChatLine``: a line of a game's table talk."""

    id: int
    thread: str
    author_id: int
    author: str
    seat: int | None
    text: str
    hidden: bool
    erased: bool
    created_at: str


class ChatThread(TypedDict):
    """Schema component ``ChatThread``: a thread's lines, oldest first."""

    game_id: str
    thread: str
    lines: list[ChatLine]


__all__ = [
    "ChatLine",
    "ChatThread",
    "Plan",
    "PlanLine",
    "PlanOutcome",
    "Board",
    "Game",
    "GamePage",
    "GameResult",
    "GameSummary",
    "LegalMoves",
    "Me",
    "MoveCreated",
    "MoveHistoryEntry",
    "Problem",
    "Seat",
    "TimeControl",
    "TimeoutPolicy",
    "Token",
    "TokenCreated",
]
