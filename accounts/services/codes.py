"""Emailed one-time codes: sign-up and its verification, and recovering a lost
token. A code is sent by a worker (accounts.tasks) and carries nothing but its
row's id in the task message."""

from __future__ import annotations

import logging
import secrets
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, NoReturn
from zoneinfo import available_timezones

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError as DjangoValidationError
from django.core.mail import send_mail
from django.db import transaction
from django.db.models import F, QuerySet
from django.utils import timezone
from django.utils.crypto import constant_time_compare, salted_hmac
from django.utils.translation import gettext, gettext_noop, ngettext

from accounts.errors import (
    InvalidInput,
    TooManyAttemptsError,
    TooManyCodesError,
    VerificationError,
    VerificationExpiredError,
)
from accounts.models import (
    AccountEmailSent,
    ApiToken,
    EmailAddress,
    EmailVerification,
    Language,
    Player,
    Scope,
)
from accounts.names import (
    name_for_plain_text,
)
from accounts.speaking import in_language_of
from accounts.services.limits import account_email_take, seconds_until
from accounts.services.claims import (
    CODE_LIFETIME,
    RECOVERY_LIFETIME,
    VERIFICATION_ALPHABET,
    VERIFICATION_CODES_PER_DAY,
    VERIFICATION_LENGTH,
    VERIFICATION_MAX_ATTEMPTS,
    VERIFICATION_RESEND_INTERVAL,
    pending_signups,
    username_and_email_claim,
)
from accounts.services.players import names_refuse, token_create, username_refuse_lookalike, username_skeleton_save
from core.queue import task_send

if TYPE_CHECKING:
    # AUTH_USER_MODEL, as the mypy plugin reads it from the settings.
    from django.contrib.auth.models import User
else:
    User = get_user_model()

logger = logging.getLogger(__name__)


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


def _code_send(*, user: User, now: datetime, purpose: str, email_address: EmailAddress | None = None) -> None:
    """A new code for `user` (for Purpose.ADDRESS: for its added `email_address`,
    and sent to it), emailed after commit. Earlier unused codes for the same
    purpose (and address) stop working."""
    EmailVerification.objects.filter(
        user=user, purpose=purpose, email_address=email_address, used_at__isnull=True, expires_at__gt=now
    ).update(expires_at=now)
    salt = secrets.token_hex(16)
    code = _code_from_salt(salt)
    verification = EmailVerification.objects.create(
        user=user,
        purpose=purpose,
        email_address=email_address,
        code_hash=_code_hash(code),
        code_salt=salt,
        expires_at=now + CODE_LIFETIME[purpose],
    )
    verification_id = verification.pk
    # On commit: no email for a sign-up that rolled back.
    transaction.on_commit(lambda: _code_email_queue(verification_id=verification_id))


def address_code_send(*, email_address: EmailAddress, now: datetime) -> None:
    """Email a new code to an address added to an account
    (accounts.services.addresses); its earlier codes stop working."""
    _code_send(user=email_address.user, now=now, purpose=EmailVerification.Purpose.ADDRESS, email_address=email_address)


def address_next_code_at(*, user: User, now: datetime) -> datetime:
    """The earliest time `user` may be sent another code for an added address:
    VERIFICATION_CODES_PER_DAY count all of the account's addresses together."""
    return _next_code_at(user=user, now=now, resend=False, purpose=EmailVerification.Purpose.ADDRESS)


def wrong_code_refuse(verification: EmailVerification, *, too_many: TooManyAttemptsError) -> NoReturn:
    """Count a wrong code against ``verification`` and refuse it, saying how many
    tries are left (VERIFICATION_MAX_ATTEMPTS in all), or ``too_many`` when none is."""
    EmailVerification.objects.filter(pk=verification.pk).update(failed_attempts=F("failed_attempts") + 1)
    left = VERIFICATION_MAX_ATTEMPTS - verification.failed_attempts - 1
    if left <= 0:
        raise too_many
    raise VerificationError(
        ngettext(
            "That code is not right; %(n)d more try before it stops working.",
            "That code is not right; %(n)d more tries before it stops working.",
            left,
        )
        % {"n": left},
        attempts_left=left,
    )


