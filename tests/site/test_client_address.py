"""Which address a caller is counted by (api.client_address)."""

import ipaddress

import pytest

from api.client_address import address_from

PROXIES = [ipaddress.ip_network("10.0.0.0/8"), ipaddress.ip_network("127.0.0.1/32")]


@pytest.mark.parametrize(
    "remote, forwarded, trusted, expected",
    [
        ("203.0.113.5", "1.2.3.4", 0, "203.0.113.5"),  # no proxies: the header is ignored
        ("10.0.0.2", "1.2.3.4", 1, "1.2.3.4"),
        ("10.0.0.2", "6.6.6.6, 1.2.3.4", 1, "1.2.3.4"),  # a forged first hop is ignored
        ("10.0.0.2", "6.6.6.6, 1.2.3.4, 10.0.0.9", 2, "1.2.3.4"),
        ("10.0.0.2", None, 1, "10.0.0.2"),
        ("10.0.0.2", "not-an-address", 1, "10.0.0.2"),
        ("10.0.0.2", "6.6.6.6, 1.2.3.4, 10.1.1.1", PROXIES, "1.2.3.4"),
        ("203.0.113.5", "1.2.3.4", PROXIES, "203.0.113.5"),  # not from a trusted proxy
        ("127.0.0.1", "10.0.0.3", PROXIES, "10.0.0.3"),  # every hop is a proxy: the first
    ],
)
def test_the_client_address_believes_only_trusted_proxies(remote, forwarded, trusted, expected):
    assert address_from(remote, forwarded, trusted) == expected
