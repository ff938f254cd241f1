"""Tournament admin: tournaments, their entries, rounds, tables and games, and
the organisers' moderation (docs/tournaments.md, T-ORGANISER).

Who sees what: a superuser, and a staff user holding ``games.moderate_game``
(who sees every game), see every tournament; any other staff user sees the
tournaments they organise (T-ORGANISER: those they created, and their leagues':
the "League admins" group holds ``Tournament.league_admin_permissions``) and
what belongs to them; each list also needs its model's view permission.

Tournaments are made through the API (tournaments.services.tournament_create
checks their settings fit together): here only a name and a description change.
Rounds, tables and games are read-only; three actions change a tournament, each
with a confirmation page asking why (kept in the moderation log, which the
services write), and each with its own permission:

- withdraw players (``tournaments.withdraw_entry``): entry_withdraw, T-WITHDRAW;
- replace a player between rounds (``tournaments.replace_entry``): entry_replace,
  T-ADMIN-REPLACE;
- adjudicate a game (``tournaments.adjudicate_tournament_game``): games.moderation's
  moderation_game_adjudicate, without the site-wide ``games.moderate_game``.

The seed of a tournament's draws is never shown, nor filtered on by URL.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from django.contrib import admin
from django.db.models import Count, Max, Q, QuerySet
from django.http import HttpRequest
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils import timezone
from django.utils.html import format_html, format_html_join
from django.utils.http import urlencode
from django.utils.safestring import SafeString
from django.utils.translation import gettext, gettext_lazy, ngettext

from api.admin_tools import NoAddMixin, ReadOnlyMixin, ScopedActionsMixin
from core.errors import DomainError
from games import moderation
from games.admin import HiddenInformationMixin
from games.admin.actions import ModerationAction, moderation_confirm, request_moderator
from games.models import Game
from leagues.models import League
from tournaments import selectors, services
from tournaments.admin_forms import EntryReasonForm, EntryReplaceForm, adjudicate_form_for
from tournaments.models import Entry, Tournament, TournamentGame, TournamentRound, TournamentTable

# Who sees every tournament besides a superuser: the site's moderators (as on the site).
MODERATE_PERMISSION = selectors.MODERATE_PERMISSION
WITHDRAW_PERMISSION = "tournaments.withdraw_entry"
REPLACE_PERMISSION = "tournaments.replace_entry"
ADJUDICATE_PERMISSION = "tournaments.adjudicate_tournament_game"

# Fields of a tournament the admin never shows: the seed of its draws.
NEVER_SHOWN = frozenset({"seed"})
# A tournament's settings and dates, shown read-only (a new setting shows up here unnamed).
SETTINGS = tuple(
    field.name
    for field in Tournament._meta.concrete_fields
    if field.name not in {"id", "name", "description", *NEVER_SHOWN}
)
# How many tournaments a list's "tournament" filter offers (the latest first).
FILTER_LIMIT = 100


def tournaments_of(request: HttpRequest) -> QuerySet[Tournament]:
    """The tournaments ``request.user`` may see here: every one for a superuser
    or a site moderator; for other staff, those they organise."""
    user = request.user
    if not (user.is_active and user.is_staff):
        return Tournament.objects.none()
    if user.is_superuser or user.has_perm(MODERATE_PERMISSION):
        return Tournament.objects.all()
    return Tournament.objects.filter(selectors.organiser_q(user))


def _staff_holding(request: HttpRequest, permission: str) -> bool:
    user = request.user
    return bool(user.is_active and user.is_staff and user.has_perm(permission))


def _when(moment: Any) -> str:
    return f"{timezone.localtime(moment):%Y-%m-%d %H:%M}" if moment is not None else "—"


@contextmanager
def _named_refusals() -> Iterator[None]:
    """A refusal raised without words of its own ("The request cannot be carried
    out.") reads as its title instead ("The tournament is not open for this")."""
    try:
        yield
    except DomainError as error:
        if error.message == gettext(error.default_message):
            error.message = gettext(error.title)
        raise


# --- list filters ---------------------------------------------------------------------------


def own_tournament_filter(tournament_path: str) -> type[admin.SimpleListFilter]:
    """A "tournament" filter offering only the tournaments the user sees (the
    latest ones), on the model's way to its tournament. Its parameter is
    ``?tournament=<id>`` on every list (a lookup spanning several relations would
    be refused by the admin's lookup check)."""

    class OwnTournamentFilter(admin.SimpleListFilter):
        title = gettext_lazy("tournament")
        parameter_name = "tournament"

        def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
            found = tournaments_of(request).order_by("-created_at", "-id").values_list("pk", "name")
            return [(str(pk), name) for pk, name in found[:FILTER_LIMIT]]

        def queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any]:
            value = self.value()
            if value is None:
                return queryset
            if not value.isdigit():
                return queryset.none()
            return queryset.filter(**{f"{tournament_path}__id": int(value)})

    return OwnTournamentFilter


