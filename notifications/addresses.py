"""Email addresses as this app may keep or log them: a digest that names nobody
(invitation opt-outs) and a redacted form for log lines."""

from __future__ import annotations

import hashlib


def address_digest(address: str) -> str:
    """SHA-256 hex of the lower-cased, trimmed address."""
    return hashlib.sha256(address.strip().lower().encode()).hexdigest()


def address_redacted(address: str) -> str:
    """``a***@example.com``: enough to tell addresses apart in a log, not to write to one."""
    local, at, domain = address.strip().rpartition("@")
    if not at:
        return "***"
    return f"{local[:1]}***@{domain}"
