"""Checks of the deployment that Django's own `check --deploy` does not make."""

from __future__ import annotations

import ipaddress
from collections.abc import Sequence
from typing import Any
from urllib.parse import urlsplit

from django.apps import AppConfig
from django.conf import settings
from django.core.checks import CheckMessage, Tags, register
from django.core.checks import Warning as CheckWarning
from django.utils.module_loading import import_string

# The settings whose defaults follow SITE_URL (splendor_site.settings, HTTPS_BY_DEFAULT).
HTTPS_PROTECTIONS = ("SECURE_SSL_REDIRECT", "SESSION_COOKIE_SECURE", "CSRF_COOKIE_SECURE", "SECURE_HSTS_SECONDS")


@register(Tags.security, deploy=True)
def site_url_is_https(app_configs: Sequence[AppConfig] | None, **kwargs: Any) -> list[CheckMessage]:
    """Django's own checks name each protection that is off; this one says why they
    are: a SITE_URL of http:// (fine for a trial on one machine) turns them off."""
    if urlsplit(settings.SITE_URL).scheme == "https":
        return []
    off = [name for name in HTTPS_PROTECTIONS if not getattr(settings, name)]
    return [
        CheckWarning(
            f"SITE_URL is {settings.SITE_URL}, an http address, so the https protections are off"
            + (f" by default ({', '.join(off)})." if off else "."),
            hint="Set SITE_URL to the site's https address (https://splendor.example) when it is served over https.",
            id="splendor.W001",
        )
    ]


# Settings that suit one machine (the defaults, a trial, the tests) and not a
# site that serves people. Each has its own id, so an operator who means it (a
# trial on one machine) can silence just that one (SILENCED_SYSTEM_CHECKS).
# splendor.W010 to W019 are kept for these.
_EMAIL_BACKENDS_THAT_SEND_NOTHING = {
    "django.core.mail.backends.console.EmailBackend": "prints each message instead of sending it",
    "django.core.mail.backends.filebased.EmailBackend": "writes each message to a file instead of sending it",
    "django.core.mail.backends.locmem.EmailBackend": "keeps each message in memory instead of sending it",
    "django.core.mail.backends.dummy.EmailBackend": "drops each message",
}


def _loopback_webhooks() -> CheckWarning | None:
    if not settings.WEBHOOKS_ALLOW_LOOPBACK:
        return None
    return CheckWarning(
        "WEBHOOKS_ALLOW_LOOPBACK is on: players may register webhooks on this machine's own loopback addresses "
        "(127.0.0.1, ::1), and the workers will post to whatever listens there.",
        hint="Unset WEBHOOKS_ALLOW_LOOPBACK (or set it to false): it is for tests and a developer's machine.",
        id="splendor.W010",
    )


def _clocks_in_seconds() -> CheckWarning | None:
    if not settings.GAME_CLOCK_SECONDS:
        return None
    return CheckWarning(
        "GAME_CLOCK_SECONDS is on: games may be created with clocks in seconds, so a player can be timed out "
        "(and forfeit) before they could read their turn email.",
        hint="Unset GAME_CLOCK_SECONDS (or set it to false): it is for trying the clocks and for end-to-end tests.",
        id="splendor.W011",
    )


def _sqlite() -> CheckWarning | None:
    if not str(settings.DATABASES["default"]["ENGINE"]).endswith("sqlite3"):
        return None
    return CheckWarning(
        "DATABASE_URL names SQLite: one file on one machine, whose writers wait for each other, so only one "
        "machine can serve the site and a busy one makes requests wait.",
        hint="Set DATABASE_URL to a PostgreSQL database (postgres://user:password@host:5432/name).",
        id="splendor.W012",
    )


def _broker_on_one_machine() -> CheckWarning | None:
    schemes = {url.strip().partition("://")[0].lower() for url in settings.CELERY_BROKER_URL.split(";")}
    if "memory" in schemes:
        what = "memory://, which reaches no worker: tasks run inside the request that queues them"
    elif "filesystem" in schemes:
        what = "filesystem://, folders on this machine: only workers on this machine can take its tasks"
    else:
        return None
    return CheckWarning(
        f"CELERY_BROKER_URL is {what}.",
        hint="Set CELERY_BROKER_URL to a Redis (redis://host:6379/0) or RabbitMQ (amqp://...) that every web "
        "process and worker reaches (docs/deploy.md).",
        id="splendor.W013",
    )


def _cache_per_process() -> CheckWarning | None:
    if not str(settings.CACHES["default"]["BACKEND"]).endswith("LocMemCache"):
        return None
    return CheckWarning(
        "CACHE_URL is locmem://: each process keeps its own rate-limit counters, so the limits hold per process "
        "and a client gets the limit once for each web process.",
        hint="Set CACHE_URL to a Redis (redis://host:6379/1) that every web process reaches.",
        id="splendor.W014",
    )


