"""Writes for the accounts app: players, sign-up by email, API tokens, token
recovery by email, passwords, and erasing an account."""

from __future__ import annotations

import hashlib
import logging
import math
import secrets
from datetime import datetime, timedelta
from functools import cache
from typing import TYPE_CHECKING
from zoneinfo import available_timezones

from django.conf import settings
from django.contrib.admin.models import LogEntry
from django.contrib.auth import authenticate, get_user_model
from django.contrib.contenttypes.models import ContentType
from django.contrib.auth.password_validation import validate_password
from django.contrib.auth.validators import UnicodeUsernameValidator
from django.core.exceptions import ValidationError as DjangoValidationError
from django.core import signing
from django.core.mail import send_mail
from django.core.validators import MaxLengthValidator, validate_email
from django.db import IntegrityError, transaction
from django.db.models import F, Q, QuerySet
from django.utils import timezone
from django.utils.crypto import constant_time_compare, salted_hmac

from accounts.errors import (
    AccountSuspendedError,
    ConfirmationRequiredError,
    InvalidCredentialsError,
    InvalidInput,
    LoginLockedError,
    TooManyAttemptsError,
    TooManyCodesError,
    VerificationError,
    VerificationExpiredError,
)
from accounts.models import (
    AccountEmailSent,
    ApiToken,
    EmailVerification,
    PasswordFailures,
    Player,
    Scope,
    UsernameSkeleton,
    scopes_normalise,
)
from accounts.names import (
    display_name_refusal,
    name_characters_refused,
    name_for_plain_text,
    username_skeleton,
    username_skeleton_digest,
)
from accounts.signals import (
    account_disabled,
    account_erased,
    player_suspended,
    player_warned,
    time_zone_changed,
)
from accounts.tokens import token_generate, token_hash, token_public_prefix
from core.queue import task_send

if TYPE_CHECKING:
    # AUTH_USER_MODEL, as the mypy plugin reads it from the settings.
    from django.contrib.auth.models import User
else:
    User = get_user_model()

logger = logging.getLogger(__name__)

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
# A recovery code mints a token: it works for a shorter time than a sign-up's.
RECOVERY_LIFETIME = timedelta(hours=1)
CODE_LIFETIME: dict[str, timedelta] = {
    EmailVerification.Purpose.SIGNUP: VERIFICATION_LIFETIME,
    EmailVerification.Purpose.TOKEN_RECOVERY: RECOVERY_LIFETIME,
}

# Every fixed segment of the site's paths. A player named like one would have a
# profile (GET /api/v1/players/{username}/) hidden behind a fixed path, or a
# name that reads as part of the API; tests/accounts/test_reserved_usernames.py
# checks that this covers every path in the URLconf.
RESERVED_USERNAMES = frozenset(
    {
        "admin", "api", "v1", "schema", "docs", "healthz", "static",
        "players", "verify", "resend", "tokens", "recover", "confirm", "me", "export", "password",
        "games", "join", "legal-moves", "moves", "resign", "cancel", "decline",
        "notifications", "mute", "vacation", "link", "rotate",
        "webhooks", "deliveries", "rotate-secret", "favicon.ico",
        "leagues", "leave", "next-game", "ratings", "seasons", "standings", "settings",
        "accounts", "problems",
    }
)
# An erased account becomes `deleted-<id>`, shown as `deleted player <id>`:
# nobody else may take names that read as one.
ERASED_USERNAME_PREFIX = "deleted-"
ERASED_DISPLAY_NAME_PREFIX = "deleted player"


def _pending_signups() -> QuerySet[User]:
    """Users who signed up and never verified their email address."""
    return User.objects.filter(is_active=False, player__isnull=False, player__email_verified_at__isnull=True)