class LeagueOfTournamentFilter(admin.SimpleListFilter):
    """The leagues of the tournaments the user sees (Django's own would list every league)."""

    title = gettext_lazy("league")
    parameter_name = "league__id__exact"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        leagues = League.objects.filter(tournaments__in=tournaments_of(request).values("pk")).distinct()
        return [(str(pk), name) for pk, name in leagues.order_by("name").values_list("pk", "name")]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any]:
        value = self.value()
        if value is None:
            return queryset
        if not value.isdigit():
            return queryset.none()
        return queryset.filter(league_id=int(value))


# --- the scope every list shares --------------------------------------------------------------


class TournamentScopedAdmin(HiddenInformationMixin[Any]):
    """Lists only what belongs to the tournaments the user sees
    (``tournament_path``: the way from the model to its tournament). Lookups by
    URL that touch a seed are refused (HiddenInformationMixin)."""

    tournament_path = "tournament"

    def get_queryset(self, request: HttpRequest) -> QuerySet[Any]:
        queryset = super().get_queryset(request)
        if request.user.is_superuser:
            return queryset
        return queryset.filter(**{f"{self.tournament_path}__in": tournaments_of(request).values("pk")})


class EntryInline(ReadOnlyMixin, admin.TabularInline[Entry, Tournament]):
    model = Entry
    fields = readonly_fields = ("user", "status", "reason", "rating", "joined_at", "left_at")
    extra = 0
    show_change_link = True


