"""Webhook URLs may only reach public addresses (no server-side request forgery).

A URL is checked when it is registered and again, inside the connection, each
time a delivery is sent: ``CheckedAdapter`` resolves the host itself, refuses
it unless every address is public, and connects to an address it checked, so a
DNS answer that changes in between cannot point a delivery at the inside.
Redirects are never followed (``allow_redirects=False`` in webhooks.services).
"""

from __future__ import annotations

import ipaddress
import socket
from typing import Any
from urllib.parse import SplitResult, urlsplit

from django.conf import settings
from requests.adapters import HTTPAdapter
from urllib3.connection import HTTPConnection, HTTPSConnection
from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool
from urllib3.exceptions import ConnectTimeoutError, NewConnectionError

from webhooks.errors import UnsafeAddress, WebhookUrlRefused
from webhooks.models import MAX_URL_LENGTH

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
ALLOWED_SCHEMES = ("https", "http")


def url_parse(url: str) -> SplitResult:
    """The URL's parts, or WebhookUrlRefused saying what is wrong with it."""

    def refuse(message: str) -> WebhookUrlRefused:
        return WebhookUrlRefused({"url": [message]})

    if len(url) > MAX_URL_LENGTH:
        raise refuse(f"A webhook URL has at most {MAX_URL_LENGTH} characters.")
    if any(ch.isspace() or ord(ch) < 32 for ch in url):
        raise refuse("A webhook URL has no spaces or control characters.")
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        raise refuse("This is not a URL that can be read; give one like https://example.com/hook.") from None
    if parts.scheme.lower() not in ALLOWED_SCHEMES:
        raise refuse("A webhook URL starts with https:// (or http://).")
    if not parts.hostname:
        raise refuse("A webhook URL names a host, as in https://example.com/hook.")
    if parts.username is not None or parts.password is not None:
        raise refuse("A webhook URL carries no user name or password; put a token in the path or query instead.")
    if parts.fragment:
        raise refuse("A webhook URL has no #fragment: it is never sent to the server.")
    if port == 0:
        raise refuse("Port 0 cannot be connected to.")
    return parts


def address_refusal(address: IPAddress) -> str | None:
    """Why deliveries may not go to this address, or None when they may."""
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address_refusal(address.ipv4_mapped)
    if address.is_loopback:
        return None if settings.WEBHOOKS_ALLOW_LOOPBACK else "a loopback address"
    if address.is_unspecified:
        return "the unspecified address"
    if address.is_link_local:
        return "a link-local address"
    if address.is_multicast:
        return "a multicast address"
    if address.is_reserved:
        return "a reserved address"
    if address.is_private:
        return "a private address"
    if not address.is_global:
        return "an address that is not public"
    return None


def host_addresses(host: str, port: int) -> list[IPAddress]:
    """Every address ``host`` resolves to, all of them checked; UnsafeAddress
    names the first that is refused (or says that the host does not resolve)."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError, OSError) as exc:
        raise UnsafeAddress(f"the host {host} does not resolve ({exc.__class__.__name__})") from None
    addresses: list[IPAddress] = []
    for info in infos:
        address = ipaddress.ip_address(str(info[4][0]).split("%", 1)[0])
        reason = address_refusal(address)
        if reason is not None:
            raise UnsafeAddress(f"the host {host} resolves to {reason} ({address})")
        if address not in addresses:
            addresses.append(address)
    if not addresses:
        raise UnsafeAddress(f"the host {host} does not resolve")
    return addresses


def url_check(url: str) -> str:
    """Refuse (WebhookUrlRefused) a URL that is malformed or whose host is not public."""
    parts = url_parse(url)
    assert parts.hostname is not None  # url_parse refuses a URL without one
    port = parts.port or (443 if parts.scheme.lower() == "https" else 80)
    try:
        host_addresses(parts.hostname, port)
    except UnsafeAddress as exc:
        raise WebhookUrlRefused(
            {"url": [f"Webhooks are only sent to public addresses, and {exc}."]},
        ) from None
    return url


# --- at delivery time -----------------------------------------------------------


class _CheckedMixin:
    host: str
    port: int
    _dns_host: str

    def _new_conn(self) -> socket.socket:
        # Resolve and check here, then connect to a checked address: the same
        # answer serves the check and the connection. urllib3 connects to
        # `_dns_host`, which is put back at once: the Host header, TLS's server
        # name and the certificate check all use the host name (`self.host`).
        addresses = host_addresses(self.host, self.port)
        name = self._dns_host
        try:
            for index, address in enumerate(addresses):
                self._dns_host = str(address)
                try:
                    sock: socket.socket = super()._new_conn()  # type: ignore[misc]
                    return sock
                except (NewConnectionError, ConnectTimeoutError):
                    if index == len(addresses) - 1:
                        raise
        finally:
            self._dns_host = name
        raise AssertionError("host_addresses returns at least one address")


class _CheckedHTTPConnection(_CheckedMixin, HTTPConnection):
    pass


class _CheckedHTTPSConnection(_CheckedMixin, HTTPSConnection):
    pass


class _CheckedHTTPPool(HTTPConnectionPool):
    ConnectionCls = _CheckedHTTPConnection


class _CheckedHTTPSPool(HTTPSConnectionPool):
    ConnectionCls = _CheckedHTTPSConnection


class CheckedAdapter(HTTPAdapter):
    """A requests adapter whose connections go only to checked public addresses."""

    def init_poolmanager(self, *args: Any, **kwargs: Any) -> None:
        super().init_poolmanager(*args, **kwargs)
        self.poolmanager.pool_classes_by_scheme = {"http": _CheckedHTTPPool, "https": _CheckedHTTPSPool}
