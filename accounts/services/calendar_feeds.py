"""The secret address of an account's deadlines calendar (``CalendarFeed``):
made on first need, rotated on request. The feed itself is the calendars app's.

The secret is 32 random bytes, URL-safe (43 characters), like an API token's:
nothing in it is derived from the account, and only its SHA-256 is ever
compared (accounts.selectors.calendar_feed_owner)."""

from __future__ import annotations

import secrets
from typing import TYPE_CHECKING

from django.conf import settings
from django.db import IntegrityError, transaction
from django.urls import reverse
from django.utils import timezone

from accounts.models import CalendarFeed
from accounts.tokens import token_hash

if TYPE_CHECKING:
    from django.contrib.auth.models import User

# The URL name of the feed (calendars.urls): reversed by name, since accounts
# imports no app above it.
FEED_URL_NAME = "calendar-feed"


def calendar_secret_generate() -> str:
    return secrets.token_urlsafe(32)


def calendar_secret_digest(secret: str) -> str:
    """SHA-256 hex, as for API tokens: the secret has 256 bits, so a slow hash adds nothing."""
    return token_hash(secret)


def calendar_feed_get(*, user: User) -> CalendarFeed:
    """The account's feed, made with a new secret the first time it is asked for.
    Two first requests at once make one row (the user is unique): the loser reads
    the winner's."""
    try:
        # No query for a user that came with it (the token lookup loads it).
        return user.calendar_feed
    except CalendarFeed.DoesNotExist:
        pass
    secret = calendar_secret_generate()
    try:
        with transaction.atomic():
            return CalendarFeed.objects.create(user=user, secret=secret, secret_digest=calendar_secret_digest(secret))
    except IntegrityError:
        return CalendarFeed.objects.get(user=user)


def calendar_feed_rotate(*, user: User) -> CalendarFeed:
    """A new secret for the account's feed: the old address answers 404 from now on."""
    secret = calendar_secret_generate()
    with transaction.atomic():
        feed = calendar_feed_get(user=user)
        feed = CalendarFeed.objects.select_for_update().get(pk=feed.pk)
        feed.secret, feed.secret_digest, feed.rotated_at = secret, calendar_secret_digest(secret), timezone.now()
        feed.save(update_fields=["secret", "secret_digest", "rotated_at"])
    user.calendar_feed = feed  # what the caller reads next is the new address
    return feed


def calendar_url(*, feed: CalendarFeed) -> str:
    """The feed's absolute address, on SITE_URL as every link the service sends."""
    site_url = str(getattr(settings, "SITE_URL", "")).rstrip("/")
    return site_url + reverse(FEED_URL_NAME, kwargs={"secret": feed.secret})