@admin.register(Tournament)
class TournamentAdmin(NoAddMixin, TournamentScopedAdmin):
    """A tournament's settings (read-only but its name and description), its
    entries, rounds and standings, and links to its lists."""

    tournament_path = "pk"
    list_display = ["name", "format", "status", "league", "created_by", "players", "round_now", "starts_at", "created_at"]
    list_filter = ["status", "format", "variant", "public", LeagueOfTournamentFilter]
    search_fields = ["name", "created_by__username", "league__name"]
    list_select_related = ["league", "created_by"]
    fields = ("name", "description", *SETTINGS, "lists", "round_list", "standings")
    readonly_fields = (*SETTINGS, "lists", "round_list", "standings")
    inlines = [EntryInline]

    def get_queryset(self, request: HttpRequest) -> QuerySet[Tournament]:
        playing = Q(entries__status__in=[Entry.Status.ACTIVE, Entry.Status.ELIMINATED])
        queryset: QuerySet[Tournament] = super().get_queryset(request).annotate(
            player_count=Count("entries", filter=playing, distinct=True), round_count=Max("round_set__number")
        )
        return queryset

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        # Deleting would part its games from their tournament and rewrite the standings;
        # tournaments.services has no cancellation to offer instead yet.
        return False

    @admin.display(description=gettext_lazy("players"), ordering="player_count")
    def players(self, tournament: Tournament) -> int:
        return int(getattr(tournament, "player_count", 0) or 0)

    @admin.display(description=gettext_lazy("round"), ordering="round_count")
    def round_now(self, tournament: Tournament) -> str:
        number = getattr(tournament, "round_count", None)
        return str(number) if number else "—"

    @admin.display(description=gettext_lazy("lists"))
    def lists(self, tournament: Tournament) -> SafeString:
        if tournament.pk is None:
            return format_html("{}", "—")
        by_tournament = "?" + urlencode({"tournament": tournament.pk})
        links = (
            (reverse("admin:tournaments_entry_changelist") + by_tournament, gettext("its entries")),
            (reverse("admin:tournaments_tournamentround_changelist") + by_tournament, gettext("its rounds")),
            (reverse("admin:tournaments_tournamentgame_changelist") + by_tournament, gettext("its games")),
        )
        return format_html_join(" · ", '<a href="{}">{}</a>', links)

    @admin.display(description=gettext_lazy("rounds"))
    def round_list(self, tournament: Tournament) -> SafeString:
        if tournament.pk is None:
            return format_html("{}", "—")
        ended = Q(tables__games__game__status__in=[Game.Status.FINISHED, Game.Status.ABORTED])
        played = (
            tournament.round_set.order_by("number")
            .select_related("bye__user")
            .annotate(
                table_count=Count("tables", distinct=True),
                game_count=Count("tables__games", distinct=True),
                ended_count=Count("tables__games", filter=ended, distinct=True),
            )
        )
        rows = [
            (
                reverse("admin:tournaments_tournamentround_change", args=[one.pk]),
                gettext("round %(number)s") % {"number": one.number},
                _when(one.started_at),
                _when(one.finished_at),
                one.bye.user.get_username() if one.bye is not None else "—",
                one.table_count,
                gettext("%(ended)s of %(games)s") % {"ended": one.ended_count, "games": one.game_count},
            )
            for one in played
        ]
        if not rows:
            return format_html("{}", gettext("No round yet."))
        header = format_html_join(
            "",
            "<th>{}</th>",
            (
                (word,)
                for word in (
                    gettext("round"),
                    gettext("started"),
                    gettext("ended"),
                    gettext("bye"),
                    gettext("tables"),
                    gettext("games ended"),
                )
            ),
        )
        body = format_html_join(
            "",
            '<tr><td><a href="{}">{}</a></td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>',
            rows,
        )
        return format_html("<table><tr>{}</tr>{}</table>", header, body)

    @admin.display(description=gettext_lazy("standings"))
    def standings(self, tournament: Tournament) -> SafeString:
        if tournament.pk is None or tournament.started_at is None:
            return format_html("{}", gettext("Not started."))
        rows = selectors.standings_rows(tournament)
        header = format_html_join(
            "",
            "<th>{}</th>",
            (
                (word,)
                for word in (
                    "#",
                    gettext("player"),
                    gettext("status"),
                    gettext("points"),
                    gettext("Buchholz"),
                    gettext("prestige"),
                    gettext("rating"),
                )
            ),
        )
        statuses = dict(Entry.Status.choices)
        body = format_html_join(
            "",
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            (
                (r.rank, r.username, statuses.get(r.status, r.status), r.points, r.buchholz, r.prestige, r.rating)
                for r in rows
            ),
        )
        return format_html("<table><tr>{}</tr>{}</table>", header, body)


# --- entries: withdraw, replace ---------------------------------------------------------------


def _by_entry(request: HttpRequest, game: Game, data: dict[str, Any]) -> str:
    # The entry actions act through moderation_confirm's ``perform``, per entry.
    raise NotImplementedError


WITHDRAW_ENTRIES = ModerationAction(
    "withdraw_entries",
    gettext_lazy("Withdraw the selected players (their running games are resigned; asks why)"),
    EntryReasonForm,
    _by_entry,
)
REPLACE_ENTRY = ModerationAction(
    "replace_entry",
    gettext_lazy("Replace the player before the next round (one entry; asks who takes the place and why)"),
    EntryReplaceForm,
    _by_entry,
    one_game=True,
)


