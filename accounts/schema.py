"""How the Bearer authentication appears in the OpenAPI schema."""

from __future__ import annotations

from typing import TYPE_CHECKING

from drf_spectacular.extensions import OpenApiAuthenticationExtension

if TYPE_CHECKING:
    from drf_spectacular.openapi import AutoSchema


# drf-spectacular's OpenApiGeneratorExtension.__init_subclass__ (the extension
# registry) has no annotations, so defining a subclass calls an untyped function.
class BearerTokenScheme(OpenApiAuthenticationExtension):  # type: ignore[no-untyped-call]
    target_class = "accounts.authentication.BearerTokenAuthentication"
    name = "bearerAuth"

    def get_security_definition(self, auto_schema: AutoSchema) -> dict[str, str]:
        return {
            "type": "http",
            "scheme": "bearer",
            "description": "An API token `spl_...` minted at POST /api/v1/tokens/. "
            "Scopes: `read`, `play` (implies read).",
        }
