"""Who holds a name or an address: accounts, and sign-ups whose emailed code
still works. The rules of emailed codes (lifetimes, tries, how many) live here
too, since a pending sign-up's claim lasts as long as its code."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Q, QuerySet
from django.utils.translation import gettext

from accounts.errors import InvalidInput
from accounts.models import EmailAddress, EmailVerification

if TYPE_CHECKING:
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
# A recovery code mints a token: it works for a shorter time than a sign-up's.
RECOVERY_LIFETIME = timedelta(hours=1)
CODE_LIFETIME: dict[str, timedelta] = {
    EmailVerification.Purpose.SIGNUP: VERIFICATION_LIFETIME,
    EmailVerification.Purpose.TOKEN_RECOVERY: RECOVERY_LIFETIME,
    EmailVerification.Purpose.ADDRESS: VERIFICATION_LIFETIME,
}


def pending_signups() -> QuerySet[User]:
    """Users who signed up and never verified their email address."""
    return User.objects.filter(is_active=False, player__isnull=False, player__email_verified_at__isnull=True)


def live_codes(now: datetime) -> QuerySet[EmailVerification]:
    """Codes that can still activate an account: unused, unexpired, not guessed at too often."""
    return EmailVerification.objects.filter(
        purpose=EmailVerification.Purpose.SIGNUP,
        used_at__isnull=True,
        expires_at__gt=now,
        failed_attempts__lt=VERIFICATION_MAX_ATTEMPTS,
    )


def username_and_email_claim(
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
    pending = set(pending_signups().filter(pk__in=holders).values_list("pk", flat=True))
    live = set(live_codes(now).filter(user_id__in=pending).values_list("user_id", flat=True))
    errors: dict[str, list[str]] = {}
    if EmailAddress.objects.filter(address__iexact=email.strip(), verified_at__isnull=False).exists():
        errors["email"] = [gettext("An account with this email address exists.")]
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
                errors["username"] = [gettext("This username is taken.")]
            if pk in by_email:
                errors["email"] = [gettext("An account with this email address exists.")]
        else:
            stale.append(pk)
    if errors:
        raise InvalidInput(errors)
    User.objects.filter(pk__in=stale).delete()
    return User.objects.get(pk=reuse) if reuse is not None else None


def address_taken_by_another(*, address: str, user: User, now: datetime) -> bool:
    """Whether an account other than `user` holds `address`: as its primary
    address (a verified or active account, or a sign-up whose code still works;
    one whose code is dead gives way, as it does to a new sign-up), or as a
    verified added address (accounts.models.EmailAddress)."""
    address = address.strip()
    others = User.objects.filter(email__iexact=address).exclude(pk=user.pk)
    waiting_dead = pending_signups().exclude(pk__in=live_codes(now).values("user_id"))
    if others.exclude(pk__in=waiting_dead.values("pk")).exists():
        return True
    return EmailAddress.objects.filter(address__iexact=address, verified_at__isnull=False).exclude(user=user).exists()
