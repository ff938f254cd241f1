"""Writes for the accounts app: players, sign-up by email, API tokens."""

from __future__ import annotations

import hashlib
import math
import secrets
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from django.conf import settings
from django.contrib.auth import authenticate, get_user_model
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError as DjangoValidationError
from django.core.mail import send_mail
from django.db import IntegrityError, transaction
from django.db.models import F, Q, QuerySet
from django.utils import timezone
from django.utils.crypto import constant_time_compare, salted_hmac

from accounts.errors import (
    InvalidCredentialsError,
    InvalidInput,
    LoginLockedError,
    TooManyAttemptsError,
    TooManyCodesError,
    VerificationError,
    VerificationExpiredError,
)
from accounts.models import ApiToken, EmailVerification, PasswordFailures, Player, scopes_normalise
from accounts.signals import account_disabled
from accounts.tokens import token_generate, token_hash, token_public_prefix

if TYPE_CHECKING:
    # AUTH_USER_MODEL, as the mypy plugin reads it from the settings.
    from django.contrib.auth.models import User
else:
    User = get_user_model()

VERIFICATION_LIFETIME = timedelta(hours=24)
VERIFICATION_MAX_ATTEMPTS = 5
# Codes for one sign-up (from signing up again or asking for a resend), so that
# neither endpoint can be used to flood someone's inbox.
VERIFICATION_CODES_PER_DAY = 5
VERIFICATION_RESEND_INTERVAL = timedelta(minutes=1)
# No 0/O/1/I/L: the code is read from an email and typed by hand. 10 characters
# of 31 give ~50 bits; with 5 tries per code, guessing is hopeless.
VERIFICATION_ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"
VERIFICATION_LENGTH = 10


def _pending_signups() -> QuerySet[User]:
    """Users who signed up and never verified their email address."""
    return User.objects.filter(is_active=False, player__isnull=False, player__email_verified_at__isnull=True)


def _live_codes(now: datetime) -> QuerySet[EmailVerification]:
    """Codes that can still activate an account: unused, unexpired, not guessed at too often."""
    return EmailVerification.objects.filter(
        used_at__isnull=True, expires_at__gt=now, failed_attempts__lt=VERIFICATION_MAX_ATTEMPTS
    )


def _claim_username_and_email(
    *, username: str, email: str, now: datetime, take_over_pending_email: bool
) -> User | None:
    """Make way for a new account with `username` and `email`, or raise InvalidInput.

    Verified accounts hold both. A sign-up waiting for verification holds its
    username only while its code still works; once the code has expired or been
    guessed at too often it holds nothing, and is deleted here. With
    `take_over_pending_email`, a waiting sign-up with the same email address is
    returned to be reused whatever the state of its code: the new code goes to
    the same inbox, so its owner decides, and nobody can keep an address they
    cannot read from signing up. Deleting and reusing stay within the caller's
    transaction.
    """
    # Locked first, so that two sign-ups for one name are decided one after the other.
    holders = list(
        User.objects.select_for_update()
        .filter(Q(username__iexact=username) | Q(email__iexact=email))
        .order_by("pk")
        .values_list("pk", flat=True)
    )
    by_username = set(User.objects.filter(pk__in=holders, username__iexact=username).values_list("pk", flat=True))
    by_email = set(User.objects.filter(pk__in=holders, email__iexact=email).values_list("pk", flat=True))
    pending = set(_pending_signups().filter(pk__in=holders).values_list("pk", flat=True))
    live = set(_live_codes(now).filter(user_id__in=pending).values_list("user_id", flat=True))
    errors: dict[str, list[str]] = {}
    stale: list[int] = []
    reuse: int | None = None
    for pk in holders:
        if pk in pending and pk in by_email and take_over_pending_email:
            if reuse is None:
                reuse = pk
            else:
                stale.append(pk)
        elif pk not in pending or pk in live:
            if pk in by_username:
                errors["username"] = ["This username is taken."]
            if pk in by_email:
                errors["email"] = ["An account with this email address exists."]
        else:
            stale.append(pk)
    if errors:
        raise InvalidInput(errors)
    User.objects.filter(pk__in=stale).delete()
    return User.objects.get(pk=reuse) if reuse is not None else None


def _save_new_username(user: User) -> None:
    # Two sign-ups racing for one username: the database's unique index decides.
    try:
        with transaction.atomic():
            user.save()
    except IntegrityError:
        raise InvalidInput({"username": ["This username is taken."]}) from None


@transaction.atomic
def player_create(
    *,
    username: str,
    email: str,
    display_name: str | None = None,
    password: str | None = None,
) -> User:
    """A verified, active player. Returns the user; its Player is `user.player`.

    For operators and tests (`manage.py player_create`); people sign up through
    `signup_start`. Without a password the user can only use API tokens.
    """
    _claim_username_and_email(username=username, email=email, now=timezone.now(), take_over_pending_email=False)
    user = User(username=username, email=email, is_active=True)
    if password:
        user.set_password(password)
    else:
        user.set_unusable_password()
    _save_new_username(user)
    Player.objects.create(user=user, display_name=display_name or username, email_verified_at=timezone.now())
    return user


