"""League admin: leagues, seasons, members, and the games of a league.

A superuser sees everything. A staff user in the "League admins" group sees and
changes only the leagues whose ``admins`` include them, and what belongs to those
leagues; they moderate those leagues' games with the game moderation actions of
games.admin and their table talk with chat.admin's (both scoped by overriding
``moderation_allowed``), and edit a season's
pairings (change a player, cancel a pairing) from the league games list, with the
same confirmation page and required reason. Changes go through leagues.services.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.utils import unquote
from django.contrib.auth.models import User
from django.db.models import Model, Q, QuerySet
from django.forms import ModelChoiceField
from django.http import Http404, HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext, gettext_lazy, ngettext

from api.admin_tools import NoAddMixin, ReadOnlyMixin, ScopedActionsMixin
from chat.admin import ChatMessageAdmin
from chat.models import ChatMessage
from core.errors import DomainError
from games.admin import GameModerationAdmin, HiddenInformationMixin, ModerationLogMixin
from games.admin.actions import ModerationAction, ReasonForm, moderation_confirm, seat_choices
from games.models import Game, ModerationEntry
from leagues import selectors, services
from leagues.models import (
    Division,
    League,
    LeagueChatMessage,
    LeagueGame,
    LeagueModerationEntry,
    LeagueScopedGame,
    Membership,
    PlayerRating,
    RatingChange,
    Season,
    SeasonEntry,
)

if TYPE_CHECKING:
    from django_stubs_ext import StrOrPromise


def leagues_of(request: HttpRequest) -> QuerySet[League]:
    """The leagues ``request.user`` administers: all of them for a superuser."""
    user = request.user
    if user.is_superuser:
        return League.objects.all()
    if not (user.is_active and user.is_staff):
        return League.objects.none()
    return League.objects.filter(admins=user)


# The permission that lets a league admin moderate (the "league games to moderate" proxy's).
MODERATE_LEAGUE_GAMES_PERMISSION = "leagues.view_leaguescopedgame"
# The permission that lets a league admin hide lines of table talk (the "league chat messages" proxy's).
MODERATE_LEAGUE_CHAT_PERMISSION = "leagues.view_leaguechatmessage"


def league_moderation_allowed(
    request: HttpRequest, game_id: str | None = None, *, permission: str = MODERATE_LEAGUE_GAMES_PERMISSION
) -> bool:
    """A superuser; or a staff user in "League admins" (its ``permission``: by
    default on the "league games to moderate" proxy) who administers the league of
    the game ``game_id`` (any league, without one)."""
    user = request.user
    if not (user.is_active and user.is_staff):
        return False
    if user.is_superuser:
        return True
    if not user.has_perm(permission):
        return False
    mine = leagues_of(request)
    if game_id is None:
        return mine.exists()
    return LeagueGame.objects.filter(game_id=game_id, season__league__in=mine).exists()


def own_league_filter(league_path: str) -> type[admin.SimpleListFilter]:
    """A "league" filter listing only the leagues the user administers (Django's
    own would list every league), on the model's way to its league."""

    class OwnLeagueFilter(admin.SimpleListFilter):
        title = gettext_lazy("league")
        parameter_name = f"{league_path}__id__exact"

        def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
            return [(str(league.pk), league.name) for league in leagues_of(request).order_by("name")]

        def queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any]:
            value = self.value()
            if value is None:
                return queryset
            if not value.isdigit():
                return queryset.none()
            return queryset.filter(**{f"{league_path}__id": int(value)})

    return OwnLeagueFilter


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

    @admin.display(description=gettext_lazy("members"))
    def members(self, league: League) -> int:
        return selectors.active_member_count(league=league)


@admin.register(Division)
class DivisionAdmin(LeagueScopedAdmin):
    list_display = ["league", "level", "name"]
    list_filter = [own_league_filter("league")]


