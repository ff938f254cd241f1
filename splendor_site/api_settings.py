"""The REST API's settings: Django REST framework's, the throttle rates (read from
the environment like every setting) and the OpenAPI document's (drf-spectacular).
splendor_site.settings imports them; the API itself is docs/api.md."""

from __future__ import annotations

from django.core.exceptions import ImproperlyConfigured

from splendor_site.environment import env_int, env_rate

API_THROTTLE_ANON_RATE = env_rate("API_THROTTLE_ANON_RATE", "30/minute")
API_THROTTLE_USER_RATE = env_rate("API_THROTTLE_USER_RATE", "120/minute")
# POST /api/v1/players/resend/ and /api/v1/tokens/recover/ send email: a tighter
# limit per IP address, for each of them.
API_THROTTLE_RESEND_RATE = env_rate("API_THROTTLE_RESEND_RATE", "5/hour")

# How long each process may keep an API token that authenticated (with its user and
# player) without reading it again: a revoke, suspension, disabling or erasure made
# in another process is seen within this many seconds (accounts.token_cache). 0: never kept.
API_TOKEN_CACHE_SECONDS = env_int("API_TOKEN_CACHE_SECONDS", 1, minimum=0)
if API_TOKEN_CACHE_SECONDS > 10:
    raise ImproperlyConfigured(
        f"API_TOKEN_CACHE_SECONDS={API_TOKEN_CACHE_SECONDS} is more than 10: a revoked token would work that long."
    )

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": ["accounts.authentication.BearerTokenAuthentication"],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_PARSER_CLASSES": ["api.parsers.StrictJSONParser"],
    "DEFAULT_CONTENT_NEGOTIATION_CLASS": "api.negotiation.JSONContentNegotiation",
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "api.problems.problem_exception_handler",
    "DEFAULT_PAGINATION_CLASS": "api.pagination.LimitOffsetPagination",
    "PAGE_SIZE": 20,
    "DEFAULT_THROTTLE_CLASSES": [
        "api.throttling.UserRateThrottle",
        "api.throttling.AnonRateThrottle",
    ],
    "DEFAULT_THROTTLE_RATES": {
        "anon": API_THROTTLE_ANON_RATE,
        "user": API_THROTTLE_USER_RATE,
        "signup_resend": API_THROTTLE_RESEND_RATE,
        # POST /api/v1/tokens/recover/ sends email too: the same limit, counted apart.
        "token_recover": API_THROTTLE_RESEND_RATE,
    },
    "TEST_REQUEST_DEFAULT_FORMAT": "json",
}

SPECTACULAR_SETTINGS = {
    "TITLE": "Splendor by post API",
    "DESCRIPTION": (
        "Slow, asynchronous games of Splendor and Splendor: Marvel. Authenticate with "
        "`Authorization: Bearer spl_...` (mint a token at POST /api/v1/tokens/). Every error "
        "is an RFC 9457 problem-details body (application/problem+json) with a stable `code`."
    ),
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    # Swagger UI from the site's own static files: no outside script on the page
    # where people paste their tokens, and the docs work offline.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
    # Choice sets that share a field's name with another app's get their own names.
    "ENUM_NAME_OVERRIDES": {
        "TournamentFormatEnum": "tournaments.models.Tournament.Format",
        "TournamentStatusEnum": "tournaments.models.Tournament.Status",
        # The names these had before the two above came (a client generated from the schema keeps them).
        "FormatEnum": "webhooks.models.Endpoint.Format",
        "StatusEnum": "games.models.Game.Status",
    },
}
