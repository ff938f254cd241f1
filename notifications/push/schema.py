"""How the site's session appears in the OpenAPI schema for the push
subscriptions (notifications.push.permissions.CsrfSessionAuthentication):
the signed-in page's session cookie, with its CSRF token on changes."""

from __future__ import annotations

from typing import TYPE_CHECKING

from drf_spectacular.extensions import OpenApiAuthenticationExtension

if TYPE_CHECKING:
    from drf_spectacular.openapi import AutoSchema


# drf-spectacular's extension registry has no annotations (as accounts.schema says).
class SiteSessionScheme(OpenApiAuthenticationExtension):  # type: ignore[no-untyped-call]
    target_class = "notifications.push.permissions.CsrfSessionAuthentication"
    name = "siteSession"

    def get_security_definition(self, auto_schema: AutoSchema) -> dict[str, str]:
        return {
            "type": "apiKey",
            "in": "cookie",
            "name": "sessionid",
            "description": "A signed-in page of the site: its session cookie, and `X-CSRFToken` on POST and DELETE.",
        }
