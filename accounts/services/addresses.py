"""More than one address per account: adding one (verified by an emailed code),
making a verified one the primary address, removing one.

The primary address is ``User.email`` (verified when ``Player.email_verified_at``
is set): game email goes there. The others are ``EmailAddress`` rows; a reply
from any verified one plays (notifications.inbound.services). Making an added
address primary swaps the two: the added row goes, and the old primary becomes
an added address, verified since it was.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError as DjangoValidationError
from django.core.mail import send_mail
from django.core.validators import validate_email
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext, gettext_noop

from accounts.errors import (
    EmailAddressTakenError,
    EmailAddressUnverifiedError,
    InvalidInput,
    TooManyAttemptsError,
    TooManyCodesError,
    VerificationError,
    VerificationExpiredError,
)
from accounts.models import AccountEmailSent, EmailAddress, EmailVerification, Player
from accounts.services.claims import VERIFICATION_MAX_ATTEMPTS, address_taken_by_another, live_codes, pending_signups
from accounts.services.codes import address_code_send, address_next_code_at, code_matches, wrong_code_refuse
from accounts.speaking import in_language_of
from accounts.services.limits import account_email_take, seconds_until

if TYPE_CHECKING:
    from django.contrib.auth.models import User
else:
    User = get_user_model()

logger = logging.getLogger(__name__)

# Added addresses an account may have besides its primary one, verified or not.
ADDRESSES_PER_ACCOUNT = 10

ADDRESS_TAKEN = gettext_noop(
    "Another account uses this email address. Sign in to that account, or remove it there first."
)


TOO_MANY_WRONG_CODES = gettext_noop(
    "Too many wrong codes; this code no longer works. Add the address again for a new one once Retry-After has passed."
)


class EmailAddressNotFoundError(LookupError):
    """No added address of this account has that id (the views answer 404)."""


def _address_checked(*, user: User, address: str) -> str:
    address = (address or "").strip()
    try:
        validate_email(address)
    except DjangoValidationError:
        raise InvalidInput(
            {"address": [gettext("%(address)s is not an email address.") % {"address": repr(address)}]}
        ) from None
    if len(address) > EmailAddress._meta.get_field("address").max_length:  # type: ignore[operator]
        raise InvalidInput({"address": [gettext("That address is too long.")]})
    if address.lower() == (user.email or "").strip().lower():
        raise InvalidInput({"address": [gettext("That is already your primary address.")]})
    return address


def email_address_add(*, user: User, address: str, client: str) -> EmailAddress:
    """Add `address` to the account and email it a code for
    ``email_address_verify``; until then it plays nothing. Adding an address that
    is waiting for its code again sends a new code (earlier ones stop working).

    Refuses (InvalidInput on ``address``) what is not an address, the primary
    address, one the account has verified already, and more than
    ADDRESSES_PER_ACCOUNT; EmailAddressTakenError for an address another account
    holds. The codes are limited per account (VERIFICATION_CODES_PER_DAY), per
    address and per ``client`` (``account_email_take``): TooManyCodesError.
    """
    now = timezone.now()
    address = _address_checked(user=user, address=address)
    with transaction.atomic():
        User.objects.select_for_update().filter(pk=user.pk).first()  # one change of the account's addresses at a time
        if address_taken_by_another(address=address, user=user, now=now):
            raise EmailAddressTakenError(gettext(ADDRESS_TAKEN))
        row = EmailAddress.objects.filter(user=user, address__iexact=address).first()
        if row is not None and row.is_verified:
            raise InvalidInput({"address": [gettext("That address is on your account and verified already.")]})
        if row is None and EmailAddress.objects.filter(user=user).count() >= ADDRESSES_PER_ACCOUNT:
            raise InvalidInput(
                {"address": [gettext("An account has at most %(most)d addresses besides its primary one: "
                                     "remove one first.") % {"most": ADDRESSES_PER_ACCOUNT}]}
            )  # fmt: skip
        next_code_at = address_next_code_at(user=user, now=now)
        if next_code_at > now:
            raise TooManyCodesError(
                gettext(
                    "Your account has been sent as many address codes as it may get in a day. Try again after "
                    "Retry-After."
                ),
                retry_after=seconds_until(next_code_at, now),
            )
        wait = account_email_take(kind=AccountEmailSent.Kind.ADDRESS_CODE, address=address, client=client, now=now)
        if wait:
            raise TooManyCodesError(
                gettext(
                    "As many emails with codes as may be sent in a while have gone to this address, or been asked "
                    "for from your address. Try again after Retry-After."
                ),
                retry_after=wait,
            )
        if row is None:
            row = EmailAddress.objects.create(user=user, address=address)
        address_code_send(email_address=row, now=now)
    logger.info("account %s added address %s (waiting for its code)", user.pk, row.pk)
    return row


def _own_address(*, user: User, address_id: int, lock: bool = False) -> EmailAddress:
    rows = EmailAddress.objects.filter(user=user, pk=address_id)
    row = (rows.select_for_update() if lock else rows).first()
    if row is None:
        raise EmailAddressNotFoundError(address_id)
    return row


def email_address_verify(*, user: User, address_id: int, code: str) -> EmailAddress:
    """Verify the account's added address with the code emailed to it: from then
    on a reply from it plays. Wrong codes count against VERIFICATION_MAX_ATTEMPTS
    (VerificationError with ``attempts_left``, then TooManyAttemptsError); an
    expired code is VerificationExpiredError; an address that another account
    verified meanwhile is EmailAddressTakenError. Other accounts' unverified rows
    for the address go, as do sign-ups holding it whose codes are dead."""
    row = _own_address(user=user, address_id=address_id)
    if row.is_verified:
        return row
    now = timezone.now()
    verification = (
        EmailVerification.objects.filter(
            user=user, purpose=EmailVerification.Purpose.ADDRESS, email_address=row, used_at__isnull=True
        )
        .order_by("-created_at", "-id")
        .first()
    )
    if verification is None:
        raise VerificationError(gettext("No code is waiting for this address: add it again for a new one."))
    if verification.failed_attempts >= VERIFICATION_MAX_ATTEMPTS:
        raise TooManyAttemptsError(
            gettext(TOO_MANY_WRONG_CODES),
            retry_after=seconds_until(max(address_next_code_at(user=user, now=now), now), now),
        )
    if verification.expires_at <= now:
        raise VerificationExpiredError(gettext("That code has expired. Add the address again for a new one."))
    if not code_matches(verification, code):
        wrong_code_refuse(
            verification,
            too_many=TooManyAttemptsError(
                gettext(TOO_MANY_WRONG_CODES),
                retry_after=seconds_until(max(address_next_code_at(user=user, now=now), now), now),
            ),
        )
    try:
        with transaction.atomic():
            if not EmailVerification.objects.filter(pk=verification.pk, used_at__isnull=True).update(used_at=now):
                raise VerificationError(gettext("That code was already used."))
            if address_taken_by_another(address=row.address, user=user, now=now):
                raise EmailAddressTakenError(gettext(ADDRESS_TAKEN))
            EmailAddress.objects.filter(address__iexact=row.address, verified_at__isnull=True).exclude(
                pk=row.pk
            ).delete()
            dead = pending_signups().filter(email__iexact=row.address).exclude(pk__in=live_codes(now).values("user_id"))
            dead.delete()
            EmailAddress.objects.filter(pk=row.pk).update(verified_at=now)
    except IntegrityError:
        # Another account verified the same address at the same moment: the index decided.
        raise EmailAddressTakenError(gettext(ADDRESS_TAKEN)) from None
    row.refresh_from_db()
    logger.info("account %s verified address %s", user.pk, row.pk)
    return row


def email_address_make_primary(*, user: User, address_id: int) -> EmailAddress | None:
    """Make the account's verified added address its primary address (game email
    goes there): the old primary address becomes an added one, verified, and is
    told of the change. Returns the old primary's new row. An unverified address
    is EmailAddressUnverifiedError."""
    now = timezone.now()
    with transaction.atomic():
        account = User.objects.select_for_update().get(pk=user.pk)
        row = _own_address(user=account, address_id=address_id, lock=True)
        if not row.is_verified:
            raise EmailAddressUnverifiedError()
        player = Player.objects.select_for_update().get(user=account)
        old_address, old_verified_at = account.email, player.email_verified_at or now
        new_address, new_verified_at = row.address, row.verified_at
        row.delete()
        account.email = new_address
        # A bounce recorded against the old address is forgotten (accounts.receivers).
        account.save(update_fields=["email"])
        Player.objects.filter(pk=player.pk).update(email_verified_at=new_verified_at)
        old_row = (
            EmailAddress.objects.create(user=account, address=old_address, verified_at=old_verified_at)
            if old_address
            else None
        )
        username = account.get_username()
        with in_language_of(account):  # the account's language, as every account email
            changed = gettext("Your Splendor by post address changed")
            notice = (
                gettext("Hello,")
                + "\n\n"
                + gettext(
                    "The primary address of the Splendor by post account %(username)s is now %(address)s: game "
                    "email goes there from now on. This address stays on the account, and your replies from it "
                    "still play. If you did not make this change, reset your password at once."
                )
                % {"username": username, "address": new_address}
                + "\n"
            )
        if old_address:
            transaction.on_commit(lambda: send_mail(changed, notice, None, [old_address]))
    user.refresh_from_db(fields=["email"])
    logger.info("account %s made address %s its primary one", user.pk, address_id)
    return old_row


def email_address_remove(*, user: User, address_id: int) -> None:
    """Remove an added address from the account: replies from it no longer play.
    The primary address is not one of them (make another primary first)."""
    with transaction.atomic():
        row = _own_address(user=user, address_id=address_id, lock=True)
        row.delete()
    logger.info("account %s removed address %s", user.pk, address_id)
