"""The tournament pages, for people in a browser (docs/pages.md, "Tournaments"):
``/tournaments/``, the tournaments the reader may see, and
``/tournaments/<id>/``, one tournament: its settings and organisers, the
standings with their tiebreaks, each round's tables and games, and a knockout's
bracket; Join and Leave buttons post to ``.../join/`` and ``.../leave/``.

Thin views over tournaments.selectors (the API's reads: a private tournament is
a 404 to a stranger, exactly as there) and tournaments.services; a refusal comes
back as a message on the tournament's page. Anyone may read a public tournament;
joining needs an account. Nothing here shows the seed of the draws or any part of
a game but its players, status and places.
"""

from __future__ import annotations

from datetime import datetime
from functools import wraps
from typing import TYPE_CHECKING, Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBase, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.utils.functional import Promise
from django.utils.translation import gettext, gettext_lazy, ngettext, pgettext_lazy
from django.views.decorators.http import require_POST, require_safe
from django.views.decorators.vary import vary_on_cookie

from accounts.forms import page_refusal
from accounts.pages import CONTENT_SECURITY_POLICY, View, private_page
from core.errors import DomainError
from core.text import short_moment_words
from games.models import Game
from tournaments import errors, page_selectors, selectors, services
from tournaments.models import Entry, Tournament

if TYPE_CHECKING:
    from django.contrib.auth.models import AnonymousUser, User

# The accounts pages' policy, with this site's own stylesheet (tournaments/tournaments.css).
PAGE_CONTENT_SECURITY_POLICY = CONTENT_SECURITY_POLICY.replace("style-src ", "style-src 'self' ", 1)
LISTED = 200

FORMAT_WORDS: dict[str, Promise] = {
    Tournament.Format.SWISS: gettext_lazy("Swiss"),
    Tournament.Format.KNOCKOUT: gettext_lazy("Knockout"),
}
STATUS_WORDS: dict[str, Promise] = {
    Tournament.Status.OPEN: gettext_lazy("Open for entries"),
    Tournament.Status.RUNNING: gettext_lazy("Running"),
    # With a context: other apps' "Finished" and "Cancelled" are a game's (feminine in it and lv).
    Tournament.Status.FINISHED: pgettext_lazy("tournament status", "Finished"),
    Tournament.Status.CANCELLED: pgettext_lazy("tournament status", "Cancelled"),
}
ENTRY_WORDS: dict[str, Promise] = {
    Entry.Status.INVITED: gettext_lazy("Invited"),
    Entry.Status.ACTIVE: pgettext_lazy("tournament entry", "Playing"),
    Entry.Status.WITHDRAWN: gettext_lazy("Withdrawn"),
    Entry.Status.ELIMINATED: gettext_lazy("Out"),
}
GAME_WORDS: dict[str, Promise] = {
    Game.Status.OPEN: gettext_lazy("Not started"),
    Game.Status.ACTIVE: gettext_lazy("In play"),
    Game.Status.FINISHED: gettext_lazy("Finished"),
    Game.Status.ABORTED: gettext_lazy("Aborted"),
}
DECIDED_WORDS: dict[str, Promise] = {
    "bye": gettext_lazy("a bye"),
    "forfeit": gettext_lazy("by forfeit"),
    "withdrawn": gettext_lazy("the other player withdrew"),
}


def _said(words: dict[str, Promise], value: str) -> str:
    """``value``'s words in the reader's language (the value itself when unknown)."""
    return str(words[value]) if value in words else value


