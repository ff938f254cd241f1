"""Webhook URLs may only reach public addresses (no server-side request forgery).

A URL is checked when it is registered and again, inside the connection, each
time a delivery is sent: ``CheckedAdapter`` resolves the host itself, refuses
it unless every address is public, and connects to an address it checked, so a
DNS answer that changes in between cannot point a delivery at the inside.
Redirects are never followed (``allow_redirects=False`` in webhooks.services).

An IPv6 address can carry an IPv4 one (IPv4-mapped, NAT64, 6to4, Teredo, ...):
each such form is judged by what it carries, or refused outright when it is a
retired tunnel whose far end nobody here controls. Only the ports in
WEBHOOKS_ALLOWED_PORTS are connected to (80 and 443 unless the operator says
otherwise), so a public host's other services (SMTP, databases, admin ports) are
out of reach; loopback, when WEBHOOKS_ALLOW_LOOPBACK allows it, keeps any port.

At delivery, every step of the connection (the name look-up too) is bounded by
the attempt's deadline (webhooks.deadline), when one is running.
"""

from __future__ import annotations

import ipaddress
import socket
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any
from urllib.parse import SplitResult, urlsplit

from django.conf import settings
from django.utils.translation import gettext
from requests.adapters import HTTPAdapter
from urllib3.connection import HTTPConnection, HTTPSConnection
from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool
from urllib3.exceptions import ConnectTimeoutError, NewConnectionError

from core.text import listed
from webhooks.deadline import current_deadline
from webhooks.errors import UnsafeAddress, UnsafePort, WebhookUrlRefused
from webhooks.models import MAX_URL_LENGTH

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
ALLOWED_SCHEMES = ("https", "http")


def url_parse(url: str) -> SplitResult:
    """The URL's parts, or WebhookUrlRefused saying what is wrong with it."""

    def refuse(message: str) -> WebhookUrlRefused:
        return WebhookUrlRefused({"url": [message]})

    if len(url) > MAX_URL_LENGTH:
        raise refuse(gettext("A webhook URL has at most %(most)d characters.") % {"most": MAX_URL_LENGTH})
    if any(ch.isspace() or ord(ch) < 32 for ch in url):
        raise refuse(gettext("A webhook URL has no spaces or control characters."))
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        raise refuse(gettext("This is not a URL that can be read; give one like https://example.com/hook.")) from None
    if parts.scheme.lower() not in ALLOWED_SCHEMES:
        raise refuse(gettext("A webhook URL starts with https:// (or http://)."))
    if not parts.hostname:
        raise refuse(gettext("A webhook URL names a host, as in https://example.com/hook."))
    if parts.username is not None or parts.password is not None:
        raise refuse(
            gettext("A webhook URL carries no user name or password; put a token in the path or query instead.")
        )
    if parts.fragment:
        raise refuse(gettext("A webhook URL has no #fragment: it is never sent to the server."))
    if port == 0:
        raise refuse(gettext("Port 0 cannot be connected to."))
    return parts


# IPv6 addresses that carry an IPv4 address. NAT64's well-known prefix (RFC 6052)
# is what a DNS64 resolver on an IPv6-only network answers for an IPv4-only host,
# so it is judged by the address it carries; the others are refused whatever they
# carry: the local-use NAT64 prefix (RFC 8215) maps where its operator decides,
# 6to4 (RFC 3056, retired by RFC 7526) and Teredo (RFC 4380) go through relays
# to an IPv4 address written inside, and the IPv4-compatible (RFC 4291,
# deprecated) and IPv4-translated (RFC 2765) forms are not routed on the Internet.
NAT64 = ipaddress.IPv6Network("64:ff9b::/96")
REFUSED_FORMS = (
    (ipaddress.IPv6Network("64:ff9b:1::/48"), "a local-use NAT64 address"),
    (ipaddress.IPv6Network("2002::/16"), "a 6to4 address"),
    (ipaddress.IPv6Network("2001::/32"), "a Teredo address"),
    (ipaddress.IPv6Network("::ffff:0:0:0/96"), "an IPv4-translated address"),
    (ipaddress.IPv6Network("::/96"), "an IPv4-compatible address"),
)


