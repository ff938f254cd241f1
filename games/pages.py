"""The game page: the board as one seat sees it, opened by a signed link (games.links).

GET only reads: mail scanners follow links, so answering an invitation is a
POST from the page's own form (CSRF-protected). No page shows the board without
a valid link, and none sends a referrer (the link is a bearer secret).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods

from core.errors import DomainError, ErrorKind
from games import links, services
from games.errors import GameNotFound
from games.models import Game, Seat
from games.presentation import board_context

_HEADINGS = {
    ErrorKind.NOT_FOUND: "This link does not open a game",
    ErrorKind.FORBIDDEN: "This link no longer works",
}


def _page(request: HttpRequest, template: str, context: dict[str, Any], status: int = 200) -> HttpResponse:
    response = render(request, template, context, status=status)
    response["Referrer-Policy"] = "no-referrer"
    response["X-Robots-Tag"] = "noindex, nofollow"
    return response


def _error_page(request: HttpRequest, *, heading: str, message: str, status: int) -> HttpResponse:
    return _page(request, "games/page_error.html", {"heading": heading, "message": message}, status=status)


def _invitation_open(seat: Seat) -> bool:
    return seat.game.status == Game.Status.OPEN and seat.invited and not seat.has_joined


def _answer_invitation(request: HttpRequest, seat: Seat, query: str) -> HttpResponse:
    action = request.POST.get("action", "")
    if not _invitation_open(seat):
        return _game_page(request, seat, query, message="There is no open invitation on this seat to answer.", status=409)
    try:
        if action == "accept":
            services.seat_join(game=seat.game, user=seat.user)
        elif action == "decline":
            services.seat_decline(game_id=seat.game_id, user=seat.user)
            # The seat is gone and with it this link: say so here rather than redirect to a refusal.
            return _error_page(
                request,
                heading="Invitation declined",
                message="You declined the invitation. Nothing more will happen in this game for you.",
                status=200,
            )
        else:
            return _game_page(request, seat, query, message="Choose Accept or Decline.", status=400)
    except DomainError as error:
        seat.game.refresh_from_db()
        return _game_page(request, seat, query, message=error.message, status=409)
    redirect = HttpResponseRedirect(f"{request.path}?{query}", status=303)
    redirect["Referrer-Policy"] = "no-referrer"
    return redirect


def _game_page(
    request: HttpRequest, seat: Seat, query: str, *, message: str = "", status: int = 200
) -> HttpResponse:
    game = seat.game
    invitation = None
    if _invitation_open(seat):
        creator = Seat.objects.filter(game=game, user_id=game.created_by_id).select_related("user__player").first()
        invitation = {
            "creator": getattr(getattr(creator.user, "player", None), "display_name", "") if creator else "",
            "seat_count": game.seat_count,
            "move_timeout_hours": game.move_timeout_hours,
        }
        if not invitation["creator"]:
            invitation["creator"] = "A player"
    context = {
        "board": board_context(game=game, seat_index=seat.index),
        "invitation": invitation,
        "query": query,
        "message": message,
    }
    return _page(request, "games/game_page.html", context, status=status)


@never_cache
@require_http_methods(["GET", "HEAD", "POST"])
def game_page(request: HttpRequest, game_id: str) -> HttpResponse:
    """``/games/<id>/?seat=<token>``: the board as the link's seat; an invitation to answer."""
    token = request.GET.get("seat", "")
    if not token:
        return _error_page(
            request,
            heading="This page needs your game link",
            message="A game opens only from the link in an email about it, which names your seat.",
            status=403,
        )
    try:
        seat = links.seat_for_link(game_id=game_id, token=token)
    except GameNotFound:
        return _error_page(request, heading=_HEADINGS[ErrorKind.NOT_FOUND], message="There is no such game.", status=404)
    except DomainError as error:
        status = 403 if error.kind == ErrorKind.FORBIDDEN else 404
        return _error_page(
            request, heading=_HEADINGS.get(error.kind, _HEADINGS[ErrorKind.NOT_FOUND]), message=error.message, status=status
        )
    query = urlencode({"seat": token})
    if request.method == "POST":
        return _answer_invitation(request, seat, query)
    return _game_page(request, seat, query)
