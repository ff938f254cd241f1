"""Signed tokens in the links of this app's pages: one-click unsubscribe (by
user id) and the invitation opt-out (by the SHA-256 of the address, so the link
never carries the address itself). Neither expires: an old email's link still
works, as RFC 8058 expects."""

from __future__ import annotations

from django.conf import settings
from django.core import signing
from django.urls import reverse

_UNSUBSCRIBE_SALT = "notifications.unsubscribe"
_OPT_OUT_SALT = "notifications.invitation_opt_out"


def unsubscribe_token_for(*, user_id: int) -> str:
    return signing.dumps(user_id, salt=_UNSUBSCRIBE_SALT, compress=False)


def user_id_for_unsubscribe_token(token: str) -> int | None:
    try:
        value = signing.loads(token, salt=_UNSUBSCRIBE_SALT)
    except signing.BadSignature:
        return None
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def opt_out_token_for(*, address_digest: str) -> str:
    return signing.dumps(address_digest, salt=_OPT_OUT_SALT)


def address_digest_for_opt_out_token(token: str) -> str | None:
    try:
        value = signing.loads(token, salt=_OPT_OUT_SALT)
    except signing.BadSignature:
        return None
    return value if isinstance(value, str) and len(value) == 64 else None


def _absolute(path: str) -> str:
    site_url: str = getattr(settings, "SITE_URL", "http://127.0.0.1:8000")
    return site_url.rstrip("/") + path


def unsubscribe_url(*, user_id: int) -> str:
    return _absolute(reverse("notifications:unsubscribe", args=[unsubscribe_token_for(user_id=user_id)]))


def opt_out_url(*, address_digest: str) -> str:
    return _absolute(reverse("notifications:opt-out", args=[opt_out_token_for(address_digest=address_digest)]))