def code_matches(verification: EmailVerification, code: str) -> bool:
    """Whether `code` (as typed: case and surrounding spaces do not matter) is this verification's."""
    return constant_time_compare(verification.code_hash, _code_hash(code.strip()))


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
    """The subject and body of the email carrying `code`, in the account's language
    (the one its sign-up asked for: ``Player.language``)."""
    with in_language_of(verification.user):
        return _code_email_words(verification, code)


def _code_email_words(verification: EmailVerification, code: str) -> tuple[str, str]:
    user = verification.user
    # On lines of plain text: a name stored before control characters were refused must not break them.
    username = name_for_plain_text(user.get_username())
    display_name = name_for_plain_text(getattr(getattr(user, "player", None), "display_name", "")) or username
    hello = gettext("Hello %(name)s,") % {"name": display_name}
    if verification.purpose == EmailVerification.Purpose.ADDRESS:
        hours = int(CODE_LIFETIME[EmailVerification.Purpose.ADDRESS].total_seconds()) // 3600
        return gettext("Your Splendor by post address code"), (
            f"{hello}\n\n"
            + gettext(
                "The Splendor by post account %(username)s asked to add this address, so that replies from it "
                "play that account's moves. The code to confirm it is:"
            ) % {"username": username}
            + f"\n\n    {code}\n\n"
            + gettext(
                "Type it on your email settings page (%(url)s), or send it with a program that uses your account "
                "through the API."
            ) % {"url": f"{_site_url()}/accounts/email/addresses/"}
            + "\n\n"
            + ngettext(
                "The code is good for %(n)d hour. If you did not ask for this, ignore this email: the address is "
                "not added without the code.",
                "The code is good for %(n)d hours. If you did not ask for this, ignore this email: the address is "
                "not added without the code.",
                hours,
            ) % {"n": hours}
            + "\n"
        )
    if verification.purpose == EmailVerification.Purpose.TOKEN_RECOVERY:
        minutes = int(RECOVERY_LIFETIME.total_seconds()) // 60
        return gettext("Your Splendor by post token recovery code"), (
            f"{hello}\n\n"
            + gettext(
                "Someone asked for a new API token for the account %(username)s on Splendor by post. The code is:"
            ) % {"username": username}
            + f"\n\n    {code}\n\n"
            + gettext(
                "Send it with this email address and a name for the token to POST /api/v1/tokens/recover/confirm/, "
                "for example:"
            )
            + f'\n    {{"email": "{user.email}", "code": "{code}", "name": "laptop"}}\n\n'
            + ngettext(
                "The code is good for %(n)d minute. If you did not ask for it, ignore this email: nothing changes "
                "without the code.",
                "The code is good for %(n)d minutes. If you did not ask for it, ignore this email: nothing changes "
                "without the code.",
                minutes,
            ) % {"n": minutes}
            + "\n"
        )
    return gettext("Your Splendor by post verification code"), (
        f"{hello}\n\n"
        + gettext("Your Splendor by post verification code for the username %(username)s is:") % {"username": username}
        + f"\n\n    {code}\n\n"
        + gettext("Signing up in a browser? Type it on the page that asked for it (%(url)s).")
        % {"url": f"{_site_url()}/accounts/signup/verify/"}
        + "\n"
        + gettext("Signing up through the API? Send it with your username to POST /api/v1/players/verify/, for example:")
        + f'\n    {{"username": "{username}", "code": "{code}"}}\n\n'
        + gettext("The code is good for 24 hours; a new one is sent on request to POST /api/v1/players/resend/.")
        + "\n"
        + gettext("If you did not sign up, ignore this email.")
        + "\n"
    )


