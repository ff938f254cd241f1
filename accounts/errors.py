"""What the accounts services refuse, as domain errors (no HTTP here: the API
maps each kind to a status in ``api.problems``)."""

from __future__ import annotations

from django.utils.translation import gettext_noop

from core.errors import DomainError, ErrorKind, InvalidInput

__all__ = [
    "AccountActionRefusedError",
    "AccountSuspendedError",
    "ConfirmationRequiredError",
    "EmailAddressTakenError",
    "EmailAddressUnverifiedError",
    "InsufficientScopeError",
    "InvalidCredentialsError",
    "InvalidInput",
    "LoginLockedError",
    "PlayerNotFoundError",
    "TooManyAttemptsError",
    "TooManyCodesError",
    "VerificationError",
    "VerificationExpiredError",
]


class InsufficientScopeError(DomainError):
    kind = ErrorKind.FORBIDDEN
    code = "insufficient_scope"
    title = gettext_noop("Insufficient scope")
    default_message = gettext_noop("This token lacks the scope needed here.")


class VerificationError(DomainError):
    kind = ErrorKind.INVALID
    code = "verification_failed"
    title = gettext_noop("Verification failed")
    default_message = gettext_noop("That code is not right. Check the email we sent and try again.")


class VerificationExpiredError(VerificationError):
    code = "verification_expired"
    title = gettext_noop("Verification code expired")
    default_message = gettext_noop("That code has expired. Ask for a new one at POST /api/v1/players/resend/.")


class TooManyAttemptsError(VerificationError):
    """Raised with ``retry_after``: the seconds until a new code can be sent."""

    kind = ErrorKind.TOO_MANY
    code = "too_many_attempts"
    title = gettext_noop("Too many attempts")
    default_message = gettext_noop(
        "Too many wrong codes; this code no longer works. Ask for a new one at POST /api/v1/players/resend/ "
        "once Retry-After has passed."
    )


class TooManyCodesError(DomainError):
    """Raised with ``retry_after``: the seconds until another code may be sent (to
    this sign-up, or to this address or at this client's request)."""

    kind = ErrorKind.TOO_MANY
    code = "too_many_codes"
    title = gettext_noop("Too many codes")
    default_message = gettext_noop(
        "This address has been sent as many codes as it may get in a day. Try again after Retry-After."
    )


class InvalidCredentialsError(DomainError):
    kind = ErrorKind.UNAUTHENTICATED
    code = "invalid_credentials"
    title = gettext_noop("Invalid credentials")
    default_message = gettext_noop("The username or password is wrong, or the account is not verified yet.")


class AccountSuspendedError(DomainError):
    """The password is right, but a moderator suspended the account
    (``Player.suspended_at``): it cannot log in or mint a token until the
    suspension is lifted. The same code as the API's refusal of its tokens."""

    kind = ErrorKind.UNAUTHENTICATED
    code = "account_suspended"
    title = gettext_noop("Account suspended")
    default_message = gettext_noop("A moderator suspended this account; it cannot log in while it is suspended.")


class LoginLockedError(DomainError):
    """Raised with ``retry_after``: the seconds until a password is checked again."""

    kind = ErrorKind.TOO_MANY
    code = "login_locked"
    title = gettext_noop("Too many wrong passwords")
    default_message = gettext_noop(
        "Too many wrong passwords were given for this username from your address; passwords for it are not "
        "checked from there until Retry-After has passed."
    )


class ConfirmationRequiredError(InvalidInput):
    """Erasing an account needs its username typed back (``errors["confirm"]``
    says what to send)."""

    code = "confirmation_required"
    title = gettext_noop("Confirmation required")


class PlayerNotFoundError(DomainError):
    kind = ErrorKind.NOT_FOUND
    code = "player_not_found"
    title = gettext_noop("Player not found")
    default_message = gettext_noop("There is no player with that username.")


class EmailAddressTakenError(DomainError):
    """An address another account holds: its primary address, a verified added
    one, or a sign-up's whose code still works."""

    kind = ErrorKind.CONFLICT
    code = "email_address_taken"
    title = gettext_noop("Email address taken")
    default_message = gettext_noop("Another account uses this email address.")


class EmailAddressUnverifiedError(DomainError):
    kind = ErrorKind.CONFLICT
    code = "email_address_unverified"
    title = gettext_noop("Email address not verified")
    default_message = gettext_noop(
        "This address is not verified yet: verify it with the code emailed to it before making it your primary address."
    )



class AccountActionRefusedError(PermissionError):
    """Staff may not disable or erase this account (accounts.services.account_actions):
    without the permission, their own account, a superuser's unless they are one, or
    an account the service itself holds. The message says which, in the active
    language. Raised to the admin alone (it shows it, or answers 403), never through
    the API, so it has no problem code: like ``token_revoke``'s refusal, a plain
    ``PermissionError``."""
