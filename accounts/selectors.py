"""Reads for the accounts app."""

from __future__ import annotations

import re
from datetime import datetime
from typing import TYPE_CHECKING, TypedDict

from django.contrib.auth import get_user_model
from django.db.models import Q, QuerySet

from accounts import token_rows
from accounts.errors import PlayerNotFoundError
from accounts.models import ApiToken, CalendarFeed, EmailAddress, Player
from accounts.tokens import TOKEN_PREFIX, token_hash

if TYPE_CHECKING:
    from django.contrib.auth.models import User


def token_get_by_plaintext(*, plaintext: str) -> ApiToken | None:
    """The token (revoked or not) whose secret is `plaintext` (see token_get_by_hash)."""
    if not plaintext.startswith(TOKEN_PREFIX):
        return None
    return token_get_by_hash(key_hash=token_hash(plaintext))


def token_get_by_hash(*, key_hash: str) -> ApiToken | None:
    """The token (revoked or not) whose secret's SHA-256 is `key_hash`, with its
    user, the user's player and calendar address (GET /api/v1/me/ shows it), in
    one query (an API request makes it unless accounts.token_cache has the token),
    as ``select_related("user__player", "user__calendar_feed")`` leaves them. The
    statement is written once per connection (accounts.token_rows)."""
    return token_rows.token_with_account(key_hash)


# What a calendar secret can look like (accounts.services.calendar_feeds): anything
# else is refused unread.
_CALENDAR_SECRET = re.compile(r"[A-Za-z0-9_-]{20,64}")


def calendar_feed_owner(*, secret: str) -> Player | None:
    """The player whose deadlines calendar ``secret`` opens, with their user, in one
    query; None for an unknown or replaced secret and for an account that may not
    be served (disabled, erased, suspended). Looked up by the secret's SHA-256,
    never by the secret itself, so that the time a look-up takes tells nothing."""
    if not _CALENDAR_SECRET.fullmatch(secret):
        return None
    try:
        # SHA-256, as for API tokens (accounts.tokens); get(): the digest is unique.
        feed = CalendarFeed.objects.select_related("user__player").get(secret_digest=token_hash(secret))
    except CalendarFeed.DoesNotExist:
        return None
    if not feed.user.is_active:
        return None
    try:
        player: Player = feed.user.player
    except Player.DoesNotExist:
        return None
    if player.is_erased or player.is_suspended:
        return None
    return player


def token_list(*, user: User) -> QuerySet[ApiToken]:
    return ApiToken.objects.filter(user=user)


def token_get_for_user(*, user: User, token_id: int) -> ApiToken | None:
    """The user's own token with this id; None for unknown ids and other people's tokens."""
    return ApiToken.objects.filter(user=user, pk=token_id).first()


class AddressEntry(TypedDict):
    """One of the account's addresses as its owner sees it: the primary one
    (``User.email``, which has no id: it is not an EmailAddress row) or an added one."""

    id: int | None
    address: str
    verified: bool
    verified_at: datetime | None
    primary: bool
    created_at: datetime


def email_addresses_list(*, user: User, player: Player | None = None) -> list[AddressEntry]:
    """The account's addresses: the primary one first, then the added ones in the
    order they were added. `player`, when the caller has it, saves reading it again."""
    entries: list[AddressEntry] = []
    if user.email:
        player = player if player is not None else Player.objects.filter(user=user).first()
        verified_at = player.email_verified_at if player is not None else None
        entries.append(
            {"id": None, "address": user.email, "verified": verified_at is not None, "verified_at": verified_at,
             "primary": True, "created_at": user.date_joined}
        )  # fmt: skip
    for row in EmailAddress.objects.filter(user=user).order_by("created_at", "id"):
        entries.append(
            {"id": row.pk, "address": row.address, "verified": row.is_verified, "verified_at": row.verified_at,
             "primary": False, "created_at": row.created_at}
        )  # fmt: skip
    return entries


def email_address_get(*, user: User, address_id: int) -> AddressEntry | None:
    """The account's added address with this id, or None (for another account's too)."""
    return next((entry for entry in email_addresses_list(user=user) if entry["id"] == address_id), None)


def user_for_verified_address(*, address: str) -> User | None:
    """The account that may act by email from `address`: active, verified, not
    erased, and holding `address` (in any case) as its primary address or as a
    verified added one. None for anyone else, and when two accounts hold it
    (accounts made before addresses were compared)."""
    address = address.strip()
    if not address or "\x00" in address:
        return None
    holds = Q(email__iexact=address) | Q(
        pk__in=EmailAddress.objects.filter(address__iexact=address, verified_at__isnull=False).values("user_id")
    )
    users = list(
        get_user_model()
        .objects.select_related("player")
        .filter(holds, is_active=True, player__email_verified_at__isnull=False, player__erased_at__isnull=True)
        .order_by("pk")[:2]
    )
    return users[0] if len(users) == 1 else None


def email_address_verified(*, user_id: int, address: str) -> EmailAddress | None:
    """The account's verified added address `address` (in any case), else None
    (also for its primary address, which is no EmailAddress row)."""
    address = address.strip()
    if not address or "\x00" in address:
        return None
    return EmailAddress.objects.filter(user_id=user_id, address__iexact=address, verified_at__isnull=False).first()


def email_address_waiting(*, user_id: int, address: str) -> EmailAddress | None:
    """The account's added address `address` (in any case) while it is not verified, else None."""
    address = address.strip()
    if not address or "\x00" in address:
        return None
    return EmailAddress.objects.filter(user_id=user_id, address__iexact=address, verified_at__isnull=True).first()


class AccountExport(TypedDict):
    username: str
    email: str
    display_name: str
    date_joined: datetime
    last_login: datetime | None
    email_verified_at: datetime | None
    has_password: bool
    # Every address of the account, the primary one (``email``) first.
    addresses: list[AddressEntry]


def account_export(*, user: User) -> AccountExport:
    """What the account holds about its owner, for their own export."""
    try:
        player: Player | None = user.player  # loaded with the request's token, most often
    except Player.DoesNotExist:
        player = None
    return {
        "username": user.get_username(),
        "email": user.email,
        "display_name": player.display_name if player is not None else user.get_username(),
        "date_joined": user.date_joined,
        "last_login": user.last_login,
        "email_verified_at": player.email_verified_at if player is not None else None,
        "has_password": user.has_usable_password(),
        "addresses": email_addresses_list(user=user, player=player),
    }


def player_get_public(*, username: str) -> Player:
    """The player with this username (in any case) whom others may look up: active,
    verified and not erased. Anyone else is PlayerNotFoundError."""
    if not username or len(username) > 150 or "\x00" in username:
        # No account has such a name, and PostgreSQL refuses NUL in a query.
        raise PlayerNotFoundError("There is no player with that username.")
    player = (
        Player.objects.select_related("user")
        .filter(
            user__username__iexact=username,
            user__is_active=True,
            email_verified_at__isnull=False,
            erased_at__isnull=True,
        )
        .order_by("pk")
        .first()
    )
    if player is None:
        raise PlayerNotFoundError(f"There is no player with the username {username!r}.")
    return player


def player_email_warning(*, player: Player) -> str | None:
    """What the player should know about their address: mail to it bounced, so no
    game email goes there until they change it. None when all is well."""
    bounced_at = player.email_undeliverable_at
    if bounced_at is None:
        return None
    reason = f" ({player.email_undeliverable_reason})" if player.email_undeliverable_reason else ""
    return (
        f"Mail to your address {player.user.email} bounced on {bounced_at:%Y-%m-%d %H:%M} UTC{reason}, so no game "
        "email is sent to it: change your address."
    )
