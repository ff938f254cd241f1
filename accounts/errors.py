"""Failures of the accounts services, as problem-details errors."""

from __future__ import annotations

from typing import Any

from rest_framework import status

from splendor_site.api_errors import ProblemError


class InsufficientScopeError(ProblemError):
    status_code = status.HTTP_403_FORBIDDEN
    code = "insufficient_scope"
    title = "Insufficient scope"
    default_detail = "This token lacks the scope needed here."


class VerificationError(ProblemError):
    status_code = status.HTTP_400_BAD_REQUEST
    code = "verification_failed"
    title = "Verification failed"
    default_detail = "That code is not right. Check the email we sent and try again."


class VerificationExpiredError(VerificationError):
    code = "verification_expired"
    title = "Verification code expired"
    default_detail = "That code has expired. Ask for a new one at POST /api/v1/players/resend/."


class _RetryLater:
    """A 429 that says when to come back: the error handler sends `wait` as the
    Retry-After header and as `retry_after` in the body."""

    def __init__(self, detail: str | None = None, *, wait: int, **extra: Any) -> None:
        super().__init__(detail, **extra)  # type: ignore[call-arg]
        self.wait = max(1, wait)


class TooManyAttemptsError(_RetryLater, VerificationError):
    status_code = status.HTTP_429_TOO_MANY_REQUESTS
    code = "too_many_attempts"
    title = "Too many attempts"
    default_detail = (
        "Too many wrong codes; this code no longer works. Ask for a new one at POST /api/v1/players/resend/ "
        "once Retry-After has passed."
    )


class TooManyCodesError(_RetryLater, ProblemError):
    status_code = status.HTTP_429_TOO_MANY_REQUESTS
    code = "too_many_codes"
    title = "Too many codes"
    default_detail = "This address has been sent as many codes as it may get in a day. Try again after Retry-After."


class InvalidCredentialsError(ProblemError):
    status_code = status.HTTP_401_UNAUTHORIZED
    code = "invalid_credentials"
    title = "Invalid credentials"
    default_detail = "The username or password is wrong, or the account is not verified yet."
