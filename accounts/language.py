"""The language each person is spoken to in (docs/i18n.md).

- A player's emails and email replies: the account's ``Player.language``, whatever
  the request that caused them (``language_of`` and ``in_language_of``).
- Pages: a signed-in player's account language; a visitor's ``Accept-Language`` or
  the language switch's cookie (Django's ``LocaleMiddleware``), which the switch
  sets through ``/i18n/setlang/`` (``language_set``, which also saves a signed-in
  player's choice on the account).
- The language itself (``language_of``, ``in_language_of``) lives in
  ``accounts.speaking``, which the services use without importing this module.
- The API: ``Accept-Language`` for a problem's ``detail``; codes, field names and
  the canonical move notation never change.
"""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse
from django.utils import translation
from django.views.i18n import set_language

from accounts.models import Player
from accounts.services.players import player_language_set
from accounts.speaking import DEFAULT_LANGUAGE, in_language_of, language_of, language_supported

__all__ = [
    "DEFAULT_LANGUAGE",
    "AccountLanguageMiddleware",
    "in_language_of",
    "language_from_request",
    "language_of",
    "language_set",
    "language_supported",
]


def language_from_request(request: HttpRequest) -> str:
    """The language a visitor's browser asks for (Accept-Language, or the switch's
    cookie), as one of the service's: sign-up takes it as the account's language."""
    return language_supported(translation.get_language_from_request(request)) or DEFAULT_LANGUAGE


class AccountLanguageMiddleware:
    """A signed-in player's pages are in the account's language; a visitor's follow
    ``LocaleMiddleware`` (the browser's Accept-Language or the switch's cookie).
    Bearer-token API requests are not signed in here: their ``detail`` follows
    Accept-Language alone."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        user = getattr(request, "user", None)
        if user is not None and user.is_authenticated and not request.path.startswith("/api/"):
            player = Player.objects.filter(user_id=user.pk).only("language").first()
            language = language_supported(player.language if player else None)
            if language:
                translation.activate(language)
                request.LANGUAGE_CODE = language
        return self.get_response(request)


def language_set(request: HttpRequest) -> HttpResponse:
    """``POST /i18n/setlang/`` (the pages' language switch): Django's ``set_language``,
    which sets the cookie visitors are served by, and for a signed-in player the
    account's language too, so that their emails follow the choice."""
    response = set_language(request)
    language = language_supported(request.POST.get("language")) if request.method == "POST" else None
    user = getattr(request, "user", None)
    if language and user is not None and user.is_authenticated:
        player_language_set(user=user, language=language)
    return response
