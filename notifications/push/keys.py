"""Keys: the server's VAPID pair (from the settings, checked at start-up by
``vapid_settings_check``) and
the keys a browser's subscription carries.

``VAPID_PUBLIC_KEY`` is the urlsafe base64 of the uncompressed P-256 point, the
form a page passes to ``pushManager.subscribe({applicationServerKey})``;
``VAPID_PRIVATE_KEY`` the urlsafe base64 of the 32-byte private number, the form
py-vapid reads (``Vapid.from_string``)."""

from __future__ import annotations

import base64

from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured


def b64url_decode(text: str) -> bytes:
    """Urlsafe base64, with or without its padding; ValueError when it is not."""
    if not isinstance(text, str) or any(ch.isspace() for ch in text):
        raise ValueError("not base64url")
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def b64url_encode(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def vapid_settings_check() -> None:
    """Stop start-up (``NotificationsConfig.ready``) on VAPID settings that could
    only fail later: one key without the other, a key of the wrong size or curve,
    a public key that is not the private one's, a subject push services cannot contact."""
    private_text, public_text = settings.VAPID_PRIVATE_KEY, settings.VAPID_PUBLIC_KEY
    if not (private_text or public_text):
        return
    if not (private_text and public_text):
        raise ImproperlyConfigured(
            "Set both VAPID_PRIVATE_KEY and VAPID_PUBLIC_KEY (manage.py vapid_keys prints a pair), or neither."
        )

    def raw(name: str, value: str, size: int) -> bytes:
        try:
            data = b64url_decode(value)
        except ValueError:
            data = b""
        if len(data) != size:
            raise ImproperlyConfigured(
                f"{name} is not the urlsafe base64 of {size} bytes; manage.py vapid_keys prints a pair."
            )
        return data

    private = raw("VAPID_PRIVATE_KEY", private_text, 32)
    public = raw("VAPID_PUBLIC_KEY", public_text, 65)
    try:
        key = ec.derive_private_key(int.from_bytes(private, "big"), ec.SECP256R1())
    except ValueError:
        raise ImproperlyConfigured("VAPID_PRIVATE_KEY is not a P-256 private key.") from None
    if key.public_key().public_bytes(Encoding.X962, PublicFormat.UncompressedPoint) != public:
        raise ImproperlyConfigured("VAPID_PUBLIC_KEY is not the public key of VAPID_PRIVATE_KEY.")
    if not settings.VAPID_SUBJECT.startswith(("mailto:", "https://")):
        raise ImproperlyConfigured(
            f"VAPID_SUBJECT={settings.VAPID_SUBJECT!r} must be a mailto: or https:// URL that push services can "
            "contact."
        )


def push_enabled() -> bool:
    return bool(settings.VAPID_PRIVATE_KEY and settings.VAPID_PUBLIC_KEY)


def vapid_keys_new() -> tuple[str, str]:
    """A new VAPID pair: (private, public), in the settings' forms."""
    private = ec.generate_private_key(ec.SECP256R1())
    number = private.private_numbers().private_value.to_bytes(32, "big")
    point = private.public_key().public_bytes(Encoding.X962, PublicFormat.UncompressedPoint)
    return b64url_encode(number), b64url_encode(point)


def browser_key_valid(p256dh: str) -> bool:
    """The browser's key is the urlsafe base64 of a point on P-256 (65 bytes, uncompressed)."""
    try:
        raw = b64url_decode(p256dh)
        if len(raw) != 65 or raw[0] != 4:
            return False
        ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), raw)
    except ValueError:
        return False
    return True


def auth_secret_valid(auth: str) -> bool:
    """The browser's auth secret is the urlsafe base64 of 16 bytes (RFC 8291 §3.2)."""
    try:
        return len(b64url_decode(auth)) == 16
    except ValueError:
        return False
