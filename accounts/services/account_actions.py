"""What staff do to an account from the admin: disable it or erase it. Each
needs its permission (``accounts.disable_player``, ``accounts.erase_player``) and
a reason, is written to the append-only ``AccountActionLog`` and is told to the
person by email in their language, with a note from staff if they wrote one.

The erasure's email is written, and its address read, before the account is
erased (the address is gone afterwards); it leaves once the erasure commits, so
nobody is told of an erasure that did not happen.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING

from django.contrib.auth import get_user_model
from django.core.mail import send_mail
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext

from accounts.errors import AccountActionRefusedError, InvalidInput
from accounts.models import AccountActionLog, Player
from accounts.services.players import erased_display_name, player_disable, player_erase
from accounts.speaking import in_language_of

if TYPE_CHECKING:
    from django.contrib.auth.models import User
else:
    User = get_user_model()

logger = logging.getLogger(__name__)

DISABLE_PERMISSION = "accounts.disable_player"
ERASE_PERMISSION = "accounts.erase_player"
MAX_REASON_LENGTH = 2000
MAX_NOTE_LENGTH = 2000


@dataclass(frozen=True)
class AccountEmail:
    """The email that tells a person what staff did to their account."""

    address: str
    subject: str
    body: str


def account_action_refusal(*, user: User, by_user: User, permission: str) -> str | None:
    """Why ``by_user`` may not disable or erase ``user`` (in the active language),
    or None when they may: they need ``permission``; no one acts on their own
    account, only a superuser on a superuser's, and no one on an account the
    service itself holds (a practice game's bot)."""
    if not (by_user.is_active and by_user.is_staff and by_user.has_perm(permission)):
        return gettext("You do not have the permission to do this.")
    if user.pk == by_user.pk:
        return gettext("You may not do this to your own account.")
    if user.is_superuser and not by_user.is_superuser:
        return gettext("Only a superuser may do this to a superuser's account.")
    if Player.objects.filter(user_id=user.pk, system=True).exists():
        return gettext("This account is the service's own (a bot's or a sandbox's seat).")
    return None


def _refuse_unless_allowed(*, user: User, by_user: User, permission: str) -> None:
    refusal = account_action_refusal(user=user, by_user=by_user, permission=permission)
    if refusal is not None:
        raise AccountActionRefusedError(refusal)


def _reason_clean(reason: str) -> str:
    text = (reason or "").strip()
    if not text:
        raise InvalidInput({"reason": [gettext("Say why: the reason is kept in the account action log.")]})
    if len(text) > MAX_REASON_LENGTH:
        raise InvalidInput({"reason": [gettext("Keep the reason to %(n)d characters.") % {"n": MAX_REASON_LENGTH}]})
    return text


def _note_clean(note: str) -> str:
    text = (note or "").strip()
    if len(text) > MAX_NOTE_LENGTH:
        raise InvalidInput({"note": [gettext("Keep the note to %(n)d characters.") % {"n": MAX_NOTE_LENGTH}]})
    return text


def _with_note(body: str, note: str) -> str:
    if not note:
        return body
    return body + "\n" + gettext("A note from the service's staff:") + "\n\n" + note + "\n"


def account_disabled_email(*, user: User, note: str) -> AccountEmail | None:
    """The email telling ``user`` their account is disabled, in their language;
    None for an account without an address."""
    address = (user.email or "").strip()
    if not address:
        return None
    with in_language_of(user):
        subject = gettext("Your Splendor by post account is disabled")
        body = (
            gettext("Hello,")
            + "\n\n"
            + gettext(
                "The service's staff disabled the Splendor by post account %(username)s: it can no longer sign in, "
                "its API tokens no longer work, and its seats have left their games."
            )
            % {"username": user.get_username()}
            + "\n"
        )
        body = _with_note(body, note)
    return AccountEmail(address=address, subject=subject, body=body)


def account_erased_email(*, user: User, note: str) -> AccountEmail | None:
    """The email telling ``user`` their account is erased, in their language;
    written while the account still has its address. None without one."""
    address = (user.email or "").strip()
    if not address:
        return None
    with in_language_of(user):
        subject = gettext("Your Splendor by post account is erased")
        body = (
            gettext("Hello,")
            + "\n\n"
            + gettext(
                "The service's staff erased the Splendor by post account %(username)s for good: its names, "
                "addresses and tokens are deleted and it can never be used again. The games it played keep "
                "their moves under the name “%(erased)s”. This is the last email sent to this address about "
                "the account."
            )
            % {"username": user.get_username(), "erased": erased_display_name(user.pk)}
            + "\n"
        )
        body = _with_note(body, note)
    return AccountEmail(address=address, subject=subject, body=body)


def _send_on_commit(email: AccountEmail | None, *, user_id: int) -> None:
    if email is None:
        return

    def send() -> None:
        send_mail(email.subject, email.body, None, [email.address])
        logger.info("account %s told of a staff action by email", user_id)

    # robust: a mail server that refuses is logged, and the change already made stands.
    transaction.on_commit(send, robust=True)


def _log(*, action: str, user: User, username: str, by_user: User, reason: str, email: AccountEmail | None) -> None:
    AccountActionLog.objects.create(
        actor_user_id=by_user.pk,
        target_user_id=user.pk,
        target_username=username,
        action=action,
        reason=reason,
        message_sent=email.body if email is not None else "",
        at=timezone.now(),
    )


def account_disable(*, user: User, by_user: User, reason: str, note: str = "") -> bool:
    """Disable ``user``'s account (``player_disable``) for ``by_user``, who needs
    ``accounts.disable_player``: logged with ``reason`` (kept, never sent) and told
    to the person, with ``note`` if given. False, with nothing logged or sent, for
    an account that is disabled already. Refusals: AccountActionRefusedError
    (``account_action_refusal``), InvalidInput (``reason``, ``note``)."""
    _refuse_unless_allowed(user=user, by_user=by_user, permission=DISABLE_PERMISSION)
    reason, note = _reason_clean(reason), _note_clean(note)
    with transaction.atomic():
        account = User.objects.select_for_update().get(pk=user.pk)
        if not account.is_active:
            return False
        email = account_disabled_email(user=account, note=note)
        player_disable(user=account)
        _log(
            action=AccountActionLog.Action.DISABLED,
            user=account,
            username=account.get_username(),
            by_user=by_user,
            reason=reason,
            email=email,
        )
        _send_on_commit(email, user_id=account.pk)
    user.is_active = False
    logger.info("account %s disabled by user %s", user.pk, by_user.pk)
    return True


def account_erase(*, user: User, by_user: User, reason: str, note: str = "") -> bool:
    """Erase ``user``'s account for good (``player_erase``) for ``by_user``, who
    needs ``accounts.erase_player``: logged with ``reason`` and the username it had,
    and told to the person at the address it had, with ``note`` if given. False,
    with nothing logged or sent, for an account erased already. Refusals as
    ``account_disable``'s."""
    _refuse_unless_allowed(user=user, by_user=by_user, permission=ERASE_PERMISSION)
    reason, note = _reason_clean(reason), _note_clean(note)
    with transaction.atomic():
        account = User.objects.select_for_update().get(pk=user.pk)
        if Player.objects.filter(user_id=account.pk, erased_at__isnull=False).exists():
            return False
        username = account.get_username()
        email = account_erased_email(user=account, note=note)  # while the address exists
        player_erase(user=account)
        _log(
            action=AccountActionLog.Action.ERASED,
            user=account,
            username=username,
            by_user=by_user,
            reason=reason,
            email=email,
        )
        _send_on_commit(email, user_id=account.pk)
    user.refresh_from_db()
    logger.info("account %s erased by user %s", user.pk, by_user.pk)
    return True
