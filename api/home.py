"""The favicon: browsers ask every site for /favicon.ico. (The home page, ``/``,
reads the player's games, so it is front.home.)"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.views.decorators.http import require_safe

# A cut gem in the five token colours: browsers ask every site for /favicon.ico.
FAVICON = (
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">'
    '<polygon points="16,2 29,12 16,30 3,12" fill="#2f6fd6" stroke="#111" stroke-width="1.5"/>'
    '<polygon points="16,2 22,12 16,30 10,12" fill="#e23b3b" opacity="0.55"/>'
    "</svg>"
)


@require_safe
def favicon(request: HttpRequest) -> HttpResponse:
    response = HttpResponse(FAVICON, content_type="image/svg+xml")
    response["Cache-Control"] = "public, max-age=86400"
    return response