@admin.register(Entry)
class EntryAdmin(ReadOnlyMixin, ScopedActionsMixin, TournamentScopedAdmin):
    """The players of the tournaments the user sees, read-only; an organiser
    withdraws a player or hands their place to another through the actions."""

    list_display = ["user", "tournament", "status", "reason", "rating", "joined_at", "left_at"]
    list_filter = ["status", "reason", own_tournament_filter("tournament")]
    search_fields = ["user__username", "tournament__name"]
    list_select_related = ["user", "tournament"]
    fields = readonly_fields = ("tournament", "user", "status", "reason", "rating", "joined_at", "left_at")
    actions = ["withdraw_entries", "replace_entry"]
    scoped_action_words = "act on the entries"

    def has_withdraw_permission(self, request: HttpRequest) -> bool:
        return _staff_holding(request, WITHDRAW_PERMISSION)

    def has_replace_permission(self, request: HttpRequest) -> bool:
        return _staff_holding(request, REPLACE_PERMISSION)

    def _moderate(
        self,
        request: HttpRequest,
        queryset: QuerySet[Entry],
        action: ModerationAction,
        perform: Callable[[Entry, dict[str, Any]], str],
    ) -> TemplateResponse | None:
        entries = list(queryset.select_related("user", "tournament").order_by("pk"))
        mine = set(
            tournaments_of(request).filter(pk__in={e.tournament_id for e in entries}).values_list("pk", flat=True)
        )
        return moderation_confirm(
            self,
            request,
            action=action,
            objects=entries,
            allowed=lambda entry: entry.tournament_id in mine,
            perform=perform,
        )

    @admin.action(description=WITHDRAW_ENTRIES.description, permissions=["withdraw"])
    def withdraw_entries(self, request: HttpRequest, queryset: QuerySet[Entry]) -> TemplateResponse | None:
        def perform(entry: Entry, data: dict[str, Any]) -> str:
            with _named_refusals():
                resigned = services.entry_withdraw(
                    entry_id=entry.pk, by=request_moderator(request), reason=data["reason"]
                )
            return ngettext(
                "%(name)s is withdrawn from %(tournament)s; %(count)s running game resigned.",
                "%(name)s is withdrawn from %(tournament)s; %(count)s running games resigned.",
                resigned,
            ) % {"name": entry.user.get_username(), "tournament": entry.tournament.name, "count": resigned}

        return self._moderate(request, queryset, WITHDRAW_ENTRIES, perform)

    @admin.action(description=REPLACE_ENTRY.description, permissions=["replace"])
    def replace_entry(self, request: HttpRequest, queryset: QuerySet[Entry]) -> TemplateResponse | None:
        def perform(entry: Entry, data: dict[str, Any]) -> str:
            before = entry.user.get_username()
            with _named_refusals():
                services.entry_replace(
                    entry_id=entry.pk, user=data["new_user"], by=request_moderator(request), reason=data["reason"]
                )
            return gettext("%(name)s takes the place of %(before)s in %(tournament)s from the next round.") % {
                "name": data["new_user"].get_username(),
                "before": before,
                "tournament": entry.tournament.name,
            }

        return self._moderate(request, queryset, REPLACE_ENTRY, perform)


# --- rounds and their tables ------------------------------------------------------------------


def _entry_names(entry_ids: list[Any]) -> dict[int, str]:
    found = Entry.objects.filter(pk__in=[int(e) for e in entry_ids]).values_list("pk", "user__username")
    return dict(found)


class TournamentTableInline(ReadOnlyMixin, admin.TabularInline[TournamentTable, TournamentRound]):
    model = TournamentTable
    fields = readonly_fields = ("position", "players", "winner_name", "decided_by", "finished_at", "game_links")
    extra = 0

    @admin.display(description=gettext_lazy("players"))
    def players(self, table: TournamentTable) -> str:
        names = _entry_names(table.entries)
        return ", ".join(names.get(int(e), "?") for e in table.entries)

    @admin.display(description=gettext_lazy("winner"))
    def winner_name(self, table: TournamentTable) -> str:
        return table.winner.user.get_username() if table.winner is not None else "—"

    @admin.display(description=gettext_lazy("games"))
    def game_links(self, table: TournamentTable) -> SafeString:
        games = table.games.select_related("game").order_by("number")
        return format_html_join(
            " · ",
            '<a href="{}">{}</a> ({})',
            (
                (reverse("admin:tournaments_tournamentgame_change", args=[g.pk]), g.game_id, g.game.get_status_display())
                for g in games
            ),
        )


@admin.register(TournamentRound)
class TournamentRoundAdmin(ReadOnlyMixin, TournamentScopedAdmin):
    list_display = ["tournament", "number", "started_at", "finished_at", "bye"]
    list_filter = [own_tournament_filter("tournament")]
    search_fields = ["tournament__name"]
    list_select_related = ["tournament", "bye__user"]
    fields = readonly_fields = ("tournament", "number", "started_at", "finished_at", "bye")
    inlines = [TournamentTableInline]


# --- games: adjudicate ------------------------------------------------------------------------


def _by_tournament_game(request: HttpRequest, game: Game, data: dict[str, Any]) -> str:
    # The adjudication acts through moderation_confirm's ``perform``, per tournament game.
    raise NotImplementedError