def _standings_table(season: Season) -> str:
    rows = selectors.season_standings(season=season)
    if not rows:
        return gettext("No players yet.")
    header = format_html_join(
        "",
        "<th>{}</th>",
        (
            (word,)
            for word in (
                "#",
                gettext("player"),
                gettext("division"),
                gettext("played"),
                gettext("points"),
                gettext("wins"),
                gettext("head-to-head"),
                gettext("prestige"),
            )
        ),
    )
    body = format_html_join(
        "",
        "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
        (
            (
                r.rank,
                gettext("%(username)s (left)") % {"username": r.username} if r.dropped else r.username,
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
    return format_html("<table><tr>{}</tr>{}</table>", header, body)


@admin.register(Season)
class SeasonAdmin(LeagueScopedAdmin):
    list_display = ["__str__", "starts_on", "ends_on", "started_at"]
    list_filter = [own_league_filter("league")]
    readonly_fields = ["started_at", "standings"]
    actions = ["start_seasons"]

    @admin.display(description=gettext_lazy("standings"))
    def standings(self, season: Season) -> str:
        return _standings_table(season) if season.pk else ""

    @admin.action(description=gettext_lazy("Start the season: create and start all its games"), permissions=["change"])
    def start_seasons(self, request: HttpRequest, queryset: QuerySet[Season]) -> None:
        for season in queryset.order_by("pk"):
            try:
                games = services.season_start(season_id=season.pk)
            except DomainError as error:
                self._report(request, error)
            else:
                self.message_user(
                    request,
                    ngettext("%(season)s: %(count)s game started.", "%(season)s: %(count)s games started.", len(games))
                    % {"season": season, "count": len(games)},
                    messages.SUCCESS,
                )


class SuspendedFromLeagueFilter(admin.SimpleListFilter):
    title = gettext_lazy("suspended from the league")
    parameter_name = "suspended"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [("yes", gettext("Yes")), ("no", gettext("No"))]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any]:
        if self.value() == "yes":
            return queryset.filter(suspended_at__isnull=False)
        if self.value() == "no":
            return queryset.filter(suspended_at__isnull=True)
        return queryset


class MemberReasonForm(ReasonForm):
    """A member action asks only why; the player reads the reason."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["reason"].help_text = gettext_lazy(
            "Required: it is kept in the moderation log and emailed to the player."
        )


def _member_action(name: str, description: StrOrPromise) -> ModerationAction:
    # ``name`` is the admin action's own (the confirmation page posts it back); the
    # member actions run through moderation_confirm's ``perform``, per membership.
    return ModerationAction(name, description, MemberReasonForm, _by_member)


def _by_member(request: HttpRequest, game: Game, data: dict[str, Any]) -> str:
    raise NotImplementedError


WARN_MEMBERS = _member_action("warn_members", gettext_lazy("Warn the selected players (asks why)"))
SUSPEND_MEMBERS = _member_action(
    "suspend_members", gettext_lazy("Suspend the selected players from the league (asks why)")
)
UNSUSPEND_MEMBERS = _member_action(
    "unsuspend_members", gettext_lazy("Lift their suspension from the league (asks why)")
)


@admin.register(Membership)
class MembershipAdmin(NoAddMixin, ScopedActionsMixin, LeagueScopedAdmin):
    """Requests to join and leave, and the league's moderation of its players:
    warn, suspend from the league and lift it (leagues.services.member_*), each
    with a confirmation page and a reason, logged. A site-wide suspension is the
    staff's (Accounts -> Players)."""

    list_display = ["user", "league", "status", "suspended", "requested_at", "decided_at", "decided_by"]
    list_filter = ["status", SuspendedFromLeagueFilter, own_league_filter("league")]
    search_fields = ["user__username"]
    list_select_related = ["user", "league", "decided_by"]
    fields = readonly_fields = (
        "league", "user", "status", "requested_at", "decided_at", "decided_by", "suspended_at", "suspended_by"
    )
    actions = ["approve", "reject", "warn_members", "suspend_members", "unsuspend_members"]
    scoped_action_words = "moderate the memberships"  # players ask to join through the API: no adding here

    @admin.display(description=gettext_lazy("suspended from the league"), boolean=True, ordering="suspended_at")
    def suspended(self, membership: Membership) -> bool:
        return membership.suspended_at is not None

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
        self.message_user(
            request,
            ngettext("Decided %(count)s request.", "Decided %(count)s requests.", done) % {"count": done},
            messages.SUCCESS,
        )

    @admin.action(
        description=gettext_lazy("Approve the requests (to join, or to leave: forfeits their running games)"),
        permissions=["change"],
    )
    def approve(self, request: HttpRequest, queryset: QuerySet[Membership]) -> None:
        self._decide(request, queryset, True)

    @admin.action(description=gettext_lazy("Turn the requests down"), permissions=["change"])
    def reject(self, request: HttpRequest, queryset: QuerySet[Membership]) -> None:
        self._decide(request, queryset, False)

    def _moderate(
        self, request: HttpRequest, queryset: QuerySet[Membership], action: ModerationAction, perform: Any
    ) -> TemplateResponse | None:
        mine = set(leagues_of(request).values_list("pk", flat=True))
        return moderation_confirm(
            self,
            request,
            action=action,
            objects=list(queryset.select_related("user", "league").order_by("pk")),
            allowed=lambda membership: membership.league_id in mine,
            perform=perform,
        )

    @admin.action(description=WARN_MEMBERS.description, permissions=["change"])
    def warn_members(self, request: HttpRequest, queryset: QuerySet[Membership]) -> TemplateResponse | None:
        def perform(membership: Membership, data: dict[str, Any]) -> str:
            services.member_warn(membership_id=membership.pk, by=request.user, reason=data["reason"])  # type: ignore[arg-type]
            return gettext("%(name)s is warned; they are emailed the reason.") % {
                "name": membership.user.get_username()
            }

        return self._moderate(request, queryset, WARN_MEMBERS, perform)

    @admin.action(description=SUSPEND_MEMBERS.description, permissions=["change"])
    def suspend_members(self, request: HttpRequest, queryset: QuerySet[Membership]) -> TemplateResponse | None:
        return self._suspension(request, queryset, SUSPEND_MEMBERS, suspend=True)

    @admin.action(description=UNSUSPEND_MEMBERS.description, permissions=["change"])
    def unsuspend_members(self, request: HttpRequest, queryset: QuerySet[Membership]) -> TemplateResponse | None:
        return self._suspension(request, queryset, UNSUSPEND_MEMBERS, suspend=False)

    def _suspension(
        self, request: HttpRequest, queryset: QuerySet[Membership], action: ModerationAction, *, suspend: bool
    ) -> TemplateResponse | None:
        change = services.member_suspend if suspend else services.member_unsuspend

        def perform(membership: Membership, data: dict[str, Any]) -> str:
            done = change(membership_id=membership.pk, by=request.user, reason=data["reason"])  # type: ignore[arg-type]
            name, league = membership.user.get_username(), membership.league.name
            words = {"name": name, "league": league}
            if suspend:
                if done:
                    return gettext("%(name)s is suspended from %(league)s.") % words
                return gettext("%(name)s was already suspended from %(league)s.") % words
            if done:
                return gettext("%(name)s may play in %(league)s again.") % words
            return gettext("%(name)s was not suspended from %(league)s.") % words

        return self._moderate(request, queryset, action, perform)


@admin.register(SeasonEntry)
class SeasonEntryAdmin(NoAddMixin, LeagueScopedAdmin):
    league_path = "season__league"
    list_display = ["user", "season", "division", "late", "dropped_at"]
    list_filter = [own_league_filter("season__league"), "late"]
    fields = readonly_fields = ("season", "user", "division", "joined_at", "late", "dropped_at")


class PairingCancelForm(ReasonForm):
    """Cancelling pairings asks only why."""


class PairingReplaceForm(ReasonForm):
    """Which seat of the pairing, and which of the season's players takes it."""

    seat = forms.TypedChoiceField(
        coerce=int, choices=[], label=gettext_lazy("Seat"), help_text=gettext_lazy("The seat whose player changes.")
    )
    new_user = forms.ModelChoiceField(
        queryset=User.objects.none(),
        label=gettext_lazy("New player"),
        help_text=gettext_lazy("One of the season's players (not dropped) who is not already in this game."),
    )


def _replace_form_for(pairing: LeagueGame | None) -> type[PairingReplaceForm]:
    """The form for this pairing: its seats, and the players still in its season."""
    seats = seat_choices(pairing.game) if pairing is not None else []
    players = selectors.season_active_players(season=pairing.season) if pairing is not None else User.objects.none()

    class ForThisPairing(PairingReplaceForm):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            seat_field = self.fields["seat"]
            assert isinstance(seat_field, forms.TypedChoiceField)
            seat_field.choices = seats
            player_field = self.fields["new_user"]
            assert isinstance(player_field, forms.ModelChoiceField)
            player_field.queryset = players

    return ForThisPairing


def _by_pairing(request: HttpRequest, game: Game, data: dict[str, Any]) -> str:
    # The pairing actions act through moderation_confirm's ``perform``, per pairing.
    raise NotImplementedError


REPLACE_PLAYER = ModerationAction(
    "pairing_replace_player",
    gettext_lazy("Change a player in the selected pairing (one pairing; asks the seat, the new player and why)"),
    PairingReplaceForm,
    _by_pairing,
    one_game=True,
)
CANCEL_PAIRINGS = ModerationAction(
    "pairing_cancel",
    gettext_lazy("Cancel the selected pairings (their games are aborted; asks why)"),
    PairingCancelForm,
    _by_pairing,
)


@admin.register(LeagueGame)
class LeagueGameAdmin(ReadOnlyMixin, ScopedActionsMixin, LeagueScopedAdmin):
    """A season's pairings, read-only; edited only by the two actions, which go
    through leagues.services and games.moderation (logged with a reason)."""

    league_path = "season__league"
    list_display = ["game", "season", "round", "division", "game_status"]
    list_filter = [own_league_filter("season__league")]
    list_select_related = ["game", "season__league", "division"]
    fields = readonly_fields = ("season", "game", "round", "division")
    actions = ["replace_player", "cancel_pairings"]
    scoped_action_words = "edit the pairings"

    @admin.display(description=gettext_lazy("status"), ordering="game__status")
    def game_status(self, pairing: LeagueGame) -> str:
        return pairing.game.status

    def moderation_allowed(self, request: HttpRequest, pairing: LeagueGame | None = None) -> bool:
        """The rule of the league games to moderate: a superuser, or a league admin
        of this pairing's league."""
        return league_moderation_allowed(request, pairing.game_id if pairing is not None else None)

    def has_moderate_permission(self, request: HttpRequest) -> bool:
        return self.moderation_allowed(request, None)

    @admin.action(description=REPLACE_PLAYER.description, permissions=["moderate"])
    def replace_player(self, request: HttpRequest, queryset: QuerySet[LeagueGame]) -> TemplateResponse | None:
        pairings = list(queryset.select_related("game", "season").order_by("pk"))
        action = ModerationAction(
            REPLACE_PLAYER.name,
            REPLACE_PLAYER.description,
            _replace_form_for(pairings[0] if len(pairings) == 1 else None),
            _by_pairing,
            one_game=True,
        )

        def perform(pairing: LeagueGame, data: dict[str, Any]) -> str:
            new_user = data["new_user"]
            services.pairing_replace_player(
                league_game_id=pairing.pk,
                seat_index=data["seat"],
                new_user=new_user,
                by_user=request.user,  # type: ignore[arg-type]  # the admin lets only staff in
                reason=data["reason"],
            )
            return gettext("%(pairing)s: seat %(seat)s is now played by %(name)s.") % {
                "pairing": pairing,
                "seat": data["seat"],
                "name": new_user.get_username(),
            }

        return moderation_confirm(
            self,
            request,
            action=action,
            objects=pairings,
            allowed=lambda pairing: self.moderation_allowed(request, pairing),
            perform=perform,
        )

    @admin.action(description=CANCEL_PAIRINGS.description, permissions=["moderate"])
    def cancel_pairings(self, request: HttpRequest, queryset: QuerySet[LeagueGame]) -> TemplateResponse | None:
        def perform(pairing: LeagueGame, data: dict[str, Any]) -> str:
            services.pairing_cancel(
                league_game_id=pairing.pk,
                by_user=request.user,  # type: ignore[arg-type]  # the admin lets only staff in
                reason=data["reason"],
            )
            return gettext("%(pairing)s: cancelled (its game is aborted).") % {"pairing": pairing}

        return moderation_confirm(
            self,
            request,
            action=CANCEL_PAIRINGS,
            objects=list(queryset.select_related("game", "season").order_by("pk")),
            allowed=lambda pairing: self.moderation_allowed(request, pairing),
            perform=perform,
        )


@admin.register(LeagueScopedGame)
class LeagueScopedGameAdmin(ScopedActionsMixin, GameModerationAdmin):
    """The site's game admin and its moderation actions, kept to the games of the
    leagues the user administers."""

    scoped_action_words = "moderate"

    def get_queryset(self, request: HttpRequest) -> QuerySet[Game]:
        queryset = super().get_queryset(request).filter(league_game__isnull=False)
        if request.user.is_superuser:
            return queryset
        return queryset.filter(league_game__season__league__in=leagues_of(request))

    def moderation_allowed(self, request: HttpRequest, game: Game | None = None) -> bool:
        """A superuser; or a staff user in "League admins" (its permission on this
        proxy) who administers the league of ``game`` (any league, without one)."""
        return league_moderation_allowed(request, game.pk if game is not None else None)

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        # Only those who may moderate: the view permission alone is not enough.
        return self.moderation_allowed(request, obj)

    def has_module_permission(self, request: HttpRequest) -> bool:
        return self.moderation_allowed(request, None)

    def _own_game_or_404(self, request: HttpRequest, object_id: str) -> None:
        # Another league's game (or none): 404, not the admin's redirect to its index.
        if self.get_object(request, unquote(object_id)) is None:
            raise Http404(gettext("No game %(game)s in your leagues.") % {"game": object_id})

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


_OWN_LEAGUE_OF_THE_LINE = own_league_filter("game__league_game__season__league")


@admin.register(LeagueChatMessage)
class LeagueChatMessageAdmin(ScopedActionsMixin, ChatMessageAdmin):
    """The table talk of the games of the leagues the user administers (both
    threads), read-only, with chat.admin's action that hides a line with a reason
    (chat.services.chat_message_hide, logged in the game's moderation log)."""

    scoped_action_words = "moderate the lines"

    def get_list_filter(self, request: HttpRequest) -> list[Any]:
        return [_OWN_LEAGUE_OF_THE_LINE, *super().get_list_filter(request)]

    def get_queryset(self, request: HttpRequest) -> QuerySet[ChatMessage]:
        queryset = super().get_queryset(request).filter(game__league_game__isnull=False)
        if request.user.is_superuser:
            return queryset
        return queryset.filter(game__league_game__season__league__in=leagues_of(request))

    def moderation_allowed(self, request: HttpRequest, message: ChatMessage | None = None) -> bool:
        """A superuser; or a staff user in "League admins" (its permission on this
        proxy) who administers the league of the line's game (any league, without one)."""
        game_id = message.game_id if message is not None else None
        return league_moderation_allowed(request, game_id, permission=MODERATE_LEAGUE_CHAT_PERMISSION)

    def _own_line_or_404(self, request: HttpRequest, object_id: str) -> None:
        # Another league's line (or none): 404, not the admin's redirect to its index.
        if self.get_object(request, unquote(object_id)) is None:
            raise Http404(gettext("No line %(id)s in the games of your leagues.") % {"id": object_id})

    def change_view(
        self, request: HttpRequest, object_id: str, form_url: str = "", extra_context: dict[str, Any] | None = None
    ) -> HttpResponse:
        self._own_line_or_404(request, object_id)
        return super().change_view(request, object_id, form_url, extra_context)

    def history_view(
        self, request: HttpRequest, object_id: str, extra_context: dict[str, Any] | None = None
    ) -> HttpResponse:
        self._own_line_or_404(request, object_id)
        return super().history_view(request, object_id, extra_context)


@admin.register(LeagueModerationEntry)
class LeagueModerationEntryAdmin(
    ReadOnlyMixin, ModerationLogMixin[LeagueModerationEntry], HiddenInformationMixin[LeagueModerationEntry]
):
    """The moderation log of the user's leagues, read-only for everyone (the log is
    append-only: games.moderation writes it): the entries about their games, and
    the warnings and suspensions of their members (entries about no game). The
    site-wide log (games.admin) needs ``games.moderate_game``."""

    def get_queryset(self, request: HttpRequest) -> QuerySet[LeagueModerationEntry]:
        mine = leagues_of(request)
        game_ids = LeagueGame.objects.filter(season__league__in=mine).values("game_id")
        member_ids = Membership.objects.filter(
            league__in=mine, status__in=(Membership.Status.ACTIVE, Membership.Status.LEAVING)
        ).values("user_id")
        # The entries of their leagues' admins (warnings, suspensions from the league)
        # name the league; another league's are not theirs to read. Site-wide
        # warnings and suspensions of their members name none.
        own_league = Q(details__league_id__in=list(mine.values_list("pk", flat=True)))
        site_wide = Q(game_id__isnull=True, target_user_id__in=member_ids, details__league_id__isnull=True)
        about = Q(game_id__in=game_ids) | own_league | site_wide
        return super().get_queryset(request).filter(about)

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        user = request.user
        return bool(user.is_active and user.is_staff and super().has_view_permission(request, obj))

    def get_actions(self, request: HttpRequest) -> dict[str, Any]:
        return {}

    @admin.display(description=gettext_lazy("game"), ordering="game_id")
    def game_link(self, entry: ModerationEntry) -> str:
        if not entry.game_id:
            return "—"
        url = reverse("admin:leagues_leaguescopedgame_change", args=[entry.game_id])
        return format_html('<a href="{}">{}</a>', url, entry.game_id)


class ReadOnlyAdmin(ReadOnlyMixin, admin.ModelAdmin[Any]):
    """Ratings: written by the ratings consumer only."""


@admin.register(PlayerRating)
class PlayerRatingAdmin(ReadOnlyAdmin):
    list_display = ["user", "variant", "rating", "deviation", "volatility", "games", "updated_at"]
    list_filter = ["variant"]
    search_fields = ["user__username"]

    @admin.display(description=gettext_lazy("RD (rating deviation)"), ordering="rd")
    def deviation(self, rating: PlayerRating) -> float:
        return rating.rd


@admin.register(RatingChange)
class RatingChangeAdmin(ReadOnlyAdmin):
    list_display = ["game", "user", "variant", "rating_before", "rating_after", "created_at"]
    list_filter = ["variant"]
    search_fields = ["user__username", "game__id"]


