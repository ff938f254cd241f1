"""The site as an installable app: the web app manifest (``/manifest.webmanifest``)
and the service worker (``/sw.js``), both at the root so the worker's scope is
the whole site (docs/notifications.md, "On your phone or desktop: install and push").

The worker (``front/static/front/sw.js``) shows Web Push notifications and keeps
the last board of each game the player opened, per account, for reading
offline. It is served by a view, not from /static/: a worker's scope cannot be
wider than the folder it is served from, and its address must not change with
each deploy (a hashed static name would register a new worker every time).
"""

from __future__ import annotations

import json
from pathlib import Path

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.templatetags.static import static
from django.urls import reverse
from django.utils.translation import gettext
from django.views.decorators.http import require_safe

WORKER_SOURCE = Path(__file__).resolve().parent / "static" / "front" / "sw.js"
THEME_COLOUR = "#2f6fd6"
BACKGROUND_COLOUR = "#fafafa"
ICON_SIZES = (192, 512)


@require_safe
def service_worker(request: HttpRequest) -> HttpResponse:
    """``GET /sw.js``: the worker, with the addresses it needs (static files and
    the icon) on its first line. ``no-cache``: browsers check it on every visit,
    so a deploy's new worker takes over at once."""
    site = {"static_url": settings.STATIC_URL, "icon": static("front/icons/icon-192.png")}
    source = f"const SITE = {json.dumps(site)};\n" + WORKER_SOURCE.read_text(encoding="utf-8")
    response = HttpResponse(source, content_type="application/javascript; charset=utf-8")
    response["Cache-Control"] = "no-cache"
    response["X-Content-Type-Options"] = "nosniff"
    return response


@require_safe
def web_manifest(request: HttpRequest) -> HttpResponse:
    """``GET /manifest.webmanifest``: what a browser needs to install the site; it
    opens on the player's games. The browser fetches it without cookies, so its
    description is in the language the browser asks for."""
    manifest = {
        "name": "Splendor by post",
        "short_name": "Splendor",
        "description": gettext("Slow games of Splendor by email and on the web."),
        "lang": request.LANGUAGE_CODE,
        "start_url": reverse("accounts-games"),
        "scope": "/",
        "display": "standalone",
        "theme_color": THEME_COLOUR,
        "background_color": BACKGROUND_COLOUR,
        "icons": [
            {"src": static(f"front/icons/icon-{size}.png"), "sizes": f"{size}x{size}", "type": "image/png", "purpose": "any"}
            for size in ICON_SIZES
        ],
    }
    response = JsonResponse(manifest, content_type="application/manifest+json", json_dumps_params={"ensure_ascii": False})
    response["Cache-Control"] = "public, max-age=3600"
    return response
