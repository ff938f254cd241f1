"""Failures of the accounts services, as problem-details errors."""

from __future__ import annotations

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
    default_detail = "That code has expired. Sign up again to get a new one."


class TooManyAttemptsError(VerificationError):
    status_code = status.HTTP_429_TOO_MANY_REQUESTS
    code = "too_many_attempts"
    title = "Too many attempts"
    default_detail = "Too many wrong codes. Sign up again to get a new one."


class InvalidCredentialsError(ProblemError):
    status_code = status.HTTP_401_UNAUTHORIZED
    code = "invalid_credentials"
    title = "Invalid credentials"
    default_detail = "The username or password is wrong, or the account is not verified yet."