ADJUDICATE_GAME = ModerationAction(
    "adjudicate_games",
    gettext_lazy("Adjudicate the game (one game; asks the places and why)"),
    adjudicate_form_for(None),
    _by_tournament_game,
    one_game=True,
)


@admin.register(TournamentGame)
class TournamentGameAdmin(ReadOnlyMixin, ScopedActionsMixin, TournamentScopedAdmin):
    """The games of the tournaments the user sees, read-only. An organiser
    adjudicates one (games.moderation.moderation_game_adjudicate, logged in the
    game's moderation log) with this app's permission: a league admin holds no
    site-wide games permission. When it ends, its round moves on (the outbox
    consumer "tournaments")."""

    tournament_path = "table__round__tournament"
    list_display = ["game", "tournament", "round_number", "table_position", "number", "seat_list", "game_status"]
    list_filter = [own_tournament_filter("table__round__tournament"), "game__status"]
    search_fields = ["game__id", "table__round__tournament__name", "game__seats__user__username"]
    list_select_related = ["game", "table__round__tournament"]
    fields = readonly_fields = (
        "tournament",
        "round_number",
        "table_position",
        "number",
        "game",
        "game_status",
        "seat_list",
        "places",
    )
    actions = ["adjudicate_games"]
    scoped_action_words = "adjudicate"

    def get_queryset(self, request: HttpRequest) -> QuerySet[TournamentGame]:
        return super().get_queryset(request).prefetch_related("game__seats__user")

    def has_adjudicate_permission(self, request: HttpRequest) -> bool:
        return _staff_holding(request, ADJUDICATE_PERMISSION)

    @admin.display(description=gettext_lazy("tournament"), ordering="table__round__tournament__name")
    def tournament(self, tournament_game: TournamentGame) -> str:
        return tournament_game.table.round.tournament.name

    @admin.display(description=gettext_lazy("round"), ordering="table__round__number")
    def round_number(self, tournament_game: TournamentGame) -> int:
        return tournament_game.table.round.number

    @admin.display(description=gettext_lazy("table"), ordering="table__position")
    def table_position(self, tournament_game: TournamentGame) -> int:
        return tournament_game.table.position

    @admin.display(description=gettext_lazy("status"), ordering="game__status")
    def game_status(self, tournament_game: TournamentGame) -> str:
        return tournament_game.game.get_status_display()

    @admin.display(description=gettext_lazy("seats"))
    def seat_list(self, tournament_game: TournamentGame) -> str:
        seats = sorted(
            (s for s in tournament_game.game.seats.all() if s.index is not None), key=lambda s: s.index or 0
        )
        return ", ".join(
            gettext("seat %(seat)s: %(name)s") % {"seat": s.index, "name": s.user.get_username()} for s in seats
        )

    @admin.display(description=gettext_lazy("places"))
    def places(self, tournament_game: TournamentGame) -> str:
        result = tournament_game.game.result
        places = result.get("places") if isinstance(result, dict) else None
        return ", ".join(str(p) for p in places) if places else "—"

    @admin.action(description=ADJUDICATE_GAME.description, permissions=["adjudicate"])
    def adjudicate_games(self, request: HttpRequest, queryset: QuerySet[TournamentGame]) -> TemplateResponse | None:
        chosen = list(queryset.select_related("game", "table__round__tournament").order_by("pk"))
        action = ModerationAction(
            ADJUDICATE_GAME.name,
            ADJUDICATE_GAME.description,
            adjudicate_form_for(chosen[0].game if len(chosen) == 1 else None),
            _by_tournament_game,
            one_game=True,
        )
        mine = set(
            tournaments_of(request)
            .filter(pk__in={g.table.round.tournament_id for g in chosen})
            .values_list("pk", flat=True)
        )

        def perform(tournament_game: TournamentGame, data: dict[str, Any]) -> str:
            moderation.moderation_game_adjudicate(
                game_id=tournament_game.game_id,
                by_user=request_moderator(request),
                reason=data["reason"],
                places=data["places"],
            )
            return gettext("Adjudicated game %(game)s (%(table)s): places %(places)s.") % {
                "game": tournament_game.game_id,
                "table": tournament_game.table,
                "places": ", ".join(map(str, data["places"])),
            }

        return moderation_confirm(
            self,
            request,
            action=action,
            objects=chosen,
            allowed=lambda tournament_game: tournament_game.table.round.tournament_id in mine,
            perform=perform,
        )