def _email_not_sent() -> CheckWarning | None:
    backend = import_string(settings.EMAIL_BACKEND)
    does = next(
        (does for path, does in _EMAIL_BACKENDS_THAT_SEND_NOTHING.items() if issubclass(backend, import_string(path))),
        None,
    )
    if does is None:
        return None
    return CheckWarning(
        f"EMAIL_BACKEND is {settings.EMAIL_BACKEND}, which {does}: no player gets a turn email, a code or a "
        "password reset link.",
        hint="Set EMAIL_BACKEND=django.core.mail.backends.smtp.EmailBackend with EMAIL_HOST and the other EMAIL_* "
        "settings (or an email provider's backend).",
        id="splendor.W015",
    )


def _any_host() -> CheckWarning | None:
    if "*" not in settings.ALLOWED_HOSTS:
        return None
    return CheckWarning(
        "ALLOWED_HOSTS holds '*': the site answers to any Host header, and the links it builds from a request's "
        "host (password reset, email confirmation) can be made to point at another site.",
        hint="Set ALLOWED_HOSTS to the site's own host names, comma-separated (splendor.example).",
        id="splendor.W016",
    )


def _email_commands_unauthenticated() -> CheckWarning | None:
    if settings.INBOUND_REQUIRE_AUTHENTICATION:
        return None
    return CheckWarning(
        "INBOUND_REQUIRE_AUTHENTICATION is off: a command by email acts on its From: header alone, which anyone "
        "can write, so whoever has a player's reply address (or none, for vacation, help and new) plays for them.",
        hint="Unset INBOUND_REQUIRE_AUTHENTICATION (or set it to true): it is for a trial on one machine. "
        "docs/email.md says how senders are authenticated for each way in.",
        id="splendor.W020",
    )


def _metrics_open() -> CheckWarning | None:
    public = [str(net) for net in settings.METRICS_ALLOWED_NETWORKS if net.is_global or net.prefixlen == 0]
    short_token = bool(settings.METRICS_TOKEN) and len(settings.METRICS_TOKEN) < 20
    if not public and not short_token:
        return None
    what = (f"METRICS_ALLOWED_NETWORKS lets public addresses read /metrics ({', '.join(public)})" if public
            else "METRICS_TOKEN is shorter than 20 characters: it can be guessed")  # fmt: skip
    return CheckWarning(
        f"{what}; the metrics tell how many games are played, which errors happen and how the mail is doing.",
        hint="Allow only your scraper's private networks, or give it a long random METRICS_TOKEN "
        "(python -c 'import secrets; print(secrets.token_urlsafe(32))'). docs/operations.md, \"Metrics\".",
        id="splendor.W021",
    )


_LOOPBACK = (ipaddress.ip_network("127.0.0.0/8"), ipaddress.ip_network("::1/128"))


def _metrics_door() -> CheckWarning | None:
    networks = settings.METRICS_ALLOWED_NETWORKS
    if not settings.METRICS_TOKEN and not networks:
        return CheckWarning(
            "Neither METRICS_TOKEN nor METRICS_ALLOWED_NETWORKS is set: /metrics answers 404 to everyone, this "
            "machine included, so no Prometheus can read the service's metrics.",
            hint="Give your Prometheus a long random METRICS_TOKEN (python -c 'import secrets; "
            "print(secrets.token_urlsafe(32))') and its `authorization:` in the scrape configuration; or, for a "
            "scraper on a private network that no proxy stands in front of, METRICS_ALLOWED_NETWORKS. "
            "docs/operations.md, \"Metrics\".",
            id="splendor.W022",
        )
    loopback = [str(net) for net in networks if any(net.version == lo.version and net.overlaps(lo) for lo in _LOOPBACK)]
    if not loopback or not settings.TRUSTED_PROXIES:
        return None
    return CheckWarning(
        f"METRICS_ALLOWED_NETWORKS holds this machine's loopback ({', '.join(loopback)}) while TRUSTED_PROXIES "
        "says a proxy stands in front of the service: a proxy on this machine connects from loopback, so every "
        "request it passes on would come from an allowed address. Callers from TRUSTED_PROXIES are opened by the "
        "token only, and whatever else connects from loopback passes.",
        hint="Take loopback out of METRICS_ALLOWED_NETWORKS and give your Prometheus a METRICS_TOKEN instead "
        "(docs/deploy.md's nginx answers 404 for /metrics itself).",
        id="splendor.W022",
    )


@register(Tags.security, deploy=True)
def settings_for_one_machine(app_configs: Sequence[AppConfig] | None, **kwargs: Any) -> list[CheckMessage]:
    """A warning for each setting that is fine on a developer's machine or in the
    tests and unsafe on a site that serves people."""
    checks = (_loopback_webhooks, _clocks_in_seconds, _sqlite, _broker_on_one_machine, _cache_per_process,
              _email_not_sent, _any_host, _email_commands_unauthenticated, _metrics_open, _metrics_door)  # fmt: skip
    return [warning for check in checks if (warning := check()) is not None]
