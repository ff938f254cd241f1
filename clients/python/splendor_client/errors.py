"""What can go wrong, as exceptions that carry the server's problem body."""

from __future__ import annotations

from typing import Any


class SplendorError(Exception):
    """Base of every error this client raises."""


class ApiError(SplendorError):
    """The server refused a request: a problem body (RFC 9457).

    ``code`` is the stable name to branch on (``stale_version``,
    ``not_your_turn``, ``illegal_move``, ...), ``detail`` the server's words,
    ``status`` the HTTP status and ``problem`` the whole body (``rule``,
    ``current_version``, ``choices``, ``errors`` ... when the code has them).
    """

    def __init__(self, status: int, code: str, detail: str, problem: dict[str, Any] | None = None) -> None:
        super().__init__(f"{status} {code}: {detail}")
        self.status = status
        self.code = code
        self.detail = detail
        self.problem: dict[str, Any] = dict(problem or {})

    @property
    def current_version(self) -> int | None:
        """The game's version now, for ``stale_version`` and the precondition codes."""
        value = self.problem.get("current_version")
        return value if isinstance(value, int) else None


class ConflictError(ApiError):
    """409: the game moved on (``stale_version``), it is not your turn, it is not
    active, ... Read the game again and decide again."""


class NotFoundError(ApiError):
    """404: no such game (or one the token may not see), player, ..."""


class AuthError(ApiError):
    """401 or 403: the token is missing, invalid, revoked or lacks a scope."""


class IllegalMoveError(ApiError):
    """422 ``illegal_move`` or ``ambiguous_move``: ``rule`` names the rule broken;
    ``choices`` lists the moves an ambiguous one may have meant."""

    @property
    def rule(self) -> str | None:
        value = self.problem.get("rule")
        return value if isinstance(value, str) else None


class RateLimitedError(ApiError):
    """429 or 503 after every retry: the server still asks to wait."""

    @property
    def retry_after(self) -> float | None:
        value = self.problem.get("retry_after")
        return float(value) if isinstance(value, (int, float)) else None


def error_for(status: int, body: Any) -> ApiError:
    """The exception for a refused request, from its status and body (a problem
    body, or anything else a proxy in between may have sent)."""
    problem: dict[str, Any] = body if isinstance(body, dict) else {}
    code = problem.get("code")
    detail = problem.get("detail")
    if not isinstance(code, str):
        code = f"http_{status}"
    if not isinstance(detail, str):
        detail = problem.get("title") if isinstance(problem.get("title"), str) else f"HTTP {status}"
    cls: type[ApiError]
    if status == 409:
        cls = ConflictError
    elif status == 404:
        cls = NotFoundError
    elif status in (401, 403):
        cls = AuthError
    elif status == 422 and code in ("illegal_move", "ambiguous_move"):
        cls = IllegalMoveError
    elif status in (429, 503):
        cls = RateLimitedError
    else:
        cls = ApiError
    return cls(status, code, str(detail), problem)


__all__ = [
    "ApiError",
    "AuthError",
    "ConflictError",
    "IllegalMoveError",
    "NotFoundError",
    "RateLimitedError",
    "SplendorError",
    "error_for",
]
