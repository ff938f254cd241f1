"""Who is calling: the client's address, believing X-Forwarded-For only as far
as the operator says.

``TRUSTED_PROXIES`` (settings, from the environment) is either a number of
proxies in front of the service (take that many hops from the right of
X-Forwarded-For) or a list of networks (walk X-Forwarded-For from the right,
skipping addresses inside them, and stop at the first one outside). The
default, no proxies, uses REMOTE_ADDR alone: any X-Forwarded-For a client sends
is ignored, so it cannot pick its own rate-limit bucket. The same trust decides
whether a request's X-Request-ID is taken (api.request_id), and keeps
METRICS_ALLOWED_NETWORKS from opening /metrics to a proxy (api.metrics): a
proxy's address is everyone's who comes through it.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Sequence

from django.conf import settings
from django.http import HttpRequest

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def _parse(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(text.strip())
    except ValueError:
        return None


def from_trusted_proxy(remote_addr: str, trusted: int | Sequence[Network]) -> bool:
    """Whether the request came through one of our proxies, so that the headers
    they set (X-Forwarded-For, X-Request-ID) may be believed: with a count of
    proxies, always (the nearest one is REMOTE_ADDR); with their networks, when
    REMOTE_ADDR is inside one; with none, never."""
    if isinstance(trusted, int):
        return trusted > 0
    remote = _parse(remote_addr)
    return remote is not None and any(remote in net for net in trusted)


def address_from(remote_addr: str, forwarded_for: str | None, trusted: int | Sequence[Network]) -> str:
    """The client's address from REMOTE_ADDR, an X-Forwarded-For value and the
    trusted proxies (a count, or networks). Pure, for tests."""
    hops = [h.strip() for h in (forwarded_for or "").split(",") if h.strip()]
    if isinstance(trusted, int):
        if trusted <= 0 or not hops:
            return remote_addr
        # The last `trusted` hops were written by our own proxies; the one before
        # the nearest proxy is the client as that proxy saw it.
        chain = [*hops, remote_addr]
        candidate = chain[max(0, len(chain) - 1 - trusted)]
        return candidate if _parse(candidate) is not None else remote_addr
    if not from_trusted_proxy(remote_addr, trusted):
        return remote_addr  # not from a proxy we trust: its header means nothing
    for hop in reversed(hops):
        address = _parse(hop)
        if address is None:
            return remote_addr
        if not any(address in net for net in trusted):
            return hop
    return hops[0] if hops else remote_addr


def client_address(request: HttpRequest) -> str:
    """The address to identify an anonymous caller by (rate limits, lockouts)."""
    return address_from(
        request.META.get("REMOTE_ADDR", ""),
        request.META.get("HTTP_X_FORWARDED_FOR"),
        settings.TRUSTED_PROXIES,
    )
