"""Read-mostly admin, and moderation. Changes to a game go through
games.services and games.moderation, never here: the move log and the seed are
the truth, so they are never edited by hand, and the seed of an unfinished game
is never shown.

Moderation actions (abort, adjudicate, extend a deadline, pause, resume, replace
a seat; warn and suspend a player) each ask for a reason on a confirmation page
and are refused without the ``games.moderate_game`` permission. A scoped admin
(a league's) reuses them: subclass ``GameModerationAdmin`` (or mix
``ModerationActionsMixin`` into its own ModelAdmin) and override
``moderation_allowed(request, game)`` to narrow which games a user may moderate.

The registrations are here (Django's autodiscovery imports ``games.admin``);
``display`` holds the columns' words and ``actions`` the moderation actions'
confirmation and permission, which chat's and leagues' admins reuse.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.db.models import F, Model, QuerySet
from django.http import Http404, HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.urls import URLPattern, path, reverse
from django.utils import timezone
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString
from django.utils.translation import gettext, gettext_lazy, ngettext

from accounts.admin import PlayerAdmin
from api.admin_tools import happened
from accounts.models import Player
from core.errors import DomainError
from games import moderation
from games.links import seat_link_rotate_for_seat
from api.admin_tools import ReadOnlyMixin
from games.models import Game, GameEvent, GameEventClaim, ModerationEntry, Move, Seat
from games.presentation import board_context

from games.admin.display import (
    details_html,
    moderator_words,
    result_html,
    target_words,
    time_control_words,
    with_people_names,
)
from games.admin.actions import (
    ModerationAction,
    ModerationActionsMixin,
    ReasonForm,
    moderation_allowed,
    moderation_confirm,
    request_moderator,
)

# A seat's plan and which moves came from one are its holder's alone (docs/plans.md),
# and so are its private notes (docs/api.md, "Notes").
HIDDEN_FIELDS = frozenset(
    {"seed", "state", "start_state", "private_card", "plan", "plan_outcomes", "from_plan", "note", "move_notes"}
)

_ModelT = TypeVar("_ModelT", bound=Model)

if TYPE_CHECKING:
    from django_stubs_ext import StrOrPromise


class HiddenInformationMixin(admin.ModelAdmin[_ModelT]):
    """Refuse list filters from the query string that touch hidden information.

    Django lets an admin list filter on any of a model's fields through the URL
    (``?seed__startswith=9``), which would reveal a running game's seed, its deck
    order or a blind reservation one guess at a time. Such a lookup gets a 400.
    """

    def lookup_allowed(self, lookup: str, value: str, request: HttpRequest) -> bool:
        if HIDDEN_FIELDS.intersection(lookup.split("__")):
            return False
        if "\x00" in str(value):  # PostgreSQL refuses it: a 400, not a 500
            return False
        return super().lookup_allowed(lookup, value, request)


class SeatInline(ReadOnlyMixin, admin.TabularInline[Seat, Game]):
    model = Seat
    fields = readonly_fields = ("index", "user", "join_position", "invited", "joined_at", "resigned", "resigned_at")
    extra = 0


class MoveInline(ReadOnlyMixin, admin.TabularInline[Move, Game]):
    model = Move
    # No private_card: the admin list is not the owner's view.
    fields = readonly_fields = ("ply", "seat", "text", "automatic", "created_at")
    extra = 0
    ordering = ["ply"]


# --- list filters ----------------------------------------------------------------


class OverdueFilter(admin.SimpleListFilter):
    """Active games whose deadline has passed (the sweep acts on them soon)."""

    title = gettext_lazy("overdue")
    parameter_name = "overdue"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [("yes", gettext("Overdue: the deadline has passed"))]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any]:
        if self.value() == "yes":
            return queryset.filter(status=Game.Status.ACTIVE, deadline_at__lt=timezone.now())
        return queryset


class WaitingOnFilter(admin.SimpleListFilter):
    """Active games waiting on one player: the seat to move is theirs."""

    title = gettext_lazy("waiting on")
    parameter_name = "waiting_on"
    LIMIT = 100

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        # Only the players of the games this admin lists (a league admin's: their leagues').
        listed = model_admin.get_queryset(request).values("pk")
        waiting = (
            Seat.objects.filter(game__status=Game.Status.ACTIVE, index=F("game__to_move"), game__in=listed)
            .values_list("user_id", "user__username")
            .distinct()
            .order_by("user__username")[: self.LIMIT]
        )
        return [(str(user_id), username) for user_id, username in waiting]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any]:
        value = self.value()
        if value is None:
            return queryset
        if not value.isdigit():
            return queryset.none()
        return queryset.filter(
            status=Game.Status.ACTIVE, seats__user_id=int(value), seats__index=F("to_move")
        )


# --- the game admin ------------------------------------------------------------------


class GameModerationAdmin(ReadOnlyMixin, ModerationActionsMixin, HiddenInformationMixin[Game], admin.ModelAdmin[Game]):
    list_display = ["id", "variant", "status", "seat_count", "version", "player_to_move", "deadline_at", "created_at"]
    list_filter = ["status", OverdueFilter, WaitingOnFilter, "variant", "seat_count"]
    search_fields = ["id", "seats__user__username", "created_by__username"]
    date_hierarchy = "created_at"
    inlines = [SeatInline, MoveInline]
    # The state snapshot holds hidden information and the seed only matters after the end.
    fields = readonly_fields = (
        "id",
        "variant",
        "seat_count",
        "status",
        "created_by",
        "version",
        "player_to_move",
        "time_control",
        "deadline_at",
        "seed_commitment",
        "revealed_seed",
        "readable_result",
        "created_at",
        "started_at",
        "finished_at",
        "boards",
        "moderation_log",
    )

    def get_queryset(self, request: HttpRequest) -> QuerySet[Game]:
        return (
            super().get_queryset(request).select_related("created_by").prefetch_related("seats__user").distinct()
        )

    @admin.display(description=gettext_lazy("time control"))
    def time_control(self, game: Game) -> str:
        return time_control_words(game)

    @admin.display(description=gettext_lazy("result"))
    def readable_result(self, game: Game) -> SafeString:
        return result_html(game)

    @admin.display(description=gettext_lazy("moderation log"))
    def moderation_log(self, game: Game) -> SafeString:
        entries = list(with_people_names(ModerationEntry.objects.filter(game_id=game.pk)).order_by("at", "id"))
        if not entries:
            return format_html("{}", gettext("Nothing so far."))
        rows = (
            (f"{timezone.localtime(entry.at):%Y-%m-%d %H:%M}", entry.get_action_display(), moderator_words(entry), target_words(entry), entry.reason)
            for entry in entries
        )
        return format_html(
            "<table><tr><th>{}</th><th>{}</th><th>{}</th><th>{}</th><th>{}</th></tr>{}</table>",
            gettext("at"),
            gettext("action"),
            gettext("moderator"),
            gettext("player"),
            gettext("reason"),
            format_html_join("", "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>", rows),
        )

    @admin.display(description=gettext_lazy("seed"))
    def revealed_seed(self, game: Game) -> str:
        if game.is_over and game.seed:
            return game.seed
        return gettext("(hidden until the game is over)")

    @admin.display(description=gettext_lazy("to move"))
    def player_to_move(self, game: Game) -> str:
        if game.to_move is None or game.status != Game.Status.ACTIVE:
            return "—"
        seat = next((s for s in game.seats.all() if s.index == game.to_move), None)
        if seat is None:
            return gettext("seat %(seat)s") % {"seat": game.to_move}
        return gettext("%(name)s (seat %(seat)s)") % {"name": seat.user.get_username(), "seat": game.to_move}

    @admin.display(description=gettext_lazy("board as a seat sees it"))
    def boards(self, game: Game) -> str:
        seats = sorted((s for s in game.seats.all() if s.index is not None), key=lambda s: s.index or 0)
        if not seats:
            return gettext("(not started)")
        return format_html_join(
            " · ",
            '<a href="{}">' + gettext("seat {} ({})") + "</a>",
            (
                (reverse(self._board_url_name(), args=[game.pk, s.index]), s.index, s.user.get_username())
                for s in seats
            ),
        )

    def _board_url_name(self, *, namespaced: bool = True) -> str:
        # Per model: a subclass registered for a proxy (a league's games) has its own.
        name = f"{self.opts.app_label}_{self.opts.model_name}_board"
        return f"{self.admin_site.name}:{name}" if namespaced else name

    def get_urls(self) -> list[URLPattern]:
        board = path(
            "<str:object_id>/board/<int:seat>/",
            self.admin_site.admin_view(self.board_view),
            name=self._board_url_name(namespaced=False),
        )
        return [board, *super().get_urls()]

    def board_view(self, request: HttpRequest, object_id: str, seat: int) -> HttpResponse:
        """The board as seat ``seat`` sees it (its hidden cards included), for a
        moderator: refused to anyone who holds a seat in the game, and logged."""
        game = self.get_object(request, object_id)
        if game is None:
            raise Http404(gettext("No game %(game)s.") % {"game": object_id})
        if not self.has_view_permission(request, game) or not self.moderation_allowed(request, game):
            raise PermissionDenied(gettext("You may not moderate this game."))
        if not any(s.index == seat for s in game.seats.all()):
            raise Http404(gettext("Game %(game)s has no seat %(seat)s.") % {"game": game.pk, "seat": seat})
        moderation.moderation_board_view_record(game=game, seat_index=seat, by_user=request_moderator(request))
        context = {
            **self.admin_site.each_context(request),
            "title": gettext("Game %(game)s as seat %(seat)s sees it") % {"game": game.pk, "seat": seat},
            "opts": self.model._meta,
            "original": game,
            "board": board_context(game=game, seat_index=seat),
        }
        return TemplateResponse(request, "admin/games/game/board_as_seat.html", context)


GameAdmin = GameModerationAdmin
admin.site.register(Game, GameModerationAdmin)


@admin.register(Seat)
class SeatAdmin(ReadOnlyMixin, HiddenInformationMixin[Seat], admin.ModelAdmin[Seat]):
    list_display = ["game", "user", "index", "invited", "joined_at", "resigned"]
    # Its plan and its notes are its holder's alone, moderators and operators included
    # (docs/plans.md; docs/api.md, "Notes").
    exclude = ["plan", "plan_outcomes", "note", "move_notes"]
    list_filter = ["game__status", "game__variant", "invited", "resigned"]
    search_fields = ["game__id", "user__username"]
    list_select_related = ["game", "user"]
    actions = ["rotate_page_link"]

    # Rotating a leaked link is a moderator's work: the seat row itself is never edited here.
    def has_moderate_permission(self, request: HttpRequest) -> bool:
        return moderation_allowed(request)

    @admin.action(description=gettext_lazy("Rotate the page link"), permissions=["moderate"])
    def rotate_page_link(self, request: HttpRequest, queryset: QuerySet[Seat]) -> None:
        """Revoke every link to the game page sent so far for these seats (a leaked email, say)."""
        rotated = 0
        for seat_id in queryset.values_list("pk", flat=True):
            try:
                seat_link_rotate_for_seat(seat_id=seat_id)
            except DomainError as error:
                self.message_user(request, error.message, messages.ERROR)
            else:
                rotated += 1
        self.message_user(
            request,
            ngettext(
                "Replaced the page link of %(n)s seat; earlier links no longer open the game.",
                "Replaced the page link of %(n)s seats; earlier links no longer open the game.",
                rotated,
            )
            % {"n": rotated},
            messages.SUCCESS,
        )


@admin.register(Move)
class MoveAdmin(ReadOnlyMixin, HiddenInformationMixin[Move], admin.ModelAdmin[Move]):
    list_display = ["game", "ply", "seat", "text", "automatic", "created_at"]
    list_filter = ["game__status", "game__variant", "automatic"]
    search_fields = ["game__id", "text"]
    fields = readonly_fields = ("game", "ply", "seat", "text", "automatic", "created_at")
    list_select_related = ["game"]


class GameEventClaimInline(ReadOnlyMixin, admin.TabularInline[GameEventClaim, GameEvent]):
    model = GameEventClaim
    fields = readonly_fields = ("consumer", "claimed_at", "done_at", "attempts")
    extra = 0


@admin.register(GameEvent)
class GameEventAdmin(ReadOnlyMixin, HiddenInformationMixin[GameEvent], admin.ModelAdmin[GameEvent]):
    list_display = ["id", "game", "kind", "created_at"]
    list_filter = ["kind", "claims__consumer"]
    search_fields = ["game__id"]
    readonly_fields = ["game", "kind", "payload", "created_at"]
    list_select_related = ["game"]
    inlines = [GameEventClaimInline]


class ModerationLogMixin(admin.ModelAdmin[_ModelT]):
    """The columns of a moderation log (the site's, a league's): people by their
    current names, looked up with the entries, and the details in words. The
    admin it is mixed into gives ``game_link``."""

    list_display = ["at", "action", "moderator", "game_link", "player", "reason"]
    list_filter = ["action"]
    search_fields = ["game_id", "reason"]
    date_hierarchy = "at"
    fields = readonly_fields = ("at", "action", "moderator", "game_link", "player", "reason", "details_list")

    def get_queryset(self, request: HttpRequest) -> QuerySet[_ModelT]:
        return with_people_names(super().get_queryset(request))

    @admin.display(description=gettext_lazy("moderator"), ordering="user_id")
    def moderator(self, entry: ModerationEntry) -> str:
        return moderator_words(entry)

    @admin.display(description=gettext_lazy("player"), ordering="target_user_id")
    def player(self, entry: ModerationEntry) -> str:
        return target_words(entry)

    @admin.display(description=gettext_lazy("details"))
    def details_list(self, entry: ModerationEntry) -> SafeString:
        return details_html(entry)


@admin.register(ModerationEntry)
class ModerationEntryAdmin(
    ReadOnlyMixin,
    ModerationLogMixin[ModerationEntry],
    HiddenInformationMixin[ModerationEntry],
    admin.ModelAdmin[ModerationEntry],
):
    """The moderation log: read-only for everyone, superusers included (it is
    append-only: games.moderation writes it). Moderators may read it."""

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return moderation_allowed(request) or super().has_view_permission(request, obj)

    def has_module_permission(self, request: HttpRequest) -> bool:
        return moderation_allowed(request) or super().has_module_permission(request)

    @admin.display(description=gettext_lazy("game"), ordering="game_id")
    def game_link(self, entry: ModerationEntry) -> str:
        if not entry.game_id:
            return "—"
        return format_html('<a href="{}">{}</a>', reverse("admin:games_game_change", args=[entry.game_id]), entry.game_id)


# --- players: warn and suspend (the moderation log lives in games, so here) --------


class PlayerModerationForm(ReasonForm):
    pass


def _player_action(
    name: str, description: StrOrPromise, do: Callable[[Any, Any, str], object]
) -> Callable[..., TemplateResponse | None]:
    spec = ModerationAction(name, description, PlayerModerationForm, lambda request, game, data: "")

    def run(modeladmin: PlayerModerationAdmin, request: HttpRequest, queryset: QuerySet[Player]) -> TemplateResponse | None:
        players = list(queryset.select_related("user").order_by("pk"))

        def perform(player: Player, data: dict[str, Any]) -> str:
            changed = do(player.user, request_moderator(request), data["reason"])
            verb = str(description).split(" ")[0].lower()
            if changed is not False:
                return gettext("%(name)s: done (%(verb)s).") % {"name": player.user.get_username(), "verb": verb}
            return gettext("%(name)s: nothing to do (%(verb)s).") % {"name": player.user.get_username(), "verb": verb}

        return moderation_confirm(
            modeladmin,
            request,
            action=spec,
            objects=players,
            allowed=lambda player: modeladmin.moderation_allowed(request, player),
            perform=perform,
        )

    run.__name__ = name
    return admin.action(description=description, permissions=["moderate"])(run)


class PlayerModerationAdmin(PlayerAdmin):
    """The accounts admin for players, with the moderation actions on players."""

    list_display = [*PlayerAdmin.list_display, "suspended_at"]
    list_filter = [*PlayerAdmin.list_filter, ("suspended_at", happened("suspended"))]
    readonly_fields = [*PlayerAdmin.readonly_fields, "suspended_at"]
    actions = [
        *PlayerAdmin.actions,
        _player_action(
            "moderate_warn",
            gettext_lazy("Warn the selected players (asks why)"),
            lambda user, by, reason: moderation.moderation_player_warn(user=user, by_user=by, reason=reason),
        ),
        _player_action(
            "moderate_suspend",
            gettext_lazy("Suspend the selected players: tokens and links stop working (asks why)"),
            lambda user, by, reason: moderation.moderation_player_suspend(user=user, by_user=by, reason=reason),
        ),
        _player_action(
            "moderate_unsuspend",
            gettext_lazy("Lift the suspension of the selected players (asks why)"),
            lambda user, by, reason: moderation.moderation_player_unsuspend(user=user, by_user=by, reason=reason),
        ),
    ]

    def moderation_allowed(self, request: HttpRequest, player: Player | None = None) -> bool:
        return moderation_allowed(request)

    def has_moderate_permission(self, request: HttpRequest) -> bool:
        return self.moderation_allowed(request)


admin.site.unregister(Player)
admin.site.register(Player, PlayerModerationAdmin)

# The admin's front page shows the operator's counts (games.templatetags.moderation_admin).
admin.site.index_template = "admin/games/index_with_counts.html"
