"""``GET /calendar/<secret>.ics``: an account's deadlines calendar, for calendar
apps that poll it (docs/calendar.md).

The secret is the only credential: an unknown or replaced one, and one of an
account that may not be served, get the same plain 404, which says nothing of
why. The answer carries a strong ETag (a hash of the body), so that an app
polling with If-None-Match gets 304 until something changes.
"""

from __future__ import annotations

import hashlib

from django.conf import settings
from django.http import HttpRequest, HttpResponse, HttpResponseNotFound
from django.utils import timezone
from django.utils.cache import get_conditional_response, patch_cache_control
from django.views.decorators.http import require_safe

from accounts.selectors import calendar_feed_owner
from accounts.speaking import language_of
from calendars.feed import calendar_render, today_utc
from calendars.selectors import calendar_content

CONTENT_TYPE = "text/calendar; charset=utf-8"
# Calendar apps poll; a proxy must not keep one account's calendar for another.
MAX_AGE_SECONDS = 300


def not_found() -> HttpResponse:
    return HttpResponseNotFound(b"Not found\n", content_type="text/plain; charset=utf-8")


@require_safe
def calendar_feed(request: HttpRequest, secret: str) -> HttpResponse:
    player = calendar_feed_owner(secret=secret)
    if player is None:
        return not_found()
    user = player.user
    today = today_utc(timezone.now())
    body = calendar_render(
        content=calendar_content(user=user, today=today),
        language=language_of(user),
        site_url=str(settings.SITE_URL),
        today=today,
    )
    etag = '"' + hashlib.sha256(body).hexdigest()[:40] + '"'
    response = get_conditional_response(request, etag=etag) or HttpResponse(body, content_type=CONTENT_TYPE)
    response["ETag"] = etag
    patch_cache_control(response, private=True, max_age=MAX_AGE_SECONDS)
    response["Content-Disposition"] = 'inline; filename="deadlines.ics"'
    # The address is a secret: not for search engines, and not passed on as a referrer.
    response["X-Robots-Tag"] = "noindex, nofollow"
    response["Referrer-Policy"] = "no-referrer"
    # The body follows the account's language, not the request's.
    response["Content-Language"] = language_of(user)
    return response