def player_for_user(*, user: User) -> Player:
    """The user's Player, made on first use for users created outside these services
    (such as `createsuperuser`)."""
    try:
        # No query for a user that came with its player (the token lookup loads both).
        return user.player
    except Player.DoesNotExist:
        pass
    player, _ = Player.objects.get_or_create(user=user, defaults={"display_name": user.get_username()})
    return player


def token_create(*, user: User, name: str, scopes: list[str]) -> tuple[ApiToken, str]:
    """A new token for `user`. The plain token is returned here and never again."""
    try:
        granted = scopes_normalise(scopes)
    except ValueError as exc:
        raise InvalidInput({"scopes": [str(exc)]}) from None
    if not granted:
        raise InvalidInput({"scopes": ["Give at least one scope: read or play."]})
    plaintext = token_generate()
    token = ApiToken.objects.create(
        user=user,
        name=name,
        key_hash=token_hash(plaintext),
        prefix=token_public_prefix(plaintext),
        scopes=granted,
    )
    return token, plaintext


def token_revoke(*, token: ApiToken, by_user: User) -> ApiToken:
    """Revoke `token`. Its owner or staff may; revoking twice keeps the first time."""
    if token.user_id != by_user.pk and not by_user.is_staff:
        raise PermissionError("only the token's owner or staff may revoke it")
    ApiToken.objects.filter(pk=token.pk, revoked_at__isnull=True).update(revoked_at=timezone.now())
    token.refresh_from_db(fields=["revoked_at"])
    return token


def _code_hash(code: str) -> str:
    # Keyed, so a leaked table does not let anyone brute-force codes offline.
    return salted_hmac("accounts.email_verification", code.upper()).hexdigest()


def _next_code_at(*, user: User, now: datetime, resend: bool) -> datetime:
    """The earliest time `user` may be sent another code: at most
    VERIFICATION_CODES_PER_DAY a day and, for a resend, not sooner than
    VERIFICATION_RESEND_INTERVAL after the last one."""
    day = timedelta(days=1)
    sent = list(
        EmailVerification.objects.filter(user=user, created_at__gt=now - day)
        .order_by("-created_at")
        .values_list("created_at", flat=True)
    )
    earliest = now
    if resend and sent:
        earliest = max(earliest, sent[0] + VERIFICATION_RESEND_INTERVAL)
    if len(sent) >= VERIFICATION_CODES_PER_DAY:
        earliest = max(earliest, sent[VERIFICATION_CODES_PER_DAY - 1] + day)
    return earliest


def _seconds_until(moment: datetime, now: datetime) -> int:
    return max(1, math.ceil((moment - now).total_seconds()))


def _code_send(*, user: User, display_name: str, now: datetime) -> None:
    """A new code for `user`, emailed after commit. Earlier unused codes stop working."""
    EmailVerification.objects.filter(user=user, used_at__isnull=True, expires_at__gt=now).update(expires_at=now)
    code = "".join(secrets.choice(VERIFICATION_ALPHABET) for _ in range(VERIFICATION_LENGTH))
    EmailVerification.objects.create(user=user, code_hash=_code_hash(code), expires_at=now + VERIFICATION_LIFETIME)
    username, email = user.get_username(), user.email
    message = (
        f"Hello {display_name},\n\n"
        f"Your Splendor by post verification code for the username {username} is:\n\n    {code}\n\n"
        f"Send it with your username to POST /api/v1/players/verify/, e.g.\n"
        f'    {{"username": "{username}", "code": "{code}"}}\n\n'
        f"The code is good for 24 hours; a new one is sent on request to POST /api/v1/players/resend/.\n"
        f"If you did not sign up, ignore this email.\n"
    )
    # On commit: no email for a sign-up that rolled back.
    transaction.on_commit(
        lambda: send_mail("Your Splendor by post verification code", message, None, [email])
    )


@transaction.atomic
def signup_start(*, username: str, email: str, password: str, display_name: str | None = None) -> User:
    """An inactive user and a code emailed to them; `signup_verify` activates it.

    A sign-up that was never verified gives way to this one: see
    `_claim_username_and_email`. Signing up again with the same address reuses
    that account, and counts against its VERIFICATION_CODES_PER_DAY.
    """
    now = timezone.now()
    user = _claim_username_and_email(username=username, email=email, now=now, take_over_pending_email=True)
    if user is not None:
        next_code_at = _next_code_at(user=user, now=now, resend=False)
        if next_code_at > now:
            raise TooManyCodesError(retry_after=_seconds_until(next_code_at, now))
    else:
        user = User(is_active=False)
    user.username, user.email = username, email
    try:
        validate_password(password, user=user)
    except DjangoValidationError as exc:
        raise InvalidInput({"password": list(exc.messages)}) from None
    user.set_password(password)
    _save_new_username(user)
    Player.objects.update_or_create(user=user, defaults={"display_name": display_name or username})
    _code_send(user=user, display_name=display_name or username, now=now)
    return user


