"""Limits that protect accounts: wrong passwords counted per username and client
address (a lock that doubles up to a cap), and emails with codes or links
limited per recipient and per client."""

from __future__ import annotations

import hashlib
import logging
import math
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from django.conf import settings
from django.contrib.auth import authenticate, get_user_model
from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone
from django.utils.crypto import salted_hmac

from accounts.errors import (
    AccountSuspendedError,
    InvalidCredentialsError,
    LoginLockedError,
)
from accounts.models import (
    AccountEmailSent,
    PasswordFailures,
)

if TYPE_CHECKING:
    # AUTH_USER_MODEL, as the mypy plugin reads it from the settings.
    from django.contrib.auth.models import User
else:
    User = get_user_model()

logger = logging.getLogger(__name__)


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


_RATE_PERIODS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


def _rate(text: str) -> tuple[int, timedelta]:
    """A rate such as "5/hour" (as settings.env_rate allows) as a count and a window."""
    count, _, period = text.partition("/")
    return int(count), timedelta(seconds=_RATE_PERIODS[period.strip()[0]])


def email_digest_for_limits(address: str) -> str:
    # Keyed, as the client's: the row must not give an address back to whoever reads the table.
    return salted_hmac("accounts.account_email", address.strip().lower(), algorithm="sha256").hexdigest()


def _wait_under(rate: str, sent: QuerySet[AccountEmailSent], now: datetime) -> int:
    """Seconds until one more fits under ``rate`` for the rows ``sent`` (0: now)."""
    limit, window = _rate(rate)
    recent = list(sent.filter(sent_at__gt=now - window).order_by("-sent_at").values_list("sent_at", flat=True)[:limit])
    if len(recent) < limit:
        return 0
    return seconds_until(recent[limit - 1] + window, now)


def account_email_take(*, kind: str, address: str, client: str, now: datetime | None = None) -> int:
    """Count an email with a code or a link to ``address``, asked for by the client
    address ``client``, and return 0; or, when the address has been sent
    ACCOUNT_EMAIL_ADDRESS_RATE already or the client has asked for
    ACCOUNT_EMAIL_CLIENT_RATE, count nothing and return the seconds until it may.

    The caller sends the email only on 0. Where the answer must not tell whether
    an address has an account, the caller answers the same either way.
    """
    now = now or timezone.now()
    address_digest, client_digest = email_digest_for_limits(address), _client_digest(client)
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


def seconds_until(moment: datetime, now: datetime) -> int:
    return max(1, math.ceil((moment - now).total_seconds()))
