"""League admin: leagues, seasons, members, and the games of a league.

A superuser sees everything. A staff user in the "League admins" group sees and
changes only the leagues whose ``admins`` include them, and what belongs to those
leagues; they moderate those leagues' games with the game moderation actions of
games.admin (scoped by overriding ``moderation_allowed``). Changes go through
leagues.services.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.contrib.admin.utils import unquote
from django.core.exceptions import PermissionDenied
from django.db.models import Model, Q, QuerySet
from django.forms import ModelChoiceField
from django.http import Http404, HttpRequest, HttpResponse
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import mark_safe

from core.errors import DomainError
from games.admin import GameModerationAdmin, HiddenInformationMixin
from games.models import Game, ModerationEntry
from leagues import selectors, services
from leagues.models import (
    Division,
    League,
    LeagueGame,
    LeagueModerationEntry,
    LeagueScopedGame,
    Membership,
    PlayerRating,
    RatingChange,
    Season,
    SeasonEntry,
)


def leagues_of(request: HttpRequest) -> QuerySet[League]:
    """The leagues ``request.user`` administers: all of them for a superuser."""
    user = request.user
    if user.is_superuser:
        return League.objects.all()
    if not (user.is_active and user.is_staff):
        return League.objects.none()
    return League.objects.filter(admins=user)


class LeagueScopedAdmin(admin.ModelAdmin[Any]):
    """Lists and edits only what belongs to the user's leagues (``league_path``
    names the way from the model to its league)."""

    league_path = "league"

    def get_queryset(self, request: HttpRequest) -> QuerySet[Any]:
        queryset = super().get_queryset(request)
        if request.user.is_superuser:
            return queryset
        return queryset.filter(**{f"{self.league_path}__in": leagues_of(request)}).distinct()

    def formfield_for_foreignkey(
        self, db_field: Any, request: HttpRequest, **kwargs: Any
    ) -> ModelChoiceField[Any] | None:
        if db_field.name == "league":
            kwargs["queryset"] = leagues_of(request)
        return super().formfield_for_foreignkey(db_field, request, **kwargs)

    def _report(self, request: HttpRequest, error: DomainError) -> None:
        self.message_user(request, error.message, messages.ERROR)


@admin.register(League)
class LeagueAdmin(LeagueScopedAdmin):
    league_path = "pk"
    list_display = ["name", "variant", "players_per_game", "rated", "members", "longest_waiting_first"]
    list_filter = ["variant", "players_per_game", "rated"]
    search_fields = ["name"]
    filter_horizontal = ["admins"]

    def get_queryset(self, request: HttpRequest) -> QuerySet[League]:
        return leagues_of(request) & super(LeagueScopedAdmin, self).get_queryset(request)

    def get_readonly_fields(self, request: HttpRequest, obj: Model | None = None) -> list[str]:
        # Only a superuser names a league's admins.
        return [] if request.user.is_superuser else ["admins"]

    @admin.display(description="members")
    def members(self, league: League) -> int:
        return selectors.active_member_count(league=league)


@admin.register(Division)
class DivisionAdmin(LeagueScopedAdmin):
    list_display = ["league", "level", "name"]
    list_filter = ["league"]


def _standings_table(season: Season) -> str:
    rows = selectors.season_standings(season=season)
    if not rows:
        return "No players yet."
    header = mark_safe(  # a constant: no data in it
        "<tr><th>#</th><th>player</th><th>division</th><th>played</th><th>points</th><th>wins</th>"
        "<th>head-to-head</th><th>prestige</th></tr>"
    )
    body = format_html_join(
        "",
        "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
        (
            (
                r.rank,
                r.username + (" (left)" if r.dropped else ""),
                r.division or "",
                r.played,
                r.points,
                r.wins,
                r.head_to_head,
                r.total_score,
            )
            for r in rows
        ),
    )
    return format_html("<table>{}{}</table>", header, body)


@admin.register(Season)
class SeasonAdmin(LeagueScopedAdmin):
    list_display = ["__str__", "starts_on", "ends_on", "started_at"]
    list_filter = ["league"]
    readonly_fields = ["started_at", "standings"]
    actions = ["start_seasons"]

    @admin.display(description="standings")
    def standings(self, season: Season) -> str:
        return _standings_table(season) if season.pk else ""

    @admin.action(description="Start the season: create and start all its games")
    def start_seasons(self, request: HttpRequest, queryset: QuerySet[Season]) -> None:
        for season in queryset.order_by("pk"):
            try:
                games = services.season_start(season_id=season.pk)
            except DomainError as error:
                self._report(request, error)
            else:
                self.message_user(request, f"{season}: {len(games)} games started.", messages.SUCCESS)


@admin.register(Membership)
class MembershipAdmin(LeagueScopedAdmin):
    list_display = ["user", "league", "status", "requested_at", "decided_at", "decided_by"]
    list_filter = ["status", "league"]
    search_fields = ["user__username"]
    list_select_related = ["user", "league", "decided_by"]
    fields = readonly_fields = ("league", "user", "status", "requested_at", "decided_at", "decided_by")
    actions = ["approve", "reject"]

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False  # players ask to join through the API

    def _decide(self, request: HttpRequest, queryset: QuerySet[Membership], approve: bool) -> None:
        done = 0
        for membership_id in queryset.values_list("pk", flat=True):
            try:
                if approve:
                    services.membership_approve(membership_id=membership_id, by=request.user)  # type: ignore[arg-type]
                else:
                    services.membership_reject(membership_id=membership_id, by=request.user)  # type: ignore[arg-type]
            except DomainError as error:
                self._report(request, error)
            else:
                done += 1
        self.message_user(request, f"Decided {done} request(s).", messages.SUCCESS)

    @admin.action(description="Approve the requests (to join, or to leave: forfeits their running games)")
    def approve(self, request: HttpRequest, queryset: QuerySet[Membership]) -> None:
        self._decide(request, queryset, True)

    @admin.action(description="Turn the requests down")
    def reject(self, request: HttpRequest, queryset: QuerySet[Membership]) -> None:
        self._decide(request, queryset, False)


@admin.register(SeasonEntry)
class SeasonEntryAdmin(LeagueScopedAdmin):
    league_path = "season__league"
    list_display = ["user", "season", "division", "late", "dropped_at"]
    list_filter = ["season__league", "late"]
    fields = readonly_fields = ("season", "user", "division", "joined_at", "late", "dropped_at")

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(LeagueGame)
class LeagueGameAdmin(LeagueScopedAdmin):
    league_path = "season__league"
    list_display = ["game", "season", "round", "division"]
    list_filter = ["season__league"]
    list_select_related = ["game", "season__league", "division"]
    fields = readonly_fields = ("season", "game", "round", "division")

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(LeagueScopedGame)
class LeagueScopedGameAdmin(GameModerationAdmin):
    """The site's game admin and its moderation actions, kept to the games of the
    leagues the user administers."""

    def get_queryset(self, request: HttpRequest) -> QuerySet[Game]:
        queryset = super().get_queryset(request).filter(league_game__isnull=False)
        if request.user.is_superuser:
            return queryset
        return queryset.filter(league_game__season__league__in=leagues_of(request))

    def moderation_allowed(self, request: HttpRequest, game: Game | None = None) -> bool:
        """A superuser; or a staff user in "League admins" (its permission on this
        proxy) who administers the league of ``game`` (any league, without one)."""
        user = request.user
        if not (user.is_active and user.is_staff):
            return False
        if user.is_superuser:
            return True
        if not user.has_perm(f"{self.opts.app_label}.view_{self.opts.model_name}"):
            return False
        mine = leagues_of(request)
        if game is None:
            return mine.exists()
        return LeagueGame.objects.filter(game_id=game.pk, season__league__in=mine).exists()

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        # Only those who may moderate: the view permission alone is not enough.
        return self.moderation_allowed(request, obj)

    def has_module_permission(self, request: HttpRequest) -> bool:
        return self.moderation_allowed(request, None)

    def _own_game_or_404(self, request: HttpRequest, object_id: str) -> None:
        # Another league's game (or none): 404, not the admin's redirect to its index.
        if self.get_object(request, unquote(object_id)) is None:
            raise Http404(f"No game {object_id} in your leagues.")

    def change_view(
        self, request: HttpRequest, object_id: str, form_url: str = "", extra_context: dict[str, Any] | None = None
    ) -> HttpResponse:
        self._own_game_or_404(request, object_id)
        return super().change_view(request, object_id, form_url, extra_context)

    def history_view(
        self, request: HttpRequest, object_id: str, extra_context: dict[str, Any] | None = None
    ) -> HttpResponse:
        self._own_game_or_404(request, object_id)
        return super().history_view(request, object_id, extra_context)

    def changelist_view(self, request: HttpRequest, extra_context: dict[str, Any] | None = None) -> HttpResponse:
        # An action sent for games outside the user's leagues is refused (403),
        # not quietly applied to the rest.
        if request.method == "POST" and request.POST.get("action"):
            selected = set(request.POST.getlist(helpers.ACTION_CHECKBOX_NAME))
            own = {str(pk) for pk in self.get_queryset(request).filter(pk__in=selected).values_list("pk", flat=True)}
            if selected - own:
                raise PermissionDenied(f"You may not moderate {', '.join(sorted(selected - own))}.")
        response: HttpResponse = super().changelist_view(request, extra_context)
        return response


@admin.register(LeagueModerationEntry)
class LeagueModerationEntryAdmin(HiddenInformationMixin[LeagueModerationEntry]):
    """The moderation log of the user's leagues, read-only for everyone (the log is
    append-only: games.moderation writes it): the entries about their games, and
    the warnings and suspensions of their members (entries about no game). The
    site-wide log (games.admin) needs ``games.moderate_game``."""

    list_display = ["at", "action", "user_id", "game_link", "target_user_id", "reason"]
    list_filter = ["action"]
    search_fields = ["game_id", "reason"]
    date_hierarchy = "at"
    fields = readonly_fields = ("at", "action", "user_id", "game_id", "target_user_id", "reason", "details")

    def get_queryset(self, request: HttpRequest) -> QuerySet[LeagueModerationEntry]:
        mine = leagues_of(request)
        game_ids = LeagueGame.objects.filter(season__league__in=mine).values("game_id")
        member_ids = Membership.objects.filter(
            league__in=mine, status__in=(Membership.Status.ACTIVE, Membership.Status.LEAVING)
        ).values("user_id")
        about = Q(game_id__in=game_ids) | Q(game_id__isnull=True, target_user_id__in=member_ids)
        return super().get_queryset(request).filter(about)

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        user = request.user
        return bool(user.is_active and user.is_staff and super().has_view_permission(request, obj))

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def get_actions(self, request: HttpRequest) -> dict[str, Any]:
        return {}

    @admin.display(description="game", ordering="game_id")
    def game_link(self, entry: ModerationEntry) -> str:
        if not entry.game_id:
            return "—"
        url = reverse("admin:leagues_leaguescopedgame_change", args=[entry.game_id])
        return format_html('<a href="{}">{}</a>', url, entry.game_id)


class ReadOnlyAdmin(admin.ModelAdmin[Any]):
    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(PlayerRating)
class PlayerRatingAdmin(ReadOnlyAdmin):
    list_display = ["user", "variant", "rating", "rd", "volatility", "games", "updated_at"]
    list_filter = ["variant"]
    search_fields = ["user__username"]


@admin.register(RatingChange)
class RatingChangeAdmin(ReadOnlyAdmin):
    list_display = ["game", "user", "variant", "rating_before", "rating_after", "created_at"]
    list_filter = ["variant"]
    search_fields = ["user__username", "game__id"]