def _live_codes(now: datetime) -> QuerySet[EmailVerification]:
    """Codes that can still activate an account: unused, unexpired, not guessed at too often."""
    return EmailVerification.objects.filter(
        purpose=EmailVerification.Purpose.SIGNUP,
        used_at__isnull=True,
        expires_at__gt=now,
        failed_attempts__lt=VERIFICATION_MAX_ATTEMPTS,
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


@cache
def _reserved_skeletons() -> frozenset[str]:
    return frozenset(username_skeleton(name) for name in RESERVED_USERNAMES)


def _refuse_names(*, username: str, display_name: str | None) -> None:
    """Refuse a username that is not made of letters, digits and @ . + - _, or
    that is (or looks like: accounts.names) one of RESERVED_USERNAMES or reads as
    an erased account's; and a display name with control characters or one that
    reads as an erased account's."""
    errors: dict[str, list[str]] = {}
    skeleton = username_skeleton(username)
    try:
        UnicodeUsernameValidator()(username)
        MaxLengthValidator(User._meta.get_field("username").max_length)(username)
    except DjangoValidationError as exc:
        errors["username"] = list(exc.messages)
    else:
        if skeleton in _reserved_skeletons():
            errors["username"] = [
                f'"{username}" is reserved: it is part of the API\'s paths. Choose another username.'
            ]
        elif skeleton.startswith(username_skeleton(ERASED_USERNAME_PREFIX)):
            errors["username"] = [
                f'Usernames starting with "{ERASED_USERNAME_PREFIX}" are kept for erased accounts. '
                "Choose another username."
            ]
    if display_name:
        refused = name_characters_refused(display_name)
        if refused:
            errors["display_name"] = [display_name_refusal(refused)]
        elif display_name.strip().lower().startswith(ERASED_DISPLAY_NAME_PREFIX):
            errors["display_name"] = [
                f'Display names starting with "{ERASED_DISPLAY_NAME_PREFIX}" are kept for erased accounts. '
                "Choose another display name."
            ]
    if errors:
        raise InvalidInput(errors)


def _refuse_lookalike_username(*, username: str, now: datetime, keep: User | None) -> None:
    """Refuse a username whose confusable skeleton (accounts.names) is another
    account's: ``аlice`` with a Cyrillic а beside ``alice``. Accounts that share
    a skeleton already keep their names; a sign-up whose code is dead holds no
    name (as in ``_claim_username_and_email``), and ``keep`` is the sign-up
    being reused. Call after ``_claim_username_and_email``, which has refused
    or cleared the holders of the very same name."""
    holders = UsernameSkeleton.objects.filter(digest=username_skeleton_digest(username))
    if keep is not None:
        holders = holders.exclude(user_id=keep.pk)
    dead_signups = _pending_signups().exclude(pk__in=_live_codes(now).values("user_id"))
    if holders.exclude(user_id__in=dead_signups.values("pk")).exists():
        raise InvalidInput(
            {
                "username": [
                    f'"{username}" looks too much like the username of another account (letters of another '
                    "alphabet, or characters that look alike). Choose another username."
                ]
            }
        )


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
    now = timezone.now()
    _refuse_names(username=username, display_name=display_name)
    _claim_username_and_email(username=username, email=email, now=now, take_over_pending_email=False)
    _refuse_lookalike_username(username=username, now=now, keep=None)
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


def player_time_zone_set(*, user: User, time_zone: str) -> Player:
    """Set the player's time zone, an IANA name such as "Europe/Riga" (as the
    time zone database spells it). Deadlines in email and the digest hour are
    read in it; ``time_zone_changed`` goes out once the change commits."""
    if not isinstance(time_zone, str) or time_zone not in available_timezones():
        example = 'send one such as "Europe/Riga" or "UTC"'
        raise InvalidInput({"time_zone": [f"{time_zone!r} is not an IANA time zone name; {example}."]})
    with transaction.atomic():
        player = player_for_user(user=user)
        if player.time_zone != time_zone:
            player.time_zone = time_zone
            player.save(update_fields=["time_zone"])
            user_id = user.pk
            transaction.on_commit(lambda: time_zone_changed.send(sender=Player, user_id=user_id))
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


def _next_code_at(
    *, user: User, now: datetime, resend: bool, purpose: str = EmailVerification.Purpose.SIGNUP
) -> datetime:
    """The earliest time `user` may be sent another code for `purpose`: at most
    VERIFICATION_CODES_PER_DAY a day and, for a resend, not sooner than
    VERIFICATION_RESEND_INTERVAL after the last one."""
    day = timedelta(days=1)
    sent = list(
        EmailVerification.objects.filter(user=user, purpose=purpose, created_at__gt=now - day)
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


def _code_send(*, user: User, now: datetime, purpose: str) -> None:
    """A new code for `user`, emailed after commit. Earlier unused codes for the
    same purpose stop working."""
    EmailVerification.objects.filter(user=user, purpose=purpose, used_at__isnull=True, expires_at__gt=now).update(
        expires_at=now
    )
    salt = secrets.token_hex(16)
    code = _code_from_salt(salt)
    verification = EmailVerification.objects.create(
        user=user,
        purpose=purpose,
        code_hash=_code_hash(code),
        code_salt=salt,
        expires_at=now + CODE_LIFETIME[purpose],
    )
    verification_id = verification.pk
    # On commit: no email for a sign-up that rolled back.
    transaction.on_commit(lambda: _code_email_queue(verification_id=verification_id))


def _code_from_salt(salt: str) -> str:
    """The code for a salt: keyed with SECRET_KEY, so neither the salt in the
    database nor a task message (which carries only the row's id) reveals it."""
    digest = salted_hmac("accounts.email_code", salt).digest()
    return "".join(VERIFICATION_ALPHABET[byte % len(VERIFICATION_ALPHABET)] for byte in digest[:VERIFICATION_LENGTH])


def _code_email_queue(*, verification_id: int) -> None:
    """Have the email with a code sent by a Celery worker (``accounts.tasks``), so
    that an answer which must not tell whether an address has an account takes
    no longer when a code is sent than when none is. A broker that refuses the
    task: the email is sent from this process instead. The task carries only the
    code's id; the worker derives the code again (``_code_from_salt``)."""
    try:
        task_send("accounts.tasks.send_code_email", verification_id)
        return
    except Exception:
        logger.warning(
            "could not queue the email for code %s; sending it from this process", verification_id, exc_info=True
        )
    try:
        code_email_send(verification_id=verification_id)
    except Exception:
        # Logged, not raised: the answer must not differ for addresses that have an account.
        logger.exception("could not send the email for code %s", verification_id)


def _site_url() -> str:
    return str(getattr(settings, "SITE_URL", "")).rstrip("/")


def _code_email(verification: EmailVerification, code: str) -> tuple[str, str]:
    """The subject and body of the email carrying `code`."""
    user = verification.user
    # On lines of plain text: a name stored before control characters were refused must not break them.
    username = name_for_plain_text(user.get_username())
    display_name = name_for_plain_text(getattr(getattr(user, "player", None), "display_name", "")) or username
    if verification.purpose == EmailVerification.Purpose.TOKEN_RECOVERY:
        minutes = int(RECOVERY_LIFETIME.total_seconds()) // 60
        return "Your Splendor by post token recovery code", (
            f"Hello {display_name},\n\n"
            f"Someone asked for a new API token for the account {username} on Splendor by post. The code is:\n\n"
            f"    {code}\n\n"
            f"Send it with this email address and a name for the token to POST /api/v1/tokens/recover/confirm/, e.g.\n"
            f'    {{"email": "{user.email}", "code": "{code}", "name": "laptop"}}\n\n'
            f"The code is good for {minutes} minutes. If you did not ask for it, ignore this email: "
            f"nothing changes without the code.\n"
        )
    return "Your Splendor by post verification code", (
        f"Hello {display_name},\n\n"
        f"Your Splendor by post verification code for the username {username} is:\n\n    {code}\n\n"
        f"Signing up in a browser? Type it on the page that asked for it ({_site_url()}/accounts/signup/verify/).\n"
        f"Signing up through the API? Send it with your username to POST /api/v1/players/verify/, e.g.\n"
        f'    {{"username": "{username}", "code": "{code}"}}\n\n'
        f"The code is good for 24 hours; a new one is sent on request to POST /api/v1/players/resend/.\n"
        f"If you did not sign up, ignore this email.\n"
    )


def code_email_send(*, verification_id: int) -> bool:
    """Email the code of this verification to the account it was made for
    (``accounts.tasks.send_code_email`` runs this). Sends nothing for a code that
    has since been used, replaced or has expired; returns whether it sent."""
    verification = (
        EmailVerification.objects.select_related("user__player")
        .filter(pk=verification_id, used_at__isnull=True, expires_at__gt=timezone.now())
        .first()
    )
    if verification is None or not verification.user.email or not verification.code_salt:
        return False
    code = _code_from_salt(verification.code_salt)
    if not constant_time_compare(verification.code_hash, _code_hash(code)):
        return False  # SECRET_KEY changed since the code was made: it can no longer be sent
    subject, body = _code_email(verification, code)
    send_mail(subject, body, None, [verification.user.email])
    return True


@transaction.atomic
def signup_start(
    *, username: str, email: str, password: str, client: str, display_name: str | None = None
) -> User:
    """An inactive user and a code emailed to them; `signup_verify` activates it.

    A sign-up that was never verified gives way to this one: see
    `_claim_username_and_email`. Signing up again with the same address reuses
    that account, and counts against its VERIFICATION_CODES_PER_DAY. The code
    email counts against the limits per address and per client (``client``, the
    caller's address: ``account_email_take``); past them nothing is made and
    TooManyCodesError says when to try again.
    """
    now = timezone.now()
    _refuse_names(username=username, display_name=display_name)
    user = _claim_username_and_email(username=username, email=email, now=now, take_over_pending_email=True)
    _refuse_lookalike_username(username=username, now=now, keep=user)
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
    wait = account_email_take(kind=AccountEmailSent.Kind.SIGNUP_CODE, address=email, client=client, now=now)
    if wait:
        raise TooManyCodesError(
            "As many emails with codes as may be sent in a while have gone to this address, or been asked for from "
            "your address. Try again after Retry-After.",
            retry_after=wait,
        )
    user.set_password(password)
    _save_new_username(user)
    Player.objects.update_or_create(user=user, defaults={"display_name": display_name or username})
    _code_send(user=user, now=now, purpose=EmailVerification.Purpose.SIGNUP)
    return user


def signup_code_resend(*, client: str, username: str | None = None, email: str | None = None) -> None:
    """Email a new code to the sign-up waiting under `username` (or `email`), if any.

    Returns nothing either way, and does nothing beyond the limits
    (VERIFICATION_RESEND_INTERVAL, VERIFICATION_CODES_PER_DAY, and per address and
    per ``client``: ``account_email_take``): the caller's answer must not tell
    whether an account or an address exists, or whether an email went.
    """
    if not username and not email:
        raise InvalidInput({"username": ["Give the username or the email address you signed up with."]})
    now = timezone.now()
    with transaction.atomic():
        waiting = _pending_signups().select_for_update(of=("self",))
        waiting = waiting.filter(username__iexact=username) if username else waiting.filter(email__iexact=email)
        user = waiting.first()
        if user is None or _next_code_at(user=user, now=now, resend=True) > now:
            return
        kind = AccountEmailSent.Kind.SIGNUP_CODE
        if account_email_take(kind=kind, address=user.email, client=client, now=now):
            return
        _code_send(user=user, now=now, purpose=EmailVerification.Purpose.SIGNUP)


def signup_verify(*, code: str, username: str | None = None, email: str | None = None) -> User:
    """Activate the account waiting for `code`. Wrong codes count against a limit."""
    if not username and not email:
        raise InvalidInput({"username": ["Give the username or the email address you signed up with."]})
    users = User.objects.filter(username__iexact=username) if username else User.objects.filter(email__iexact=email)
    user = users.filter(is_active=False, player__email_verified_at__isnull=True).first()
    verification = (
        EmailVerification.objects.filter(user=user, purpose=EmailVerification.Purpose.SIGNUP, used_at__isnull=True)
        .order_by("-created_at", "-id")
        .first()
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


def _client_digest(client: str) -> str:
    # Keyed: a plain hash of an IPv4 address is reversed by trying all 2**32 of them.
    return salted_hmac("accounts.client_address", client.strip(), algorithm="sha256").hexdigest()


def login_check(*, username: str, password: str, client: str) -> User:
    """The active, verified account these credentials name.

    Password guessing is slowed per username *and* client address (``client``,
    as api.client_address tells it): after LOGIN_FAILURES_BEFORE_LOCKOUT wrong
    passwords in a row for one username from one address, no password for that
    username is checked from that address for LOGIN_LOCKOUT_SECONDS, doubling
    with each further wrong one up to LOGIN_LOCKOUT_MAX_SECONDS
    (LoginLockedError, with ``retry_after``). A stranger's guesses lock out only
    the stranger: the owner, from their own address, logs in as usual. It works
    the same for a username that has no account, so the answer tells nothing
    about who has one. A right password clears the count for its address. The
    counting is done by the authentication backend (accounts.backends), so the
    admin's login page is held to the same limit. A suspended account is refused
    with AccountSuspendedError, but only to someone who gave its right password.
    """
    seconds = password_lock_seconds(username=username, client=client)
    if seconds:
        raise LoginLockedError(retry_after=seconds)
    user = authenticate(username=username, password=password, client=client)
    if user is None:
        if password_names_suspended_account(username=username, password=password):
            raise AccountSuspendedError()
        raise InvalidCredentialsError()
    return user


def password_names_suspended_account(*, username: str, password: str) -> bool:
    """Whether these are the right credentials of an active, suspended account
    (which the authentication backend refuses). The password is checked only
    for a suspended account, so other failed logins cost no second hash."""
    user = User.objects.select_related("player").filter(username=username, is_active=True).first()
    player = getattr(user, "player", None) if user is not None else None
    if user is None or player is None or not player.is_suspended:
        return False
    return bool(user.check_password(password))


def _password_failures(*, username: str, client: str) -> QuerySet[PasswordFailures]:
    return PasswordFailures.objects.filter(
        username_digest=_username_digest(username), client_digest=_client_digest(client)
    )


def password_lock_seconds(*, username: str, client: str, now: datetime | None = None) -> int:
    """Seconds until passwords for ``username`` are checked again from the
    client address ``client`` (0: now)."""
    now = now or timezone.now()
    record = _password_failures(username=username, client=client).first()
    if record is None or record.locked_until is None or record.locked_until <= now:
        return 0
    return math.ceil((record.locked_until - now).total_seconds())


def password_lock_for(*, failures: int) -> timedelta | None:
    """How long passwords stay unchecked after ``failures`` wrong ones in a row:
    none below LOGIN_FAILURES_BEFORE_LOCKOUT, then LOGIN_LOCKOUT_SECONDS, doubling
    with each further one, never more than LOGIN_LOCKOUT_MAX_SECONDS (so a lock
    always ends soon enough for the owner of a shared address to try again)."""
    over = failures - settings.LOGIN_FAILURES_BEFORE_LOCKOUT
    if over < 0:
        return None
    # The exponent is bounded before the multiplication: the cap decides, not the size of 2**over.
    seconds = settings.LOGIN_LOCKOUT_SECONDS * 2 ** min(over, 32)
    return timedelta(seconds=min(seconds, settings.LOGIN_LOCKOUT_MAX_SECONDS))


def password_failure_record(*, username: str, client: str) -> None:
    """Count a wrong password for ``username`` from ``client``; past the limit,
    lock that pair for a while (``password_lock_for``)."""
    now = timezone.now()
    with transaction.atomic():
        record, _ = PasswordFailures.objects.select_for_update().get_or_create(
            username_digest=_username_digest(username),
            client_digest=_client_digest(client),
            defaults={"last_failure_at": now},
        )
        record.failures += 1
        record.last_failure_at = now
        lock = password_lock_for(failures=record.failures)
        if lock is not None:
            record.locked_until = now + lock
        record.save()


def password_failures_clear(*, username: str, client: str | None = None) -> None:
    """Forget the wrong passwords given for ``username`` from ``client``, or from
    every address when it is None (a new password: every lock on it is lifted)."""
    records = PasswordFailures.objects.filter(username_digest=_username_digest(username))
    if client is not None:
        records = records.filter(client_digest=_client_digest(client))
    records.delete()


def password_failures_forget_old(*, now: datetime | None = None) -> int:
    """Delete counts of wrong passwords that are a day old and hold no lock, so
    guesses at made-up usernames do not pile up. Returns how many."""
    now = now or timezone.now()
    deleted, _ = (
        PasswordFailures.objects.filter(last_failure_at__lt=now - timedelta(days=1))
        .exclude(locked_until__gt=now)
        .delete()
    )
    return deleted


# --- emails with codes and links, limited per address and per client ---------------------

_RATE_PERIODS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


def _rate(text: str) -> tuple[int, timedelta]:
    """A rate such as "5/hour" (as settings.env_rate allows) as a count and a window."""
    count, _, period = text.partition("/")
    return int(count), timedelta(seconds=_RATE_PERIODS[period.strip()[0]])


def _email_digest_for_limits(address: str) -> str:
    # Keyed, as the client's: the row must not give an address back to whoever reads the table.
    return salted_hmac("accounts.account_email", address.strip().lower(), algorithm="sha256").hexdigest()


def _wait_under(rate: str, sent: QuerySet[AccountEmailSent], now: datetime) -> int:
    """Seconds until one more fits under ``rate`` for the rows ``sent`` (0: now)."""
    limit, window = _rate(rate)
    recent = list(sent.filter(sent_at__gt=now - window).order_by("-sent_at").values_list("sent_at", flat=True)[:limit])
    if len(recent) < limit:
        return 0
    return _seconds_until(recent[limit - 1] + window, now)


def account_email_take(*, kind: str, address: str, client: str, now: datetime | None = None) -> int:
    """Count an email with a code or a link to ``address``, asked for by the client
    address ``client``, and return 0; or, when the address has been sent
    ACCOUNT_EMAIL_ADDRESS_RATE already or the client has asked for
    ACCOUNT_EMAIL_CLIENT_RATE, count nothing and return the seconds until it may.

    The caller sends the email only on 0. Where the answer must not tell whether
    an address has an account, the caller answers the same either way.
    """
    now = now or timezone.now()
    address_digest, client_digest = _email_digest_for_limits(address), _client_digest(client)
    to_address = AccountEmailSent.objects.filter(address_digest=address_digest)
    from_client = AccountEmailSent.objects.filter(client_digest=client_digest)
    wait = max(
        _wait_under(settings.ACCOUNT_EMAIL_ADDRESS_RATE, to_address, now),
        _wait_under(settings.ACCOUNT_EMAIL_CLIENT_RATE, from_client, now),
    )
    if wait:
        logger.info("an account email (%s) was not sent: over the limit per address or per client", kind)
        return wait
    AccountEmailSent.objects.create(kind=kind, address_digest=address_digest, client_digest=client_digest, sent_at=now)
    return 0


def account_emails_forget_old(*, now: datetime | None = None) -> int:
    """Delete the records of account emails older than either limit's window.
    Returns how many."""
    now = now or timezone.now()
    longest = max(_rate(settings.ACCOUNT_EMAIL_ADDRESS_RATE)[1], _rate(settings.ACCOUNT_EMAIL_CLIENT_RATE)[1])
    deleted, _ = AccountEmailSent.objects.filter(sent_at__lt=now - longest).delete()
    return deleted


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


# --- suspension (by a moderator) -------------------------------------------------------


def player_suspend(*, user: User, by_user: User, reason: str) -> bool:
    """Suspend an account: its API tokens and seat links stop working, it cannot
    log in (accounts.backends) and it cannot move, but it keeps its seats, whose
    turns time out as usual. ``by_user`` and ``reason`` are for the caller's
    record (games.moderation logs them); a reason is required. False when the
    account was already suspended. Once the suspension commits,
    ``player_suspended`` is sent (notifications emails the player the reason)."""
    if not reason.strip():
        raise InvalidInput({"reason": ["Say why the account is suspended."]})
    with transaction.atomic():
        player = player_for_user(user=user)
        updated = Player.objects.filter(pk=player.pk, suspended_at__isnull=True).update(suspended_at=timezone.now())
        player.refresh_from_db(fields=["suspended_at"])
        logger.info("account %s suspended by user %s", user.pk, by_user.pk)
        if updated == 1 and player.suspended_at is not None:
            user_id, at, text = user.pk, player.suspended_at, reason.strip()
            transaction.on_commit(
                lambda: player_suspended.send(sender=Player, user_id=user_id, reason=text, suspended_at=at)
            )
    return updated == 1


def player_warn(*, user: User, by_user: User, reason: str, warning_id: int, game_id: str | None = None) -> None:
    """Tell the other apps, once the caller's transaction commits, that a
    moderator warned this player (``player_warned``: notifications emails the
    player the reason). ``warning_id`` names the caller's record of the warning
    (games.moderation's log entry), so each warning is told once."""
    text = reason.strip()
    if not text:
        raise InvalidInput({"reason": ["Say what the player is warned about."]})
    logger.info("account %s warned by user %s", user.pk, by_user.pk)
    user_id = user.pk
    transaction.on_commit(
        lambda: player_warned.send(
            sender=Player, user_id=user_id, reason=text, warning_id=warning_id, game_id=game_id
        )
    )


def player_unsuspend(*, user: User, by_user: User) -> bool:
    """Lift a suspension: the account's tokens and links work again. False when it
    was not suspended."""
    player = player_for_user(user=user)
    updated = Player.objects.filter(pk=player.pk, suspended_at__isnull=False).update(suspended_at=None)
    player.refresh_from_db(fields=["suspended_at"])
    logger.info("account %s unsuspended by user %s", user.pk, by_user.pk)
    return updated == 1


# --- passwords -------------------------------------------------------------------------


def password_set(*, user: User, password: str) -> None:
    """Give the account a password (or a new one), checked by AUTH_PASSWORD_VALIDATORS.
    Every lock from earlier wrong passwords for its username, from any address, is lifted."""
    try:
        validate_password(password, user=user)
    except DjangoValidationError as exc:
        raise InvalidInput({"password": list(exc.messages)}) from None
    user.set_password(password)
    user.save(update_fields=["password"])
    password_failures_clear(username=user.get_username())


# --- token recovery by email -------------------------------------------------------------

RECOVERY_FAILED = (
    "That code is not right for that address, or it has expired, been used or been tried too often. "
    "Ask for a new one at POST /api/v1/tokens/recover/."
)


def _recoverable_accounts() -> QuerySet[User]:
    """Active, verified, not erased: the accounts a recovery code may be sent for."""
    return User.objects.filter(
        is_active=True, player__email_verified_at__isnull=False, player__erased_at__isnull=True
    )


def token_recovery_start(*, email: str, client: str) -> None:
    """Email a one-time code to the account with this address, if there is one,
    for ``token_recovery_confirm``. Earlier recovery codes stop working.

    Returns nothing either way, and does nothing beyond the limits
    (VERIFICATION_RESEND_INTERVAL, VERIFICATION_CODES_PER_DAY, and per address and
    per ``client``: ``account_email_take``): the caller's answer must not tell
    whether an address has an account, or whether an email went.
    """
    now = timezone.now()
    purpose = EmailVerification.Purpose.TOKEN_RECOVERY
    with transaction.atomic():
        user = (
            _recoverable_accounts().select_for_update(of=("self",)).filter(email__iexact=email).order_by("pk").first()
        )
        if user is None or _next_code_at(user=user, now=now, resend=True, purpose=purpose) > now:
            return
        kind = AccountEmailSent.Kind.RECOVERY_CODE
        if account_email_take(kind=kind, address=user.email, client=client, now=now):
            return
        _code_send(user=user, now=now, purpose=purpose)


def token_recovery_confirm(*, email: str, code: str, name: str) -> tuple[ApiToken, str]:
    """A new `read` and `play` token for the account with this address, for the
    code ``token_recovery_start`` emailed it. The plain token is returned here
    and never again.

    Every failure is the same VerificationError (RECOVERY_FAILED), whether the
    address is unknown or the code wrong, expired, used or tried too often, so
    that the answer tells nothing about who has an account. Each code allows
    VERIFICATION_MAX_ATTEMPTS tries: a try is counted, with a conditional
    UPDATE, before the code is compared, so concurrent guesses get no more.
    """
    now = timezone.now()
    failed = VerificationError(RECOVERY_FAILED)
    user = _recoverable_accounts().filter(email__iexact=email).order_by("pk").first()
    verification = (
        EmailVerification.objects.filter(
            user=user, purpose=EmailVerification.Purpose.TOKEN_RECOVERY, used_at__isnull=True
        )
        .order_by("-created_at", "-id")
        .first()
        if user is not None
        else None
    )
    if user is None or verification is None:
        raise failed
    usable = EmailVerification.objects.filter(
        pk=verification.pk,
        used_at__isnull=True,
        expires_at__gt=now,
        failed_attempts__lt=VERIFICATION_MAX_ATTEMPTS,
    )
    if not usable.update(failed_attempts=F("failed_attempts") + 1):
        raise failed
    if not constant_time_compare(verification.code_hash, _code_hash(code.strip())):
        raise failed
    with transaction.atomic():
        # Conditional, so two requests with the same code mint one token.
        if not EmailVerification.objects.filter(pk=verification.pk, used_at__isnull=True).update(used_at=now):
            raise failed
        return token_create(user=user, name=name, scopes=[Scope.READ, Scope.PLAY])


# --- erasing ----------------------------------------------------------------------------


def erased_username(user_id: int) -> str:
    return f"{ERASED_USERNAME_PREFIX}{user_id}"


def erased_display_name(user_id: int) -> str:
    return f"{ERASED_DISPLAY_NAME_PREFIX} {user_id}"


def player_erase_confirmed(*, user: User, confirm: str | None) -> None:
    """``player_erase`` for a player erasing their own account: `confirm` must
    be their username, typed back, or nothing happens."""
    username = user.get_username()
    if confirm is None or confirm.strip() != username:
        what = "did not match your username" if confirm else "is missing"
        raise ConfirmationRequiredError(
            {"confirm": [f'To erase your account for good, send {{"confirm": "{username}"}} (your username).']},
            message=f'The confirmation {what}: to erase your account for good, send {{"confirm": "{username}"}}.',
        )
    player_erase(user=user)


def player_erase(*, user: User) -> None:
    """Erase an account for good.

    The user and player rows stay, so that the seats, moves and results of every
    game keep their history, but nothing in them names the person any more: the
    username becomes ``deleted-<id>``, the display name ``deleted player <id>``,
    the email address and names are blanked, the password made unusable and the
    account inactive. Its tokens and emailed codes are deleted, as are the counts
    of wrong passwords kept for its username, of emails sent to its address, and
    the admin history's record of the names it had. ``account_erased`` asks the other apps, in the same
    transaction, to scrub what they keep; once this commits, ``account_disabled``
    makes its seats leave their games. Erasing an erased account does nothing.
    """
    now = timezone.now()
    with transaction.atomic():
        account = User.objects.select_for_update().get(pk=user.pk)
        player = Player.objects.filter(user=account).first()
        if player is not None and player.is_erased:
            return
        user_id = account.pk
        old_username, old_email = account.get_username(), account.email
        account.username = erased_username(user_id)
        account.email = account.first_name = account.last_name = ""
        account.is_active = account.is_staff = account.is_superuser = False
        account.set_unusable_password()
        account._disabling_announced = True  # type: ignore[attr-defined]  # below, on commit (accounts.receivers)
        account.save()
        account.groups.clear()
        account.user_permissions.clear()
        if player is None:
            player = Player(user=account)
        player.display_name = erased_display_name(user_id)
        player.erased_at = now
        player.save()
        ApiToken.objects.filter(user=account).delete()
        EmailVerification.objects.filter(user=account).delete()
        password_failures_clear(username=old_username)
        if old_email:
            AccountEmailSent.objects.filter(address_digest=_email_digest_for_limits(old_email)).delete()
        _admin_history_scrub(account=account, player=player)
        account_erased.send(sender=User, user_id=user_id)
        transaction.on_commit(lambda: account_disabled.send(sender=User, user_id=user_id))
    user.refresh_from_db()


def _admin_history_scrub(*, account: User, player: Player) -> None:
    """The admin's history keeps each object's name as it was when it changed
    (``LogEntry.object_repr``): the account's entries get its erased names."""
    for obj in (account, player):
        LogEntry.objects.filter(
            content_type=ContentType.objects.get_for_model(type(obj)), object_id=str(obj.pk)
        ).update(object_repr=str(obj))


# --- undeliverable addresses -------------------------------------------------------------


def player_email_undeliverable_mark(*, email: str, reason: str, now: datetime | None = None) -> int:
    """Record that mail to ``email`` bounced hard: no game email goes there until
    the player changes the address. Matches the address case-insensitively; marks
    every account holding it that is not marked yet, keeping the first bounce's
    time and reason. Returns how many accounts were marked."""
    address = email.strip()
    if not address:
        return 0
    return Player.objects.filter(user__email__iexact=address, email_undeliverable_at__isnull=True).update(
        email_undeliverable_at=now or timezone.now(), email_undeliverable_reason=reason[:255]
    )


# --- changing the email address ---------------------------------------------------------

EMAIL_CHANGE_LIFETIME = timedelta(hours=24)
_EMAIL_CHANGE_SALT = "accounts.email_change"


def _email_digest(email: str) -> str:
    # Keyed: the link names the current address only by this, so it reveals nothing.
    return salted_hmac(_EMAIL_CHANGE_SALT, email.strip().lower()).hexdigest()[:24]


def _email_taken_by_another(*, email: str, user: User, now: datetime) -> bool:
    """Whether an account other than `user` holds `email`: a verified or active
    one, or a sign-up whose code still works (one whose code is dead gives way,
    as it does to a new sign-up)."""
    others = User.objects.filter(email__iexact=email.strip()).exclude(pk=user.pk)
    waiting_dead = _pending_signups().exclude(pk__in=_live_codes(now).values("user_id"))
    return others.exclude(pk__in=waiting_dead.values("pk")).exists()


def _email_change_checked(*, user: User, new_email: str, now: datetime) -> str:
    address = (new_email or "").strip()
    try:
        validate_email(address)
    except DjangoValidationError:
        raise InvalidInput({"email": [f"{address!r} is not an email address."]}) from None
    if len(address) > User._meta.get_field("email").max_length:  # type: ignore[operator]
        raise InvalidInput({"email": ["That address is too long."]})
    if address.lower() == (user.email or "").strip().lower():
        raise InvalidInput({"email": ["That is already your address."]})
    if _email_taken_by_another(email=address, user=user, now=now):
        raise InvalidInput({"email": ["An account with this email address exists."]})
    return address


def email_change_token(*, user: User, new_email: str) -> str:
    """The signed token of a change of `user`'s address to `new_email`. It works
    for EMAIL_CHANGE_LIFETIME and only while the account still has the address
    it had when the token was made, so it changes the address at most once."""
    payload = {"u": user.pk, "e": new_email, "o": _email_digest(user.email or "")}
    return signing.dumps(payload, salt=_EMAIL_CHANGE_SALT, compress=True)


def email_change_start(*, user: User, new_email: str, confirm_url: str) -> str:
    """Email a link to `new_email` that changes `user`'s address to it once opened
    and confirmed (``email_change_confirm``); nothing changes until then.

    `confirm_url` is the confirming page's absolute address with ``{token}``
    where the token goes (the page lives with the caller). Refuses (InvalidInput
    on ``email``) an address that is not one, is the current one, or is another
    account's. Returns the address the link went to.
    """
    now = timezone.now()
    address = _email_change_checked(user=user, new_email=new_email, now=now)
    link = confirm_url.replace("{token}", email_change_token(user=user, new_email=address))
    username = user.get_username()
    hours = int(EMAIL_CHANGE_LIFETIME.total_seconds()) // 3600
    body = (
        f"Hello,\n\n"
        f"The Splendor by post account {username} asked to use this address from now on. To confirm, open\n\n"
        f"    {link}\n\n"
        f"and press the button there. The link works for {hours} hours. If you did not ask for this, ignore this "
        f"email: nothing changes without it.\n"
    )
    transaction.on_commit(
        lambda: send_mail("Confirm your new address for Splendor by post", body, None, [address])
    )
    return address


def email_change_confirm(*, token: str) -> User:
    """Change the account's address to the one the token (``email_change_token``)
    was sent to. Refusals: VerificationExpiredError for a link older than
    EMAIL_CHANGE_LIFETIME; VerificationError for a damaged one, or one already used
    or overtaken by another change; InvalidInput (``email``) when another account
    has taken the address since. The old address is told of the change once it
    commits; a bounce recorded against it is forgotten (accounts.receivers)."""
    now = timezone.now()
    try:
        payload = signing.loads(token, salt=_EMAIL_CHANGE_SALT, max_age=EMAIL_CHANGE_LIFETIME)
    except signing.SignatureExpired:
        raise VerificationExpiredError("This link has expired. Ask for a new one on the email page.") from None
    except signing.BadSignature:
        raise VerificationError("This link is damaged or was not made by this site.") from None
    if not isinstance(payload, dict) or not {"u", "e", "o"} <= set(payload):
        raise VerificationError("This link is damaged or was not made by this site.")
    with transaction.atomic():
        user = User.objects.select_for_update().filter(pk=payload["u"], is_active=True).first()
        if user is None or not constant_time_compare(payload["o"], _email_digest(user.email or "")):
            raise VerificationError(
                "This link was already used, or the address has changed since it was sent. Ask for a new one."
            )
        old = user.email
        address = str(payload["e"])
        if _email_taken_by_another(email=address, user=user, now=now):
            raise InvalidInput({"email": ["An account with this email address exists."]})
        # Sign-ups with this address whose codes are dead gave way: they go, as for a new sign-up.
        _pending_signups().filter(email__iexact=address).exclude(pk__in=_live_codes(now).values("user_id")).delete()
        user.email = address
        user.save(update_fields=["email"])
        Player.objects.filter(user=user).update(email_verified_at=now)
        username = user.get_username()
        if old:
            notice = (
                f"Hello,\n\nThe address of the Splendor by post account {username} is now {address}; game email "
                f"goes there from now on. If you did not make this change, reset your password at once.\n"
            )
            transaction.on_commit(
                lambda: send_mail("Your Splendor by post address changed", notice, None, [old])
            )
    return user
