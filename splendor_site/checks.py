"""Checks of the deployment that Django's own `check --deploy` does not make."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any
from urllib.parse import urlsplit

from django.apps import AppConfig
from django.conf import settings
from django.core.checks import CheckMessage, Tags, register
from django.core.checks import Warning as CheckWarning

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
