"""Reading settings from the environment: typed helpers that fail loudly.

Each takes the variable's name and a default for one machine, and turns a bad
value into ImproperlyConfigured naming the variable and the value, so that
start-up stops with a clear message instead of a strange failure later.
"""

from __future__ import annotations

import ipaddress
import os
import re
from urllib.parse import urlsplit

from django.core.exceptions import ImproperlyConfigured
from django.utils.module_loading import import_string


_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}

# Brokers whose client library is installed with the site (redis; amqp and the
# embedded filesystem broker come with Celery).
BROKER_SCHEMES = ("filesystem", "memory", "redis", "rediss", "amqp", "amqps", "pyamqp")

_RATE = re.compile(r"^\d+/(s|sec|second|m|min|minute|h|hour|d|day)$")


def _raw(name: str) -> str | None:
    """The variable's value, or None when it is unset or blank."""
    value = os.environ.get(name)
    if value is None or value.strip() == "":
        return None
    return value.strip()


def env_str(name: str, default: str | None = None) -> str | None:
    value = _raw(name)
    return default if value is None else value


def env_bool(name: str, default: bool) -> bool:
    value = _raw(name)
    if value is None:
        return default
    if value.lower() in _TRUE:
        return True
    if value.lower() in _FALSE:
        return False
    raise ImproperlyConfigured(
        f"{name}={value!r} is not a boolean: use one of true/false, 1/0, yes/no, on/off."
    )


def env_choice(name: str, default: str, choices: tuple[str, ...]) -> str:
    """One of ``choices`` (compared without regard to case)."""
    value = _raw(name)
    if value is None:
        return default
    if value.lower() not in choices:
        raise ImproperlyConfigured(f"{name}={value!r} is not one of {', '.join(choices)}.")
    return value.lower()


def env_int(name: str, default: int, *, minimum: int | None = None) -> int:
    value = _raw(name)
    if value is None:
        return default
    try:
        number = int(value)
    except ValueError:
        raise ImproperlyConfigured(f"{name}={value!r} is not a whole number.") from None
    if minimum is not None and number < minimum:
        raise ImproperlyConfigured(f"{name}={value!r} must be at least {minimum}.")
    return number


def env_list(name: str, default: list[str]) -> list[str]:
    """A comma-separated list; blank items are dropped."""
    value = _raw(name)
    if value is None:
        return list(default)
    return [item.strip() for item in value.split(",") if item.strip()]


def env_rate(name: str, default: str) -> str:
    """A DRF throttle rate such as "120/min"."""
    value = env_str(name, default)
    assert value is not None
    if not _RATE.match(value):
        raise ImproperlyConfigured(
            f"{name}={value!r} is not a rate: write it as N/second, N/minute, N/hour or N/day."
        )
    return value


def env_class(name: str, default: str, *, must_have: str) -> str:
    """A dotted path to a class with the method `must_have`, imported now so that a
    typo stops start-up instead of the first request that needs the class."""
    value = env_str(name, default)
    assert value is not None
    try:
        imported = import_string(value)
    except ImportError as exc:
        raise ImproperlyConfigured(f"{name}={value!r} cannot be imported: {exc}.") from None
    if not (isinstance(imported, type) and hasattr(imported, must_have)):
        raise ImproperlyConfigured(f"{name}={value!r} is not a class with a {must_have}() method.")
    return value


def env_broker_url(name: str, default: str) -> str:
    """A Celery broker URL (or several, separated by ';', for failover)."""
    value = env_str(name, default)
    assert value is not None
    for url in value.split(";"):
        scheme, separator, _ = url.strip().partition("://")
        if not separator or scheme.lower() not in BROKER_SCHEMES:
            allowed = ", ".join(f"{s}://" for s in BROKER_SCHEMES)
            raise ImproperlyConfigured(
                f"{name}={';'.join(url_redacted(u) for u in value.split(';'))!r} is not a broker URL this site can use: "
                f"start it with one of {allowed} (e.g. redis://127.0.0.1:6379/0)."
            )
    return value


def env_trusted_proxies(name: str) -> int | list[ipaddress.IPv4Network | ipaddress.IPv6Network]:
    """How far to believe X-Forwarded-For: a count of proxies (``1``) or the
    proxies' networks (``10.0.0.0/8, 127.0.0.1``). Unset: none (REMOTE_ADDR only)."""
    value = _raw(name)
    if value is None:
        return 0
    if value.isdigit():
        return int(value)
    networks = []
    for item in value.split(","):
        try:
            networks.append(ipaddress.ip_network(item.strip(), strict=False))
        except ValueError:
            raise ImproperlyConfigured(
                f"{name}={value!r}: {item.strip()!r} is not a network. Give a number of proxies (1) "
                "or their addresses or networks, comma-separated (10.0.0.0/8, 127.0.0.1)."
            ) from None
    return networks


def env_seconds(name: str, default: float, *, maximum: float) -> float:
    value = _raw(name)
    if value is None:
        return default
    try:
        number = float(value)
    except ValueError:
        raise ImproperlyConfigured(f"{name}={value!r} is not a number of seconds.") from None
    if not 0 < number <= maximum:
        raise ImproperlyConfigured(f"{name}={value!r} must be more than 0 and at most {maximum} seconds.")
    return number


def env_fraction(name: str, default: float) -> float:
    """A share: a number more than 0 and at most 1 (``0.1``)."""
    value = _raw(name)
    if value is None:
        return default
    try:
        number = float(value)
    except ValueError:
        raise ImproperlyConfigured(f"{name}={value!r} is not a number; write a share such as 0.1.") from None
    if not 0 < number <= 1:
        raise ImproperlyConfigured(f"{name}={value!r} must be more than 0 and at most 1.")
    return number


def url_redacted(url: str) -> str:
    """The URL without its password, for error messages."""
    try:
        parts = urlsplit(url)
        if parts.password:
            return url.replace(f":{parts.password}@", ":***@", 1)
    except ValueError:
        pass
    return url


def env_ports(name: str, default: list[int]) -> list[int]:
    texts = env_list(name, [str(port) for port in default])
    try:
        ports = [int(text) for text in texts]
    except ValueError:
        raise ImproperlyConfigured(f"{name}={','.join(texts)!r} must be port numbers, comma-separated.") from None
    if not ports or any(not 0 < port < 65536 for port in ports):
        raise ImproperlyConfigured(f"{name} must list at least one port, each from 1 to 65535.")
    return ports


def env_delays(name: str, default: list[int]) -> list[int]:
    texts = env_list(name, [str(delay) for delay in default])
    try:
        delays = [int(text) for text in texts]
    except ValueError:
        raise ImproperlyConfigured(f"{name}={','.join(texts)!r} must be whole numbers of seconds, comma-separated.")
    if not delays or any(delay < 1 for delay in delays):
        raise ImproperlyConfigured(f"{name} must list at least one delay, each at least 1 second.")
    return delays


def env_networks(name: str, default: list[str] | None = None) -> list[ipaddress.IPv4Network | ipaddress.IPv6Network]:
    networks = []
    for item in env_list(name, default or []):
        try:
            networks.append(ipaddress.ip_network(item, strict=False))
        except ValueError:
            raise ImproperlyConfigured(
                f"{name}: {item!r} is not an address or a network; write them comma-separated "
                "(127.0.0.1, 10.0.0.0/8)."
            ) from None
    return networks
