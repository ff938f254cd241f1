"""The pages behind the links in game email.

GET only shows a page with a button: mail scanners and link previews follow
links, and must not unsubscribe anyone. POST acts. The unsubscribe POST is
CSRF-exempt because mail providers send the RFC 8058 one-click POST
(``List-Unsubscribe=One-Click``) with no cookie or form token: the signed token
in the address is the authority.
"""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext as _
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods

from accounts.language import in_language_of
from notifications.email import services
from notifications.email.links import address_digest_for_opt_out_token, user_id_for_unsubscribe_token

# Long enough for any token made here; anything longer is refused unread.
MAX_TOKEN_LENGTH = 300


def _invalid(request: HttpRequest) -> HttpResponse:
    return render(
        request,
        "notifications/pages/invalid_link.html",
        {"title": _("This link is not valid")},
        status=404,
    )


@csrf_exempt
@require_http_methods(["GET", "POST"])
def unsubscribe(request: HttpRequest, token: str) -> HttpResponse:
    user_id = user_id_for_unsubscribe_token(token) if len(token) <= MAX_TOKEN_LENGTH else None
    if user_id is None:
        return _invalid(request)
    # The page speaks the language of the account the link was sent to, as its email did.
    with in_language_of(get_user_model().objects.select_related("player").filter(pk=user_id).first()) as language:
        if request.method == "POST":
            if not services.email_unsubscribe(user_id=user_id):
                return _invalid(request)
            response = render(request, "notifications/pages/unsubscribed.html", {"title": _("Game email is off")})
        else:
            response = render(request, "notifications/pages/unsubscribe_confirm.html", {"title": _("Stop game email?")})
    response["Content-Language"] = language
    return response


@csrf_exempt
@require_http_methods(["GET", "POST"])
def invitation_opt_out(request: HttpRequest, token: str) -> HttpResponse:
    # CSRF-exempt for the same reason: the page is reached from an email, with
    # no session; the signed token, not a cookie, says which address asks.
    digest = address_digest_for_opt_out_token(token) if len(token) <= MAX_TOKEN_LENGTH else None
    if digest is None:
        return _invalid(request)
    if request.method == "POST":
        services.invitation_opt_out(address_digest=digest)
        return render(request, "notifications/pages/opted_out.html", {"title": _("No more invitations")})
    return render(request, "notifications/pages/opt_out_confirm.html", {"title": _("Stop invitations?")})