def code_email_send(*, verification_id: int) -> bool:
    """Email the code of this verification to the account it was made for
    (``accounts.tasks.send_code_email`` runs this). Sends nothing for a code that
    has since been used, replaced or has expired; returns whether it sent."""
    verification = (
        EmailVerification.objects.select_related("user__player", "email_address")
        .filter(pk=verification_id, used_at__isnull=True, expires_at__gt=timezone.now())
        .first()
    )
    if verification is None or not verification.code_salt:
        return False
    # A code for an added address goes to that address; every other code to the account's own.
    to = verification.email_address.address if verification.email_address is not None else verification.user.email
    for_address = verification.purpose == EmailVerification.Purpose.ADDRESS
    if not to or for_address != (verification.email_address is not None):
        return False
    code = _code_from_salt(verification.code_salt)
    if not constant_time_compare(verification.code_hash, _code_hash(code)):
        return False  # SECRET_KEY changed since the code was made: it can no longer be sent
    subject, body = _code_email(verification, code)
    send_mail(subject, body, None, [to])
    return True


@transaction.atomic
def signup_start(
    *,
    username: str,
    email: str,
    password: str,
    client: str,
    display_name: str | None = None,
    language: str = Language.EN,
    time_zone: str = "",
) -> User:
    """An inactive user and a code emailed to them; `signup_verify` activates it.

    ``time_zone`` is the browser's guess (an IANA name): kept when the time zone
    database knows it, else the account starts in UTC, as it does without one;
    the person sees it in Settings and can change it there.

    A sign-up that was never verified gives way to this one: see
    `username_and_email_claim`. Signing up again with the same address reuses
    that account, and counts against its VERIFICATION_CODES_PER_DAY. The code
    email counts against the limits per address and per client (``client``, the
    caller's address: ``account_email_take``); past them nothing is made and
    TooManyCodesError says when to try again.
    """
    now = timezone.now()
    names_refuse(username=username, display_name=display_name)
    user = username_and_email_claim(username=username, email=email, now=now, take_over_pending_email=True)
    username_refuse_lookalike(username=username, now=now, keep=user)
    if user is not None:
        next_code_at = _next_code_at(user=user, now=now, resend=False)
        if next_code_at > now:
            raise TooManyCodesError(retry_after=seconds_until(next_code_at, now))
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
            gettext(
                "As many emails with codes as may be sent in a while have gone to this address, or been asked for "
                "from your address. Try again after Retry-After."
            ),
            retry_after=wait,
        )
    user.set_password(password)
    username_skeleton_save(user)
    if language not in Language.values:
        raise InvalidInput({"language": [
            gettext("'%(language)s' is not a language of the service; send one of %(languages)s.")
            % {"language": language, "languages": ", ".join(Language.values)}
        ]})
    defaults = {"display_name": display_name or username, "language": language}
    if time_zone in available_timezones():
        defaults["time_zone"] = time_zone
    Player.objects.update_or_create(user=user, defaults=defaults)
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
        raise InvalidInput({"username": [gettext("Give the username or the email address you signed up with.")]})
    now = timezone.now()
    with transaction.atomic():
        waiting = pending_signups().select_for_update(of=("self",))
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
        raise InvalidInput({"username": [gettext("Give the username or the email address you signed up with.")]})
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
        raise VerificationError(gettext("No account is waiting for verification under that name. Sign up first."))

    now = timezone.now()
    if verification.failed_attempts >= VERIFICATION_MAX_ATTEMPTS:
        raise TooManyAttemptsError(retry_after=seconds_until(_next_code_at(user=user, now=now, resend=True), now))
    if verification.expires_at <= now:
        raise VerificationExpiredError()
    if not constant_time_compare(verification.code_hash, _code_hash(code.strip())):
        wrong_code_refuse(
            verification,
            too_many=TooManyAttemptsError(
                retry_after=seconds_until(_next_code_at(user=user, now=now, resend=True), now)
            ),
        )

    with transaction.atomic():
        # Conditional, so two requests with the same code activate once.
        claimed = EmailVerification.objects.filter(pk=verification.pk, used_at__isnull=True).update(used_at=now)
        if not claimed:
            raise VerificationError(gettext("That code was already used."))
        User.objects.filter(pk=user.pk).update(is_active=True)
        Player.objects.filter(user=user).update(email_verified_at=now)
    user.refresh_from_db()
    return user


RECOVERY_FAILED = gettext_noop(
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
    failed = VerificationError(gettext(RECOVERY_FAILED))
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