def _carried_ipv4(address: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    """The IPv4 address written in ``address`` by the form it has, if any."""
    if address.sixtofour is not None:
        return address.sixtofour
    if address.teredo is not None:
        return address.teredo[1]  # the client, behind its NAT
    if address in NAT64 or address in REFUSED_FORMS[0][0] or address in REFUSED_FORMS[3][0]:
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    if address in REFUSED_FORMS[4][0]:
        return ipaddress.IPv4Address(int(address))
    return None


def _embedded_refusal(address: ipaddress.IPv6Address) -> str | None:
    """Why an IPv6 address that carries an IPv4 one is refused; None when it does
    not carry one, or carries a public one through NAT64's well-known prefix."""
    if address in NAT64:
        inner = _carried_ipv4(address)
        assert inner is not None
        reason = _own_refusal(inner, loopback_allowed=False)
        return None if reason is None else f"a NAT64 address carrying {reason} ({inner})"
    for network, form in REFUSED_FORMS:
        if address in network:
            inner = _carried_ipv4(address)
            carried = _own_refusal(inner, loopback_allowed=False) if inner is not None else None
            return f"{form}, carrying {carried} ({inner})" if carried else form
    return None


def _own_refusal(address: IPAddress, *, loopback_allowed: bool) -> str | None:
    """Why the address, taken as it is written, is not public; None when it is."""
    if address.is_loopback:
        return None if loopback_allowed else "a loopback address"
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


def address_refusal(address: IPAddress) -> str | None:
    """Why deliveries may not go to this address, or None when they may."""
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return address_refusal(address.ipv4_mapped)
        # :: and ::1 lie in the IPv4-compatible range but are themselves.
        if not (address.is_loopback or address.is_unspecified):
            if address in NAT64 or any(address in network for network, _ in REFUSED_FORMS):
                return _embedded_refusal(address)
    return _own_refusal(address, loopback_allowed=settings.WEBHOOKS_ALLOW_LOOPBACK)


def _is_loopback(address: IPAddress) -> bool:
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped.is_loopback
    return address.is_loopback


def port_refusal(port: int, addresses: list[IPAddress]) -> str | None:
    """Why deliveries may not go to this port of these addresses, or None."""
    allowed: list[int] = settings.WEBHOOKS_ALLOWED_PORTS
    if port in allowed:
        return None
    if settings.WEBHOOKS_ALLOW_LOOPBACK and addresses and all(_is_loopback(a) for a in addresses):
        return None  # a developer's own receiver, on whatever port it listens
    ports = listed([str(p) for p in allowed], conjunction="and")
    return f"port {port} is not one webhooks are sent to (only {ports})"


# Name look-ups at delivery run here, so that a resolver that does not answer
# costs an attempt no more than its deadline (getaddrinfo itself cannot be cut short).
_resolver = ThreadPoolExecutor(max_workers=4, thread_name_prefix="webhook-dns")


def _resolve(host: str, port: int, *, within: float | None = None) -> list[IPAddress]:
    """Every address ``host`` resolves to (UnsafeAddress when it does not), waiting
    at most ``within`` seconds when given."""
    try:
        if within is None:
            infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        else:
            look_up = _resolver.submit(socket.getaddrinfo, host, port, type=socket.SOCK_STREAM)
            infos = look_up.result(timeout=max(within, 0.0))
    except FutureTimeout:
        raise UnsafeAddress(f"the host {host} was not resolved within {within:.3g} seconds") from None
    except (socket.gaierror, UnicodeError, OSError) as exc:
        raise UnsafeAddress(f"the host {host} does not resolve ({exc.__class__.__name__})") from None
    addresses: list[IPAddress] = []
    for info in infos:
        address = ipaddress.ip_address(str(info[4][0]).split("%", 1)[0])
        if address not in addresses:
            addresses.append(address)
    if not addresses:
        raise UnsafeAddress(f"the host {host} does not resolve")
    return addresses


def host_addresses(host: str, port: int, *, within: float | None = None) -> list[IPAddress]:
    """Every address ``host`` resolves to, all of them checked, and the port with
    them; UnsafeAddress names the first address refused (or says that the host
    does not resolve), UnsafePort the port."""
    addresses = _resolve(host, port, within=within)
    for address in addresses:
        reason = address_refusal(address)
        if reason is not None:
            raise UnsafeAddress(f"the host {host} resolves to {reason} ({address})")
    reason = port_refusal(port, addresses)
    if reason is not None:
        raise UnsafePort(reason)
    return addresses


def _port(parts: SplitResult) -> int:
    return parts.port or (443 if parts.scheme.lower() == "https" else 80)


def url_check(url: str) -> str:
    """Refuse (WebhookUrlRefused) a URL that is malformed, whose host is not
    public, or whose port is not among WEBHOOKS_ALLOWED_PORTS."""
    parts = url_parse(url)
    assert parts.hostname is not None  # url_parse refuses a URL without one
    try:
        host_addresses(parts.hostname, _port(parts))
    except UnsafePort as exc:
        raise WebhookUrlRefused(
            {"url": [gettext("Webhooks are sent to standard web ports only: %(why)s.") % {"why": exc}]}
        ) from None
    except UnsafeAddress as exc:
        raise WebhookUrlRefused(
            {"url": [gettext("Webhooks are only sent to public addresses, and %(why)s.") % {"why": exc}]},
        ) from None
    return url


def url_port_refusal(url: str) -> str | None:
    """Why a registered URL's port is no longer allowed, or None: for endpoints
    registered before WEBHOOKS_ALLOWED_PORTS (webhooks.services.endpoints_disable_refused_ports).
    Looks the host up only when loopback is allowed (its receivers keep any port);
    a URL that cannot be read or looked up is left to the delivery's own checks."""
    try:
        parts = url_parse(url)
    except WebhookUrlRefused:
        return None
    assert parts.hostname is not None
    port = _port(parts)
    addresses: list[IPAddress] = []
    if port not in settings.WEBHOOKS_ALLOWED_PORTS and settings.WEBHOOKS_ALLOW_LOOPBACK:
        try:
            addresses = _resolve(parts.hostname, port)
        except UnsafeAddress:
            return None
    return port_refusal(port, addresses)


# --- at delivery time -----------------------------------------------------------


class _CheckedMixin:
    host: str
    port: int
    timeout: Any
    _dns_host: str

    def _new_conn(self) -> socket.socket:
        # Resolve and check here, then connect to a checked address: the same
        # answer serves the check and the connection. urllib3 connects to
        # `_dns_host`, which is put back at once: the Host header, TLS's server
        # name and the certificate check all use the host name (`self.host`).
        # Within an attempt's deadline, the look-up and each connect get only
        # what is left of it, and the socket is handed to the deadline, which
        # shuts it when time is up (whatever the TLS handshake or the answer is doing).
        deadline = current_deadline()
        addresses = host_addresses(self.host, self.port, within=deadline.remaining() if deadline else None)
        name = self._dns_host
        try:
            for index, address in enumerate(addresses):
                self._dns_host = str(address)
                if deadline is not None:
                    left = deadline.remaining()
                    if left <= 0:
                        raise ConnectTimeoutError(self, f"No time left to connect to {self.host}.")
                    if not isinstance(self.timeout, int | float) or self.timeout > left:
                        self.timeout = left
                try:
                    sock: socket.socket = super()._new_conn()  # type: ignore[misc]
                except (NewConnectionError, ConnectTimeoutError):
                    if index == len(addresses) - 1:
                        raise
                    continue
                if deadline is not None:
                    deadline.watch(sock)
                return sock
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
