"""``/``: what the service is, for a visitor (slow games of Splendor by email and
on the web, with sign-up, log-in and the API's documentation), and for a
logged-in player the games waiting for them, with the way to "My games".

It reads the player's games and account, so it lives in front, the app of the
site's own pages (api, below the apps, keeps only the favicon).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe
from django.views.decorators.vary import vary_on_cookie

from accounts import services as account_services
from front.my_games import game_row, player_zone
from games import player_selectors

if TYPE_CHECKING:
    from django.contrib.auth.models import User

# The home page lists a few; My games has them all.
SHOWN = 5


@require_safe
@vary_on_cookie
@never_cache
def home(request: HttpRequest) -> HttpResponse:
    if not request.user.is_authenticated:
        return render(request, "games/home.html", {})
    user: User = request.user
    player = account_services.player_for_user(user=user)
    zone = player_zone(player.time_zone)
    now = timezone.now()
    games = player_selectors.player_games(user=user, finished_shown=0)
    context = {
        "player": player,
        "waiting_for_you": [game_row(game, user, zone, now) for game in games["waiting_for_you"][:SHOWN]],
        "more_waiting": max(0, len(games["waiting_for_you"]) - SHOWN),
        "invitations": len(games["invitations"]),
        "waiting_for_others": len(games["waiting_for_others"]),
        "not_started": len(games["not_started"]),
    }
    return render(request, "games/home.html", context)
