"""Writes for the accounts app: players, sign-up by email, API tokens."""

from __future__ import annotations

import secrets
from datetime import timedelta

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError as DjangoValidationError
from django.core.mail import send_mail
from django.db import transaction
from django.db.models import F
from django.utils import timezone
from django.utils.crypto import constant_time_compare, salted_hmac
from rest_framework.exceptions import ValidationError

from accounts.errors import TooManyAttemptsError, VerificationError, VerificationExpiredError
from accounts.models import ApiToken, EmailVerification, Player, scopes_normalise
from accounts.tokens import token_generate, token_hash, token_public_prefix

User = get_user_model()

VERIFICATION_LIFETIME = timedelta(hours=24)
VERIFICATION_MAX_ATTEMPTS = 5
# No 0/O/1/I/L: the code is read from an email and typed by hand. 10 characters
# of 31 give ~50 bits; with 5 tries per code, guessing is hopeless.
VERIFICATION_ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"
VERIFICATION_LENGTH = 10


def _check_username_and_email_free(*, username: str, email: str) -> None:
    errors: dict[str, list[str]] = {}
    if User.objects.filter(username__iexact=username).exists():
        errors["username"] = ["This username is taken."]
    if User.objects.filter(email__iexact=email).exists():
        errors["email"] = ["An account with this email address exists."]
    if errors:
        raise ValidationError(errors)


@transaction.atomic
def player_create(
    *,
    username: str,
    email: str,
    display_name: str | None = None,
    password: str | None = None,
) -> AbstractBaseUser:
    """A verified, active player. Returns the user; its Player is `user.player`.

    For operators and tests (`manage.py player_create`); people sign up through
    `signup_start`. Without a password the user can only use API tokens.
    """
    _check_username_and_email_free(username=username, email=email)
    user = User(username=username, email=email, is_active=True)
    if password:
        user.set_password(password)
    else:
        user.set_unusable_password()
    user.save()
    Player.objects.create(user=user, display_name=display_name or username, email_verified_at=timezone.now())
    return user


def player_for_user(*, user: AbstractBaseUser) -> Player:
    """The user's Player, made on first use for users created outside these services
    (such as `createsuperuser`)."""
    player, _ = Player.objects.get_or_create(user=user, defaults={"display_name": user.get_username()})
    return player


def token_create(*, user: AbstractBaseUser, name: str, scopes: list[str]) -> tuple[ApiToken, str]:
    """A new token for `user`. The plain token is returned here and never again."""
    try:
        granted = scopes_normalise(scopes)
    except ValueError as exc:
        raise ValidationError({"scopes": [str(exc)]}) from None
    if not granted:
        raise ValidationError({"scopes": ["Give at least one scope: read or play."]})
    plaintext = token_generate()
    token = ApiToken.objects.create(
        user=user,
        name=name,
        key_hash=token_hash(plaintext),
        prefix=token_public_prefix(plaintext),
        scopes=granted,
    )
    return token, plaintext


def token_revoke(*, token: ApiToken, by_user: AbstractBaseUser) -> ApiToken:
    """Revoke `token`. Its owner or staff may; revoking twice keeps the first time."""
    if token.user_id != by_user.pk and not getattr(by_user, "is_staff", False):
        raise PermissionError("only the token's owner or staff may revoke it")
    ApiToken.objects.filter(pk=token.pk, revoked_at__isnull=True).update(revoked_at=timezone.now())
    token.refresh_from_db(fields=["revoked_at"])
    return token


def _code_hash(code: str) -> str:
    # Keyed, so a leaked table does not let anyone brute-force codes offline.
    return salted_hmac("accounts.email_verification", code.upper()).hexdigest()


@transaction.atomic
def signup_start(*, username: str, email: str, password: str, display_name: str | None = None) -> AbstractBaseUser:
    """An inactive user and a code emailed to them; `signup_verify` activates it."""
    _check_username_and_email_free(username=username, email=email)
    user = User(username=username, email=email, is_active=False)
    try:
        validate_password(password, user=user)
    except DjangoValidationError as exc:
        raise ValidationError({"password": list(exc.messages)}) from None
    user.set_password(password)
    user.save()
    Player.objects.create(user=user, display_name=display_name or username)

    code = "".join(secrets.choice(VERIFICATION_ALPHABET) for _ in range(VERIFICATION_LENGTH))
    EmailVerification.objects.create(
        user=user, code_hash=_code_hash(code), expires_at=timezone.now() + VERIFICATION_LIFETIME
    )
    message = (
        f"Hello {display_name or username},\n\n"
        f"Your Splendor by post verification code is:\n\n    {code}\n\n"
        f"Send it with your username to POST /api/v1/players/verify/, e.g.\n"
        f'    {{"username": "{username}", "code": "{code}"}}\n\n'
        f"The code is good for 24 hours. If you did not sign up, ignore this email.\n"
    )
    # On commit: no email for a sign-up that rolled back.
    transaction.on_commit(
        lambda: send_mail("Your Splendor by post verification code", message, None, [email])
    )
    return user


def signup_verify(*, code: str, username: str | None = None, email: str | None = None) -> AbstractBaseUser:
    """Activate the account waiting for `code`. Wrong codes count against a limit."""
    if not username and not email:
        raise ValidationError({"username": ["Give the username or the email address you signed up with."]})
    users = User.objects.filter(username__iexact=username) if username else User.objects.filter(email__iexact=email)
    user = users.filter(is_active=False, player__email_verified_at__isnull=True).first()
    verification = (
        EmailVerification.objects.filter(user=user, used_at__isnull=True).order_by("-created_at").first()
        if user is not None
        else None
    )
    if verification is None:
        raise VerificationError("No account is waiting for verification under that name. Sign up first.")

    now = timezone.now()
    if verification.failed_attempts >= VERIFICATION_MAX_ATTEMPTS:
        raise TooManyAttemptsError()
    if verification.expires_at <= now:
        raise VerificationExpiredError()
    if not constant_time_compare(verification.code_hash, _code_hash(code.strip())):
        EmailVerification.objects.filter(pk=verification.pk).update(failed_attempts=F("failed_attempts") + 1)
        left = VERIFICATION_MAX_ATTEMPTS - verification.failed_attempts - 1
        if left <= 0:
            raise TooManyAttemptsError()
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
