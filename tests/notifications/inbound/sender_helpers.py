"""Sender authentication offline: a DNS zone held in memory (FakeZone, a
notifications.inbound.authentication.Resolver) and a DKIM key of the tests'
own, made once per run with openssl and published in the zone."""

from __future__ import annotations

import base64
import subprocess
from functools import lru_cache

import dkim  # type: ignore[import-untyped]

from notifications.inbound.authentication import DnsFailure

SELECTOR = "s2026"
# The authserv-id the test settings trust (tests/notifications/inbound/conftest.py).
AUTHSERV_ID = "mx.splendor.test"


class FakeZone:
    """Records by (name, type); names in ``failing`` answer with a DNS failure."""

    def __init__(self) -> None:
        self.records: dict[tuple[str, str], list[str]] = {}
        self.failing: set[str] = set()
        self.asked: list[tuple[str, str]] = []

    def add(self, name: str, rdtype: str, *values: str) -> FakeZone:
        self.records.setdefault((name.lower(), rdtype), []).extend(values)
        return self

    def lookup(self, name: str, rdtype: str) -> list[str]:
        name = name.lower().rstrip(".")
        self.asked.append((name, rdtype))
        if name in self.failing:
            raise DnsFailure(f"{rdtype} {name}: timed out")
        return list(self.records.get((name, rdtype), []))


@lru_cache(maxsize=1)
def signing_key() -> tuple[bytes, str]:
    """A fresh 2048-bit RSA key: the private key (PEM) and the public key as a
    DKIM record's p= (base64 of its DER)."""
    private = subprocess.run(["openssl", "genrsa", "2048"], capture_output=True, check=True, timeout=60).stdout
    public = subprocess.run(
        ["openssl", "rsa", "-pubout", "-outform", "DER"], input=private, capture_output=True, check=True, timeout=60
    ).stdout
    return private, base64.b64encode(public).decode("ascii")


def publish_key(zone: FakeZone, domain: str, selector: str = SELECTOR) -> FakeZone:
    return zone.add(f"{selector}._domainkey.{domain}", "TXT", f"v=DKIM1; k=rsa; p={signing_key()[1]}")


def dkim_signed(raw: bytes, domain: str, *, selector: str = SELECTOR, length: bool = False) -> bytes:
    """``raw`` with a DKIM-Signature of ``domain`` on top (the From:, To:,
    Subject: and body signed)."""
    signature = dkim.sign(
        raw, selector.encode(), domain.encode(), signing_key()[0],
        include_headers=[b"from", b"to", b"subject", b"message-id"], length=length,
    )  # fmt: skip
    return bytes(signature) + raw


def results_header(body: str, *, authserv_id: str = AUTHSERV_ID) -> bytes:
    return f"Authentication-Results: {authserv_id}; {body}\r\n".encode()
