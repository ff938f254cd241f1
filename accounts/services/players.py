"""Players and their accounts: creating one (names checked), tokens, passwords,
disabling, a moderator's suspension and warning, erasing, an address that
bounces, and changing the address."""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from functools import cache
from typing import TYPE_CHECKING
from zoneinfo import available_timezones

from django.contrib.admin.models import LogEntry
from django.contrib.auth import get_user_model
from django.contrib.contenttypes.models import ContentType
from django.contrib.auth.password_validation import validate_password
from django.contrib.auth.validators import UnicodeUsernameValidator
from django.core.exceptions import ValidationError as DjangoValidationError
from django.core import signing
from django.core.mail import send_mail
from django.utils.translation import gettext, ngettext
from django.core.validators import MaxLengthValidator, validate_email
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.crypto import constant_time_compare, salted_hmac

from accounts.errors import (
    ConfirmationRequiredError,
    InvalidInput,
    VerificationError,
    VerificationExpiredError,
)
from accounts.models import (
    AccountEmailSent,
    ApiToken,
    CalendarFeed,
    EmailAddress,
    EmailVerification,
    Language,
    Player,
    UsernameSkeleton,
    scopes_normalise,
)
from accounts.names import (
    display_name_refusal,
    name_characters_refused,
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
from accounts.token_cache import token_cache_forget
from accounts.tokens import token_generate, token_hash, token_public_prefix

from accounts.services.claims import address_taken_by_another, live_codes, pending_signups, username_and_email_claim
from accounts.speaking import in_language_of
from accounts.services.limits import email_digest_for_limits, password_failures_clear
if TYPE_CHECKING:
    # AUTH_USER_MODEL, as the mypy plugin reads it from the settings.
    from django.contrib.auth.models import User
else:
    User = get_user_model()

logger = logging.getLogger(__name__)


# Every fixed segment of the site's paths. A player named like one would have a
# profile (GET /api/v1/players/{username}/) hidden behind a fixed path, or a
# name that reads as part of the API; tests/accounts/test_reserved_usernames.py
# checks that this covers every path in the URLconf.
RESERVED_USERNAMES = frozenset(
    {
        "admin", "api", "v1", "schema", "docs", "healthz", "metrics", "static",
        "players", "verify", "resend", "tokens", "recover", "confirm", "me", "export", "password",
        "games", "join", "legal-moves", "moves", "resign", "cancel", "decline",
        "notifications", "mute", "vacation", "link", "rotate",
        "webhooks", "deliveries", "rotate-secret", "favicon.ico",
        "leagues", "leave", "next-game", "ratings", "seasons", "standings", "settings",
        "accounts", "problems", "new", "open", "accept", "sandbox", "practice", "emails", "primary", "i18n", "setlang",
        "addresses", "remove", "stream", "calendar", "chat", "plan", "preferences", "report", "notes", "review",
        "push", "key", "push-subscriptions", "sw.js",
        "tournaments", "invite", "start", "follow",
        # The service worker and the web app manifest are served at the root (front.pwa).
        "manifest.webmanifest",
    }
)


# An erased account becomes `deleted-<id>`, shown as `deleted player <id>`:
# nobody else may take names that read as one.
ERASED_USERNAME_PREFIX = "deleted-"


ERASED_DISPLAY_NAME_PREFIX = "deleted player"


# The service's own accounts (system_account_get) are named with these: a
# practice game's bots `bot-<bot>-<n>`, a sandbox's hot seats `sandbox-seat-<n>`.
SYSTEM_USERNAME_PREFIXES = ("bot-", "sandbox-")


@cache
def reserved_skeletons() -> frozenset[str]:
    return frozenset(username_skeleton(name) for name in RESERVED_USERNAMES)


def names_refuse(*, username: str, display_name: str | None) -> None:
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
        if skeleton in reserved_skeletons():
            errors["username"] = [
                gettext('"%(username)s" is reserved: it is part of the API\'s paths. Choose another username.')
                % {"username": username}
            ]
        elif any(skeleton.startswith(username_skeleton(prefix)) for prefix in SYSTEM_USERNAME_PREFIXES):
            errors["username"] = [
                gettext(
                    'Usernames starting with "bot-" or "sandbox-" are kept for the service\'s bots. '
                    "Choose another username."
                )
            ]
        elif skeleton.startswith(username_skeleton(ERASED_USERNAME_PREFIX)):
            errors["username"] = [
                gettext('Usernames starting with "%(prefix)s" are kept for erased accounts. Choose another username.')
                % {"prefix": ERASED_USERNAME_PREFIX}
            ]
    if display_name:
        refused = name_characters_refused(display_name)
        if refused:
            errors["display_name"] = [display_name_refusal(refused)]
        elif display_name.strip().lower().startswith(ERASED_DISPLAY_NAME_PREFIX):
            errors["display_name"] = [
                gettext(
                    'Display names starting with "%(prefix)s" are kept for erased accounts. '
                    "Choose another display name."
                )
                % {"prefix": ERASED_DISPLAY_NAME_PREFIX}
            ]
    if errors:
        raise InvalidInput(errors)


def username_refuse_lookalike(*, username: str, now: datetime, keep: User | None) -> None:
    """Refuse a username whose confusable skeleton (accounts.names) is another
    account's: ``аlice`` with a Cyrillic а beside ``alice``. Accounts that share
    a skeleton already keep their names; a sign-up whose code is dead holds no
    name (as in ``username_and_email_claim``), and ``keep`` is the sign-up
    being reused. Call after ``username_and_email_claim``, which has refused
    or cleared the holders of the very same name."""
    holders = UsernameSkeleton.objects.filter(digest=username_skeleton_digest(username))
    if keep is not None:
        holders = holders.exclude(user_id=keep.pk)
    dead_signups = pending_signups().exclude(pk__in=live_codes(now).values("user_id"))
    if holders.exclude(user_id__in=dead_signups.values("pk")).exists():
        raise InvalidInput(
            {
                "username": [
                    gettext(
                        '"%(username)s" looks too much like the username of another account (letters of another '
                        "alphabet, or characters that look alike). Choose another username."
                    )
                    % {"username": username}
                ]
            }
        )


def username_skeleton_save(user: User) -> None:
    # Two sign-ups racing for one username: the database's unique index decides.
    try:
        with transaction.atomic():
            user.save()
    except IntegrityError:
        raise InvalidInput({"username": [gettext("This username is taken.")]}) from None


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
    names_refuse(username=username, display_name=display_name)
    username_and_email_claim(username=username, email=email, now=now, take_over_pending_email=False)
    username_refuse_lookalike(username=username, now=now, keep=None)
    user = User(username=username, email=email, is_active=True)
    if password:
        user.set_password(password)
    else:
        user.set_unusable_password()
    username_skeleton_save(user)
    Player.objects.create(user=user, display_name=display_name or username, email_verified_at=timezone.now())
    return user


def system_account_get(*, username: str, display_name: str) -> User:
    """The service's own account ``username`` (one of SYSTEM_USERNAME_PREFIXES),
    made on first use: no address, no usable password and never verified, so it
    is never emailed, cannot sign in and has no public profile; sign-up refuses
    the names. It holds a bot's or a hot seat's seat, since every seat has a user.
    An account of that name that is not the service's is refused (ValueError)."""
    assert username.startswith(SYSTEM_USERNAME_PREFIXES), username
    with transaction.atomic():
        user, created = User.objects.get_or_create(username=username, defaults={"email": "", "is_active": True})
        if created:
            user.set_unusable_password()
            user.save(update_fields=["password"])
            Player.objects.create(user=user, display_name=display_name, system=True)
            return user
    if not Player.objects.filter(user=user, system=True).exists():
        raise ValueError(f"The account {username!r} is a person's, not the service's; rename it to use bots.")
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


def player_language_set(*, user: User, language: str) -> Player:
    """Set the language of the player's emails, email replies and pages (en, it, lv)."""
    if language not in Language.values:
        raise InvalidInput({"language": [
            gettext("'%(language)s' is not a language of the service; send one of %(languages)s.")
            % {"language": language, "languages": ", ".join(Language.values)}
        ]})
    with transaction.atomic():
        player = player_for_user(user=user)
        if player.language != language:
            player.language = language
            player.save(update_fields=["language"])
    return player


def player_confirm_moves_set(*, user: User, confirm_moves: bool) -> Player:
    """Whether the game page asks the player to confirm a move before sending it."""
    with transaction.atomic():
        player = player_for_user(user=user)
        if player.confirm_moves != confirm_moves:
            player.confirm_moves = confirm_moves
            player.save(update_fields=["confirm_moves"])
    return player


def token_create(*, user: User, name: str, scopes: list[str]) -> tuple[ApiToken, str]:
    """A new token for `user`. The plain token is returned here and never again."""
    try:
        granted = scopes_normalise(scopes)
    except ValueError as exc:
        raise InvalidInput({"scopes": [str(exc)]}) from None
    if not granted:
        raise InvalidInput({"scopes": [gettext("Give at least one scope: read or play.")]})
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
    token_cache_forget(user_id=token.user_id)  # an UPDATE sends no post_save (accounts.receivers)
    token.refresh_from_db(fields=["revoked_at"])
    return token


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


def player_disable(*, user: User) -> None:
    """Disable an account: it can no longer sign in and its tokens stop working
    (the authentication refuses inactive accounts). Once this commits,
    ``account_disabled`` tells the other apps, so that its seats do not hang
    until their deadlines. Disabling a disabled account does nothing."""
    with transaction.atomic():
        updated = User.objects.filter(pk=user.pk, is_active=True).update(is_active=False)
        token_cache_forget(user_id=user.pk)
        user.is_active = False
        if updated:
            user_id = user.pk
            transaction.on_commit(lambda: account_disabled.send(sender=User, user_id=user_id))


def player_suspend(*, user: User, by_user: User, reason: str) -> bool:
    """Suspend an account: its API tokens and seat links stop working, it cannot
    log in (accounts.backends) and it cannot move, but it keeps its seats, whose
    turns time out as usual. ``by_user`` and ``reason`` are for the caller's
    record (games.moderation logs them); a reason is required. False when the
    account was already suspended. Once the suspension commits,
    ``player_suspended`` is sent (notifications emails the player the reason)."""
    if not reason.strip():
        raise InvalidInput({"reason": [gettext("Say why the account is suspended.")]})
    with transaction.atomic():
        player = player_for_user(user=user)
        updated = Player.objects.filter(pk=player.pk, suspended_at__isnull=True).update(suspended_at=timezone.now())
        token_cache_forget(user_id=user.pk)
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
        raise InvalidInput({"reason": [gettext("Say what the player is warned about.")]})
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
    token_cache_forget(user_id=user.pk)
    player.refresh_from_db(fields=["suspended_at"])
    logger.info("account %s unsuspended by user %s", user.pk, by_user.pk)
    return updated == 1


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
    account inactive. Its tokens, calendar address, added addresses and emailed codes are deleted, as are the counts
    of wrong passwords kept for its username, of emails sent to its addresses, and
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
        CalendarFeed.objects.filter(user=account).delete()
        token_cache_forget(user_id=user_id)  # (saving the user did too: accounts.receivers)
        EmailVerification.objects.filter(user=account).delete()
        added = list(EmailAddress.objects.filter(user=account).values_list("address", flat=True))
        EmailAddress.objects.filter(user=account).delete()
        password_failures_clear(username=old_username)
        for address in (old_email, *added):
            if address:
                AccountEmailSent.objects.filter(address_digest=email_digest_for_limits(address)).delete()
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


EMAIL_CHANGE_LIFETIME = timedelta(hours=24)


_EMAIL_CHANGE_SALT = "accounts.email_change"


def _email_digest(email: str) -> str:
    # Keyed: the link names the current address only by this, so it reveals nothing.
    return salted_hmac(_EMAIL_CHANGE_SALT, email.strip().lower()).hexdigest()[:24]


def _email_taken_by_another(*, email: str, user: User, now: datetime) -> bool:
    """Whether an account other than `user` holds `email` (``address_taken_by_another``)."""
    return address_taken_by_another(address=email, user=user, now=now)


def _email_change_checked(*, user: User, new_email: str, now: datetime) -> str:
    address = (new_email or "").strip()
    try:
        validate_email(address)
    except DjangoValidationError:
        raise InvalidInput(
            {"email": [gettext("%(address)s is not an email address.") % {"address": repr(address)}]}
        ) from None
    if len(address) > User._meta.get_field("email").max_length:  # type: ignore[operator]
        raise InvalidInput({"email": [gettext("That address is too long.")]})
    if address.lower() == (user.email or "").strip().lower():
        raise InvalidInput({"email": [gettext("That is already your address.")]})
    if _email_taken_by_another(email=address, user=user, now=now):
        raise InvalidInput({"email": [gettext("An account with this email address exists.")]})
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
    with in_language_of(user):  # the account's language, as every account email
        subject = gettext("Confirm your new address for Splendor by post")
        body = (
            gettext("Hello,")
            + "\n\n"
            + gettext("The Splendor by post account %(username)s asked to use this address from now on. To confirm, open")
            % {"username": username}
            + f"\n\n    {link}\n\n"
            + ngettext(
                "and press the button there. The link works for %(n)d hour. If you did not ask for this, ignore "
                "this email: nothing changes without it.",
                "and press the button there. The link works for %(n)d hours. If you did not ask for this, ignore "
                "this email: nothing changes without it.",
                hours,
            )
            % {"n": hours}
            + "\n"
        )
    transaction.on_commit(lambda: send_mail(subject, body, None, [address]))
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
        raise VerificationExpiredError(gettext("This link has expired. Ask for a new one on the email page.")) from None
    except signing.BadSignature:
        raise VerificationError(gettext("This link is damaged or was not made by this site.")) from None
    if not isinstance(payload, dict) or not {"u", "e", "o"} <= set(payload):
        raise VerificationError(gettext("This link is damaged or was not made by this site."))
    with transaction.atomic():
        user = User.objects.select_for_update().filter(pk=payload["u"], is_active=True).first()
        if user is None or not constant_time_compare(payload["o"], _email_digest(user.email or "")):
            raise VerificationError(
                gettext("This link was already used, or the address has changed since it was sent. Ask for a new one.")
            )
        old = user.email
        address = str(payload["e"])
        if _email_taken_by_another(email=address, user=user, now=now):
            raise InvalidInput({"email": [gettext("An account with this email address exists.")]})
        # Sign-ups with this address whose codes are dead gave way: they go, as for a new sign-up.
        pending_signups().filter(email__iexact=address).exclude(pk__in=live_codes(now).values("user_id")).delete()
        user.email = address
        user.save(update_fields=["email"])
        Player.objects.filter(user=user).update(email_verified_at=now)
        # The primary address is User.email: it is not also one of the account's added ones.
        EmailAddress.objects.filter(user=user, address__iexact=address).delete()
        username = user.get_username()
        if old:
            with in_language_of(user):
                changed = gettext("Your Splendor by post address changed")
                notice = (
                    gettext("Hello,")
                    + "\n\n"
                    + gettext(
                        "The address of the Splendor by post account %(username)s is now %(address)s; game email "
                        "goes there from now on. If you did not make this change, reset your password at once."
                    )
                    % {"username": username, "address": address}
                    + "\n"
                )
            transaction.on_commit(lambda: send_mail(changed, notice, None, [old]))
    return user
