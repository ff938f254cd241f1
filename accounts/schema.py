"""How the Bearer authentication appears in the OpenAPI schema."""

from drf_spectacular.extensions import OpenApiAuthenticationExtension


class BearerTokenScheme(OpenApiAuthenticationExtension):
    target_class = "accounts.authentication.BearerTokenAuthentication"
    name = "bearerAuth"

    def get_security_definition(self, auto_schema):  # type: ignore[no-untyped-def]
        return {
            "type": "http",
            "scheme": "bearer",
            "description": "An API token `spl_...` minted at POST /api/v1/tokens/. "
            "Scopes: `read`, `play` (implies read).",
        }
