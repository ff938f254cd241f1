"""Reads for the accounts app."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.db.models import QuerySet

from accounts.models import ApiToken
from accounts.tokens import TOKEN_PREFIX, token_hash

if TYPE_CHECKING:
    from django.contrib.auth.models import User


def token_get_by_plaintext(*, plaintext: str) -> ApiToken | None:
    """The token (revoked or not) whose secret is `plaintext`, with its user and the
    user's player, in one query (every API request makes it)."""
    if not plaintext.startswith(TOKEN_PREFIX):
        return None
    try:
        # get(), not first(): key_hash is unique, and first() would add an ORDER BY.
        return ApiToken.objects.select_related("user__player").get(key_hash=token_hash(plaintext))
    except ApiToken.DoesNotExist:
        return None


def token_list(*, user: User) -> QuerySet[ApiToken]:
    return ApiToken.objects.filter(user=user)


def token_get_for_user(*, user: User, token_id: int) -> ApiToken | None:
    """The user's own token with this id; None for unknown ids and other people's tokens."""
    return ApiToken.objects.filter(user=user, pk=token_id).first()
