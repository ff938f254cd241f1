"""`Authorization: Bearer spl_...` authentication for the API."""

from __future__ import annotations

import re
from datetime import timedelta
from typing import TYPE_CHECKING

from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext
from rest_framework import exceptions
from rest_framework.authentication import BaseAuthentication, get_authorization_header
from rest_framework.request import Request

from accounts.models import ApiToken
from accounts.selectors import token_get_by_hash
from accounts.token_cache import token_cache, token_cache_seconds
from accounts.tokens import TOKEN_PREFIX, token_hash

if TYPE_CHECKING:
    from django.contrib.auth.models import User

# last_used_at is for people reading their token list; a minute is precise
# enough and spares a database write on every request.
LAST_USED_RESOLUTION = timedelta(minutes=1)

# An auth-scheme name as RFC 9110 writes it (a token): only such a name is echoed back.
_SCHEME = re.compile(rb"[A-Za-z0-9!#$%&'*+.^_`|~-]{1,32}")


def missing_credentials(request: Request) -> exceptions.NotAuthenticated:
    """The 401 for a request that needs a token and has none.

    A header in another scheme (`Token abc`, `Basic ...`) is named: DRF would say
    that no credentials were provided, which sends a client that did send some
    looking in the wrong place.
    """
    parts = get_authorization_header(request).split()
    if parts and parts[0].lower() != BearerTokenAuthentication.keyword.lower().encode():
        if _SCHEME.fullmatch(parts[0]):
            return exceptions.NotAuthenticated(
                gettext(
                    "This API does not take `Authorization: %(scheme)s ...`; send `Authorization: Bearer <token>` "
                    "with a token minted at POST /api/v1/tokens/."
                )
                % {"scheme": parts[0].decode("ascii")}
            )
        return exceptions.NotAuthenticated(
            gettext(
                "This API does not take `Authorization` in that scheme; send `Authorization: Bearer <token>` "
                "with a token minted at POST /api/v1/tokens/."
            )
        )
    return exceptions.NotAuthenticated(
        gettext(
            "This needs an API token: send `Authorization: Bearer <token>` with a token minted at POST /api/v1/tokens/."
        )
    )


class BearerTokenAuthentication(BaseAuthentication):
    keyword = "Bearer"

    def authenticate(self, request: Request) -> tuple[User, ApiToken] | None:
        parts = get_authorization_header(request).split()
        if not parts or parts[0].lower() != self.keyword.lower().encode():
            # Not ours: the request is anonymous as far as we are concerned. An
            # endpoint open to everyone still serves it (say, behind a proxy that
            # sends Basic credentials); one that needs a token answers with
            # missing_credentials, which names the scheme.
            return None
        if len(parts) != 2:
            raise exceptions.AuthenticationFailed(
                gettext("Malformed Authorization header: send `Authorization: Bearer <token>`."),
                code="invalid_token",
            )
        try:
            plaintext = parts[1].decode("ascii")
        except UnicodeDecodeError:
            raise exceptions.AuthenticationFailed(
                gettext("The token contains characters a token never has."), code="invalid_token"
            ) from None

        if not plaintext.startswith(TOKEN_PREFIX):
            raise self._invalid()
        key_hash = token_hash(plaintext)
        max_age = token_cache_seconds()
        token = token_cache.get(key_hash, max_age=max_age) if max_age > 0 else None
        if token is None:
            # Read before the query: the entry is no older than the rows it holds.
            began = token_cache.begin()
            token = token_get_by_hash(key_hash=key_hash)
            if token is None:
                raise self._invalid()
            self._check(token)
            if max_age > 0:
                # Only a token that authenticated is kept (accounts.token_cache).
                token_cache.put(key_hash, token, began=began)
        else:
            # Kept only while all was well; checked again all the same.
            self._check(token)

        self._touch(token, key_hash)
        return (token.user, token)

    @staticmethod
    def _invalid() -> exceptions.AuthenticationFailed:
        return exceptions.AuthenticationFailed(
            gettext("This token is not valid. Mint a new one at POST /api/v1/tokens/."), code="invalid_token"
        )

    @staticmethod
    def _check(token: ApiToken) -> None:
        if token.is_revoked:
            raise exceptions.AuthenticationFailed(
                gettext("This token was revoked. Mint a new one at POST /api/v1/tokens/."), code="token_revoked"
            )
        if not token.user.is_active:
            raise exceptions.AuthenticationFailed(gettext("This account is disabled."), code="account_disabled")
        player = getattr(token.user, "player", None)
        if player is not None and player.is_suspended:
            raise exceptions.AuthenticationFailed(
                gettext("A moderator suspended this account; its tokens do not work while it is suspended."),
                code="account_suspended",
            )

    def authenticate_header(self, request: Request) -> str:
        return f'{self.keyword} realm="api"'

    @staticmethod
    def _touch(token: ApiToken, key_hash: str) -> None:
        now = timezone.now()
        if token.last_used_at is not None and now - token.last_used_at < LAST_USED_RESOLUTION:
            return
        # Conditional, so concurrent requests write at most once per minute.
        ApiToken.objects.filter(
            Q(last_used_at__isnull=True) | Q(last_used_at__lt=now - LAST_USED_RESOLUTION), pk=token.pk
        ).update(last_used_at=now)
        token.last_used_at = now
        # Decided from the kept copy too: it learns of the write, so the next
        # requests of this process do not try again within the minute.
        token_cache.note_used(key_hash, at=now)