def signup_code_resend(*, username: str | None = None, email: str | None = None) -> None:
    """Email a new code to the sign-up waiting under `username` (or `email`), if any.

    Returns nothing either way, and does nothing beyond the limits
    (VERIFICATION_RESEND_INTERVAL, VERIFICATION_CODES_PER_DAY): the caller's
    answer must not tell whether an account or an address exists.
    """
    if not username and not email:
        raise InvalidInput({"username": ["Give the username or the email address you signed up with."]})
    now = timezone.now()
    with transaction.atomic():
        waiting = _pending_signups().select_for_update(of=("self",))
        waiting = waiting.filter(username__iexact=username) if username else waiting.filter(email__iexact=email)
        user = waiting.select_related("player").first()
        if user is None or _next_code_at(user=user, now=now, resend=True) > now:
            return
        _code_send(user=user, display_name=user.player.display_name, now=now)


def signup_verify(*, code: str, username: str | None = None, email: str | None = None) -> User:
    """Activate the account waiting for `code`. Wrong codes count against a limit."""
    if not username and not email:
        raise InvalidInput({"username": ["Give the username or the email address you signed up with."]})
    users = User.objects.filter(username__iexact=username) if username else User.objects.filter(email__iexact=email)
    user = users.filter(is_active=False, player__email_verified_at__isnull=True).first()
    verification = (
        EmailVerification.objects.filter(user=user, used_at__isnull=True).order_by("-created_at", "-id").first()
        if user is not None
        else None
    )
    if user is None or verification is None:
        raise VerificationError("No account is waiting for verification under that name. Sign up first.")

    now = timezone.now()
    if verification.failed_attempts >= VERIFICATION_MAX_ATTEMPTS:
        raise TooManyAttemptsError(retry_after=_seconds_until(_next_code_at(user=user, now=now, resend=True), now))
    if verification.expires_at <= now:
        raise VerificationExpiredError()
    if not constant_time_compare(verification.code_hash, _code_hash(code.strip())):
        EmailVerification.objects.filter(pk=verification.pk).update(failed_attempts=F("failed_attempts") + 1)
        left = VERIFICATION_MAX_ATTEMPTS - verification.failed_attempts - 1
        if left <= 0:
            raise TooManyAttemptsError(retry_after=_seconds_until(_next_code_at(user=user, now=now, resend=True), now))
        raise VerificationError(
            f"That code is not right; {left} more {'try' if left == 1 else 'tries'} before it stops working.",
            attempts_left=left,
        )

    with transaction.atomic():
        # Conditional, so two requests with the same code activate once.
        claimed = EmailVerification.objects.filter(pk=verification.pk, used_at__isnull=True).update(used_at=now)
        if not claimed:
            raise VerificationError("That code was already used.")
        User.objects.filter(pk=user.pk).update(is_active=True)
        Player.objects.filter(user=user).update(email_verified_at=now)
    user.refresh_from_db()
    return user


# --- password checks ---------------------------------------------------------------


def _username_digest(username: str) -> str:
    return hashlib.sha256(username.strip().lower().encode("utf-8")).hexdigest()


def login_check(*, username: str, password: str) -> User:
    """The active, verified account these credentials name.

    Password guessing is slowed per username, whatever address the guesses come
    from: after LOGIN_FAILURES_BEFORE_LOCKOUT wrong passwords in a row, no
    password is checked for LOGIN_LOCKOUT_SECONDS, doubling with each further
    wrong one (LoginLockedError, with ``retry_after``). It works the same for a
    username that has no account, so the answer tells nothing about who has one.
    A right password clears the count.
    """
    now = timezone.now()
    digest = _username_digest(username)
    record = PasswordFailures.objects.filter(username_digest=digest).first()
    if record is not None and record.locked_until is not None and record.locked_until > now:
        raise LoginLockedError(retry_after=math.ceil((record.locked_until - now).total_seconds()))
    user = authenticate(username=username, password=password)
    if user is not None:
        if record is not None:
            record.delete()
        return user
    with transaction.atomic():
        record, _ = PasswordFailures.objects.select_for_update().get_or_create(
            username_digest=digest, defaults={"last_failure_at": now}
        )
        record.failures += 1
        record.last_failure_at = now
        over = record.failures - settings.LOGIN_FAILURES_BEFORE_LOCKOUT
        if over >= 0:
            seconds = settings.LOGIN_LOCKOUT_SECONDS * 2 ** min(over, 12)
            record.locked_until = now + timedelta(seconds=seconds)
        record.save()
    raise InvalidCredentialsError()


# --- disabling ------------------------------------------------------------------------


def player_disable(*, user: User) -> None:
    """Disable an account: it can no longer sign in and its tokens stop working
    (the authentication refuses inactive accounts). Once this commits,
    ``account_disabled`` tells the other apps, so that its seats do not hang
    until their deadlines. Disabling a disabled account does nothing."""
    with transaction.atomic():
        updated = User.objects.filter(pk=user.pk, is_active=True).update(is_active=False)
        user.is_active = False
        if updated:
            user_id = user.pk
            transaction.on_commit(lambda: account_disabled.send(sender=User, user_id=user_id))
