"""The account pages that read or change games, for a logged-in player in a
browser: "my games" (whose turn, deadlines in the player's time zone, a link to
each game's page), open games, invitations and vacation. Mounted under
/accounts/ by front.urls; the pages of accounts (accounts.pages) cannot know
games, so these live in front, above both.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext, gettext_lazy
from django.views.decorators.http import require_http_methods, require_POST

from accounts import selectors as account_selectors
from accounts import services as account_services
from accounts.pages import private_page
from core.errors import DomainError
from core.text import short_moment_words
from games import links, player_selectors, selectors, services
from games.models import Game, Seat

if TYPE_CHECKING:
    from django.contrib.auth.models import User


def player_zone(name: str) -> ZoneInfo:
    try:
        return ZoneInfo(name or "UTC")
    except (ZoneInfoNotFoundError, ValueError):
        return ZoneInfo("UTC")


def local_time(moment: datetime | None, zone: ZoneInfo) -> str:
    if moment is None:
        return ""
    # Django's day and month names, in the active language: "Wed 04 Mar 2026, 12:00 (UTC)".
    return f"{short_moment_words(moment.astimezone(zone))} ({zone.key})"


def seat_page_url(seat: Seat) -> str:
    """The game page as this seat, on this site (games.links): a relative address."""
    path = reverse("game-page", kwargs={"game_id": seat.game_id})
    return f"{path}?{urlencode({'seat': links.seat_link_token(seat=seat)})}"


def _name(seat: Seat) -> str:
    player = getattr(seat.user, "player", None)
    return (getattr(player, "display_name", "") if player is not None else "") or seat.user.get_username()


def game_row(game: Game, user: User, zone: ZoneInfo, now: datetime, label: str | None = None) -> dict[str, Any]:
    """A game as My games and the home page list it; ``label``: what the apps built
    on games add to it (a tournament and its round: player_selectors.game_list_labels)."""
    seats = list(game.seats.all())
    mine = next(seat for seat in seats if seat.user_id == user.pk)
    to_move = next((seat for seat in seats if game.to_move is not None and seat.index == game.to_move), None)
    your_turn = game.status == Game.Status.ACTIVE and to_move is not None and to_move.pk == mine.pk
    paused = game.clock_remaining is not None
    if game.status == Game.Status.OPEN:
        creator = next((seat for seat in seats if seat.user_id == game.created_by_id), None)
        if mine.invited and mine.joined_at is None:
            state = gettext("%(name)s invites you") % {"name": _name(creator) if creator else gettext("A player")}
        else:
            state = gettext("Waiting for players (%(joined)s of %(seats)s joined)") % {
                "joined": len([s for s in seats if s.joined_at]),
                "seats": game.seat_count,
            }
    elif game.status == Game.Status.ACTIVE:
        if your_turn:
            state = gettext("Your turn (clock paused)") if paused else gettext("Your turn")
        elif to_move is not None:
            name = _name(to_move)
            state = (
                gettext("%(name)s's turn (clock paused)") % {"name": name}
                if paused
                else gettext("%(name)s's turn") % {"name": name}
            )
        else:
            state = gettext("In play (clock paused)") if paused else gettext("In play")
    elif game.status == Game.Status.FINISHED:
        winners = [
            _name(seat) for seat in seats if seat.index is not None and seat.index in ((game.result or {}).get("winners") or [])
        ]
        state = gettext("Finished: won by %(winners)s") % {"winners": ", ".join(winners)} if winners else gettext("Finished")
    else:
        state = gettext("Cancelled")
    return {
        "id": game.pk,
        "variant": game.get_variant_display(),
        "label": label,
        "players": [_name(seat) for seat in seats if seat.joined_at is not None],
        "opponents": [_name(seat) for seat in seats if seat.joined_at is not None and seat.pk != mine.pk],
        "state": state,
        "your_turn": your_turn,
        "deadline": "" if paused or game.status != Game.Status.ACTIVE else local_time(game.deadline_at, zone),
        "overdue": bool(game.deadline_at and game.deadline_at <= now and game.status == Game.Status.ACTIVE),
        "url": seat_page_url(mine),
        "resigned": mine.resigned,
        "invitation": game.status == Game.Status.OPEN and mine.invited and mine.joined_at is None,
        "ended": local_time(game.finished_at, zone) if game.is_over else "",
    }


@private_page
@login_required
@require_http_methods(["GET", "HEAD"])
def my_games(request: HttpRequest) -> HttpResponse:
    """The games waiting for the player first (soonest deadline first) with a
    button to the most urgent, then those waiting for others, the invitations to
    answer, the games not started yet and the latest finished ones."""
    user: User = request.user  # type: ignore[assignment]
    player = account_services.player_for_user(user=user)
    zone = player_zone(player.time_zone)
    now = timezone.now()
    games = player_selectors.player_games(user=user)
    labels = player_selectors.game_list_labels(
        [*games["waiting_for_you"], *games["waiting_for_others"], *games["invitations"], *games["not_started"],
         *games["finished"]]
    )  # fmt: skip

    def rows(group: list[Game]) -> list[dict[str, Any]]:
        return [game_row(game, user, zone, now, labels.get(game.pk)) for game in group]

    waiting_for_you = rows(games["waiting_for_you"])
    groups = [
        ("waiting-for-you", gettext("Waiting for you"), waiting_for_you),
        ("waiting-for-others", gettext("Waiting for others"), rows(games["waiting_for_others"])),
        ("invitations", gettext("Invitations"), rows(games["invitations"])),
        ("not-started", gettext("Not started yet"), rows(games["not_started"])),
        ("finished", gettext("Finished"), rows(games["finished"])),
    ]
    context = {
        "player": player,
        "zone": zone.key,
        "groups": groups,
        "next_game": waiting_for_you[0] if waiting_for_you else None,
        "has_games": any(group_rows for _, _, group_rows in groups),
        "email_warning": account_selectors.player_email_warning(player=player),
        "tournaments_url": reverse("tournament-list-page"),
        **vacation_context(user=user, zone=zone, now=now),
    }
    return render(request, "games/account/my_games.html", context)


def _game_for_answer(game_id: str, user: User) -> Game:
    # An invitee always sees the game; anyone may see an open public one.
    return selectors.game_get_visible(game_id=game_id, user=user, open_seat=True)


@private_page
@login_required
@require_POST
def invitation_answer(request: HttpRequest, game_id: str, answer: str) -> HttpResponse:
    """Accept (games.services.seat_join) or decline (seat_decline) an invitation
    from My games; the answer is told on My games, and accepting opens the game."""
    user: User = request.user  # type: ignore[assignment]
    try:
        game = _game_for_answer(game_id, user)
        if answer == "accept":
            seat = services.seat_join(game=game, user=user)
        else:
            services.seat_decline(game_id=game.pk, user=user)
    except DomainError as error:
        messages.error(request, error.message)
        return HttpResponseRedirect(reverse("accounts-games"), status=303)
    if answer == "accept":
        # The game's page says where it stands; a message would wait for the next account page.
        return HttpResponseRedirect(seat_page_url(seat), status=303)
    messages.success(request, gettext("You declined the invitation to game %(game)s.") % {"game": game.pk})
    return HttpResponseRedirect(reverse("accounts-games"), status=303)


def _open_game_row(game: Game) -> dict[str, Any]:
    seats = list(game.seats.all())
    return {
        "id": game.pk,
        "variant": game.get_variant_display(),
        "players": [_name(seat) for seat in seats if seat.joined_at is not None],
        "free": game.seat_count - len(seats),
        "seat_count": game.seat_count,
        "hours": game.move_seconds // 3600,
        "bank_hours": game.bank_start_seconds // 3600,
        "rated": game.rated,
    }


@private_page
@login_required
@require_http_methods(["GET", "HEAD"])
def open_games(request: HttpRequest) -> HttpResponse:
    """Public games waiting for players, each with a Join button."""
    user: User = request.user  # type: ignore[assignment]
    games = player_selectors.open_public_games(user=user)
    return render(request, "games/account/open_games.html", {"games": [_open_game_row(game) for game in games]})


@private_page
@login_required
@require_POST
def open_game_join(request: HttpRequest, game_id: str) -> HttpResponse:
    """Take a free seat in an open game (games.services.seat_join)."""
    user: User = request.user  # type: ignore[assignment]
    try:
        game = _game_for_answer(game_id, user)
        seat = services.seat_join(game=game, user=user)
    except DomainError as error:
        messages.error(request, error.message)
        return HttpResponseRedirect(reverse("accounts-open-games"), status=303)
    return HttpResponseRedirect(seat_page_url(seat), status=303)


class VacationForm(forms.Form):
    days = forms.IntegerField(
        label=gettext_lazy("Days of vacation"),
        min_value=1,
        max_value=366,
        help_text=gettext_lazy("Starting now, or after the vacation you are on."),
    )


def vacation_context(*, user: User, zone: ZoneInfo, now: datetime) -> dict[str, Any]:
    """The vacation summary with its dates in the player's time zone, for a page."""
    summary = selectors.vacation_summary(user=user, now=now)
    periods = ([summary["current"]] if summary["current"] else []) + list(summary["planned"])
    return {
        "summary": summary,
        "periods": [
            {
                "from": local_time(period["starts_at"], zone),
                "until": local_time(period["ends_at"], zone),
                "days": period["days"],
                "automatic": period["automatic"],
                "current": summary["current"] is not None and period is summary["current"],
            }
            for period in periods
        ],
    }


@private_page
@login_required
@require_http_methods(["GET", "HEAD", "POST"])
def vacation(request: HttpRequest) -> HttpResponse:
    """Days used and left this year; take some (games.services.vacation_take)."""
    user: User = request.user  # type: ignore[assignment]
    player = account_services.player_for_user(user=user)
    zone = player_zone(player.time_zone)
    form = VacationForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            taken = services.vacation_take(user=user, days=form.cleaned_data["days"])
        except DomainError as error:
            form.add_error("days", error.message)
        else:
            messages.success(
                request,
                gettext("Vacation taken: your clocks stop in all your games until %(until)s.")
                % {"until": local_time(taken.ends_at, zone)},
            )
            return HttpResponseRedirect(reverse("accounts-vacation"), status=303)
    context = {"form": form, **vacation_context(user=user, zone=zone, now=timezone.now())}
    return render(request, "games/account/vacation.html", context)