def _page(view: View) -> View:
    """``private_page`` (never cached, no referrer elsewhere) with the stylesheet allowed."""

    @wraps(view)
    def with_style(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
        response = view(request, *args, **kwargs)
        response["Content-Security-Policy"] = PAGE_CONTENT_SECURITY_POLICY
        return response

    return private_page(with_style)


def _reader(request: HttpRequest) -> User | AnonymousUser:
    return request.user


def _zone(user: User | AnonymousUser) -> ZoneInfo:
    player = getattr(user, "player", None) if user.is_authenticated else None
    try:
        return ZoneInfo(getattr(player, "time_zone", "") or "UTC")
    except (ZoneInfoNotFoundError, ValueError):
        return ZoneInfo("UTC")


def _when(moment: datetime | None, zone: ZoneInfo) -> str:
    return f"{short_moment_words(moment.astimezone(zone))} ({zone.key})" if moment is not None else ""


def _duration(seconds: int) -> str:
    hours = seconds // 3600
    if hours and hours % 24 == 0:
        return ngettext("%(count)d day", "%(count)d days", hours // 24) % {"count": hours // 24}
    return ngettext("%(count)d hour", "%(count)d hours", hours) % {"count": hours}


def time_control_words(tournament: Tournament) -> str:
    """"3 days a move", with the time bank when there is one."""
    words = gettext("%(time)s a move") % {"time": _duration(tournament.move_seconds)}
    if tournament.bank_seconds:
        words = gettext("%(move)s, a time bank of %(bank)s") % {
            "move": words,
            "bank": _duration(tournament.bank_seconds),
        }
    return words


def round_title(number: int, players: int, knockout: bool) -> str:
    """A knockout's last rounds by name (the final, the semi-finals...), else "Round n"."""
    if knockout:
        named = {2: gettext("Final"), 4: gettext("Semi-finals"), 8: gettext("Quarter-finals")}
        if players in named:
            return named[players]
    return gettext("Round %(number)s") % {"number": number}


def _game_url(game_id: Any) -> str:
    return reverse("game-page", kwargs={"game_id": game_id})


def _games(games: list[dict[str, Any]]) -> list[dict[str, Any]]:
    shown = []
    for game in games:
        places = game["places"] or [None] * len(game["players"])
        forfeited = set(game["forfeited"])
        seated = [
            {"name": name, "place": place, "forfeited": name in forfeited}
            for name, place in zip(game["players"], places)
        ]
        shown.append(
            {
                "number": game["number"],
                "id": game["game_id"],
                "url": _game_url(game["game_id"]),
                "status": _said(GAME_WORDS, game["status"]),
                # Finished: first place first; else in seat order.
                "players": sorted(seated, key=lambda p: p["place"] or 99) if game["places"] else seated,
            }
        )
    return shown


def rounds_shown(tournament: Tournament, rounds: list[dict[str, Any]], zone: ZoneInfo) -> list[dict[str, Any]]:
    """``selectors.rounds_view`` as the page shows it: titles, times in the
    reader's zone, each table's games with their links and places."""
    knockout = tournament.format == Tournament.Format.KNOCKOUT
    return [
        {
            "number": one["number"],
            "title": round_title(one["number"], 2 * len(one["tables"]), knockout),
            "started": _when(one["started_at"], zone),
            "finished": _when(one["finished_at"], zone),
            "bye": one["bye"],
            "tables": [
                {
                    "position": table["position"],
                    "players": table["players"],
                    "winner": table["winner"],
                    "decided_by": _said(DECIDED_WORDS, table["decided_by"]) if table["decided_by"] else "",
                    "is_bye": table["decided_by"] == "bye",
                    "games": _games(table["games"]),
                }
                for table in one["tables"]
            ],
        }
        for one in rounds
    ]


def _bracket(tournament: Tournament, rounds: list[dict[str, Any]]) -> list[dict[str, Any]]:
    columns = page_selectors.bracket(rounds, selectors.rounds_planned(tournament))
    return [
        {
            "title": round_title(column.number, column.players, True),
            "matches": [
                {
                    "sides": match.sides,
                    "decided": match.decided,
                    "decided_by": _said(DECIDED_WORDS, match.decided_by) if match.decided_by not in ("", "bye") else "",
                    "games": [
                        {"number": g.number, "url": _game_url(g.game_id), "players": " – ".join(names)}
                        for g in match.games
                    ],
                }
                for match in column.matches
                for names in [[side.name for side in match.sides if side.name]]
            ],
        }
        for column in columns
    ]


def _visible(request: HttpRequest, tournament_id: int) -> Tournament:
    try:
        return selectors.tournament_get_visible(tournament_id=tournament_id, user=_reader(request))
    except errors.TournamentNotFound as error:
        raise Http404(error.message) from error


@_page
@vary_on_cookie
@require_safe
def tournament_list_page(request: HttpRequest) -> HttpResponse:
    """The tournaments the reader may see (``selectors.tournament_list``), newest first."""
    found = list(selectors.tournament_list(user=_reader(request))[:LISTED])
    rows = [
        {
            "id": t.pk,
            "name": t.name,
            "format": _said(FORMAT_WORDS, t.format),
            "variant": t.get_variant_display(),
            "status": _said(STATUS_WORDS, t.status),
            "players": page_selectors.players_count(t),
            "public": t.public,
        }
        for t in found
    ]
    return render(request, "tournaments/tournament_list.html", {"tournaments": rows})


@_page
@vary_on_cookie
@require_safe
def tournament_page(request: HttpRequest, tournament_id: int) -> HttpResponse:
    reader = _reader(request)
    tournament = _visible(request, tournament_id)
    zone = _zone(reader)
    rounds = selectors.rounds_view(tournament)
    knockout = tournament.format == Tournament.Format.KNOCKOUT
    entry = page_selectors.viewer_entry_status(tournament, reader)
    is_open = tournament.status == Tournament.Status.OPEN
    standings = [
        {"row": row, "status": _said(ENTRY_WORDS, row.status), "you": row.user_id == reader.pk}
        for row in selectors.standings_rows(tournament)
    ]
    context = {
        "tournament": tournament,
        "format": _said(FORMAT_WORDS, tournament.format),
        "status": _said(STATUS_WORDS, tournament.status),
        "knockout": knockout,
        "variant": tournament.get_variant_display(),
        "time_control": time_control_words(tournament),
        "rounds_planned": selectors.rounds_planned(tournament),
        "players": page_selectors.players_count(tournament),
        "organisers": page_selectors.organiser_names(tournament),
        "organiser": selectors.is_organiser(tournament, reader),
        "winner": tournament.winner.get_username() if tournament.winner_id and tournament.winner else "",
        "starts_at": _when(tournament.starts_at, zone),
        "started_at": _when(tournament.started_at, zone),
        "finished_at": _when(tournament.finished_at, zone),
        "standings": standings,
        "rounds": rounds_shown(tournament, rounds, zone),
        "bracket": _bracket(tournament, rounds) if knockout else [],
        "entry": entry,
        "entry_words": _said(ENTRY_WORDS, entry) if entry else "",
        "can_join": reader.is_authenticated and is_open and entry != Entry.Status.ACTIVE,
        "can_leave": entry in (Entry.Status.ACTIVE, Entry.Status.INVITED)
        and tournament.status in (Tournament.Status.OPEN, Tournament.Status.RUNNING),
        "leave_withdraws": tournament.status == Tournament.Status.RUNNING,
    }
    return render(request, "tournaments/tournament_page.html", context)


def _entry_change(request: HttpRequest, tournament_id: int, *, join: bool) -> HttpResponse:
    user: User = request.user  # type: ignore[assignment]
    tournament = _visible(request, tournament_id)
    here = reverse("tournament-page", kwargs={"tournament_id": tournament.pk})
    try:
        if join:
            services.tournament_join(tournament_id=tournament.pk, user=user)
        else:
            services.tournament_leave(tournament_id=tournament.pk, user=user)
    except DomainError as error:
        messages.error(request, page_refusal(error))
        return HttpResponseRedirect(here, status=303)
    said = gettext("You are in %(name)s.") if join else gettext("You left %(name)s.")
    messages.success(request, said % {"name": tournament.name})
    return HttpResponseRedirect(here, status=303)


@_page
@login_required
@require_POST
def tournament_join_page(request: HttpRequest, tournament_id: int) -> HttpResponse:
    """Join (``services.tournament_join``): an open tournament, or one that invited you."""
    return _entry_change(request, tournament_id, join=True)


@_page
@login_required
@require_POST
def tournament_leave_page(request: HttpRequest, tournament_id: int) -> HttpResponse:
    """Leave (``services.tournament_leave``): before the start the entry goes; after, you withdraw."""
    return _entry_change(request, tournament_id, join=False)
