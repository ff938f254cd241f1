"""``/``: a short page that says what the service is and where its documentation
lives, rather than a 404 (a debug page, with DEBUG on) for the first address
anyone tries."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.views.decorators.http import require_safe

PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Splendor by post</title>
</head>
<body>
<h1>Splendor by post</h1>
<p>A service for slow, asynchronous games of <strong>Splendor</strong> and <strong>Splendor: Marvel</strong>.
Players take one turn at a time through a JSON REST API under <code>/api/v1/</code>, with scripts, bots or
front ends of their own; there is no page to play on here.</p>
<ul>
<li><a href="/api/docs/">/api/docs/</a>: the interactive API documentation</li>
<li><a href="/api/schema/">/api/schema/</a>: the OpenAPI schema</li>
</ul>
<p>The guides come with the project's source: <code>README.md</code> (getting started, accounts and tokens,
errors, limits, configuration), <code>docs/api.md</code> (the games API: a game's life, versions, moves,
error codes, a game played with curl, a bot's loop), <code>docs/events.md</code> and
<code>docs/architecture.md</code>.</p>
<p>Authenticate with <code>Authorization: Bearer &lt;token&gt;</code>; mint a token at
<code>POST /api/v1/tokens/</code>.</p>
</body>
</html>
"""


@require_safe
def home(request: HttpRequest) -> HttpResponse:
    return HttpResponse(PAGE, content_type="text/html; charset=utf-8")


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
