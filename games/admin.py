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
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, TypeVar

from django import forms
from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.contrib.auth import get_user_model
from django.core.exceptions import PermissionDenied
from django.db.models import F, Model, QuerySet
from django.http import Http404, HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.urls import URLPattern, path, reverse
from django.utils import timezone
from django.utils.html import format_html, format_html_join

from accounts.admin import PlayerAdmin
from accounts.models import Player
from core.errors import DomainError, InvalidInput
from games import moderation
from games.links import seat_link_rotate_for_seat
from games.models import Game, GameEvent, GameEventClaim, ModerationEntry, Move, Seat
from games.presentation import board_context

MODERATE_PERMISSION = "games.moderate_game"
# The confirmation page every moderation action shows before it acts.
CONFIRMATION_TEMPLATE = "admin/games/moderation_confirmation.html"


class ReadOnlyMixin:
    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


HIDDEN_FIELDS = frozenset({"seed", "state", "private_card"})

_ModelT = TypeVar("_ModelT", bound=Model)


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


# --- moderation: permission, forms, actions ---------------------------------------


def moderation_allowed(request: HttpRequest, game: Game | None = None) -> bool:
    """The default check: a superuser, or a staff user with ``games.moderate_game``.
    ``game`` is for overrides that scope moderation (a league admin: the games of
    their leagues); this one allows every game."""
    user = request.user
    return bool(user.is_active and user.is_staff and user.has_perm(MODERATE_PERMISSION))


class ReasonForm(forms.Form):
    reason = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 3, "cols": 60}),
        max_length=moderation.MAX_REASON_LENGTH,
        help_text="Required: it is kept in the moderation log and the game's export.",
    )

    def clean_reason(self) -> str:
        try:
            return moderation.moderation_reason_clean(self.cleaned_data.get("reason"))
        except InvalidInput as error:
            raise forms.ValidationError(error.errors["reason"][0]) from None


class ExtendDeadlineForm(ReasonForm):
    hours = forms.IntegerField(min_value=1, max_value=24 * 30, initial=24, help_text="Added to this turn's clock.")


class AdjudicateForm(ReasonForm):
    places = forms.CharField(
        max_length=40,
        help_text="Places by seat, in seat order, 1 is first; players sharing a place skip the next (1, 1, 3).",
    )

    def clean_places(self) -> list[int]:
        text = self.cleaned_data["places"]
        try:
            return [int(part) for part in text.replace(" ", "").split(",") if part]
        except ValueError:
            raise forms.ValidationError(f"{text!r} is not a list of places such as 2, 1.") from None


class ReplaceSeatForm(ReasonForm):
    seat = forms.IntegerField(min_value=0, max_value=3, help_text="The seat index (0 plays first).")
    username = forms.CharField(required=False, help_text="The player who takes the seat; empty for the bot.")
    bot = forms.BooleanField(required=False, help_text="Let the built-in greedy bot play the seat.")

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        username, bot = cleaned.get("username"), cleaned.get("bot")
        if bool(username) == bool(bot):
            raise forms.ValidationError("Give either a username or tick the bot, not both.")
        if username:
            user = get_user_model().objects.filter(username=username).first()
            if user is None:
                raise forms.ValidationError(f"There is no player named {username!r}.")
            cleaned["new_user"] = user
        return cleaned


@dataclass(frozen=True)
class ModerationAction:
    """One moderation action: its name in the action menu, its form, whether it
    takes one game at a time, and what it does to one game (returns a message)."""

    name: str
    description: str
    form_class: type[ReasonForm]
    perform: Callable[[HttpRequest, Game, dict[str, Any]], str]
    one_game: bool = False


def _moderator(request: HttpRequest) -> Any:
    assert request.user.is_authenticated  # the admin site lets only active staff in
    return request.user


def _abort(request: HttpRequest, game: Game, data: dict[str, Any]) -> str:
    moderation.moderation_game_abort(game_id=game.pk, by_user=_moderator(request), reason=data["reason"])
    return f"Aborted game {game.pk}."


def _adjudicate(request: HttpRequest, game: Game, data: dict[str, Any]) -> str:
    moderation.moderation_game_adjudicate(
        game_id=game.pk, by_user=_moderator(request), reason=data["reason"], places=data["places"]
    )
    return f"Adjudicated game {game.pk}: places {', '.join(map(str, data['places']))}."


def _extend(request: HttpRequest, game: Game, data: dict[str, Any]) -> str:
    moderation.moderation_deadline_extend(
        game_id=game.pk, by_user=_moderator(request), reason=data["reason"], hours=data["hours"]
    )
    return f"Gave game {game.pk} {data['hours']} more hour{'s' if data['hours'] != 1 else ''}."


def _pause(request: HttpRequest, game: Game, data: dict[str, Any]) -> str:
    moderation.moderation_game_pause(game_id=game.pk, by_user=_moderator(request), reason=data["reason"])
    return f"Paused game {game.pk}."


def _resume(request: HttpRequest, game: Game, data: dict[str, Any]) -> str:
    moderation.moderation_game_resume(game_id=game.pk, by_user=_moderator(request), reason=data["reason"])
    return f"Resumed game {game.pk}."


def _replace(request: HttpRequest, game: Game, data: dict[str, Any]) -> str:
    new_user = data.get("new_user")
    moderation.moderation_seat_replace(
        game_id=game.pk,
        seat_index=data["seat"],
        by_user=_moderator(request),
        reason=data["reason"],
        new_user=new_user,
        bot=new_user is None,
    )
    who = new_user.get_username() if new_user is not None else "the bot"
    return f"Seat {data['seat']} of game {game.pk} is now played by {who}."


GAME_MODERATION_ACTIONS: tuple[ModerationAction, ...] = (
    ModerationAction("moderate_extend_deadline", "Extend the deadline (asks how long and why)", ExtendDeadlineForm, _extend),
    ModerationAction("moderate_pause", "Pause the clock (moderator; asks why)", ReasonForm, _pause),
    ModerationAction("moderate_resume", "Resume a moderator's pause (asks why)", ReasonForm, _resume),
    ModerationAction("moderate_abort", "Abort / annul the game (asks why)", ReasonForm, _abort),
    ModerationAction("moderate_adjudicate", "Adjudicate the result (one game; asks the places and why)", AdjudicateForm, _adjudicate, one_game=True),
    ModerationAction("moderate_replace_seat", "Replace a seat with a player or the bot (one game; asks why)", ReplaceSeatForm, _replace, one_game=True),
)


def moderation_confirm(
    modeladmin: admin.ModelAdmin[Any],
    request: HttpRequest,
    *,
    action: ModerationAction,
    objects: Sequence[Any],
    allowed: Callable[[Any], bool],
    perform: Callable[[Any, dict[str, Any]], str],
) -> TemplateResponse | None:
    """Run a moderation action from an admin changelist: show the confirmation
    page with the action's form (a reason is always required) until it is sent
    back valid, then do it object by object (each all-or-nothing), refusing the
    objects ``allowed`` refuses. Returns the page, or None to go back to the list."""
    refused = [obj for obj in objects if not allowed(obj)]
    if refused:
        raise PermissionDenied(f"You may not moderate {', '.join(str(obj.pk) for obj in refused)}.")
    if action.one_game and len(objects) != 1:
        modeladmin.message_user(request, f"Choose exactly one for “{action.description}”.", messages.ERROR)
        return None
    form = action.form_class(request.POST if request.POST.get("post") == "yes" else None)
    if form.is_bound and form.is_valid():
        for obj in objects:
            try:
                message = perform(obj, form.cleaned_data)
            except DomainError as error:
                modeladmin.message_user(request, f"{obj.pk}: {error.message}", messages.ERROR)
            else:
                modeladmin.message_user(request, message, messages.SUCCESS)
        return None
    context = {
        **modeladmin.admin_site.each_context(request),
        "title": action.description.split(" (")[0],
        "opts": modeladmin.model._meta,
        "objects": objects,
        "form": form,
        "action_name": action.name,
        "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
        "media": modeladmin.media + form.media,
    }
    return TemplateResponse(request, CONFIRMATION_TEMPLATE, context)


def _game_action(action: ModerationAction) -> Callable[..., TemplateResponse | None]:
    def run(modeladmin: ModerationActionsMixin, request: HttpRequest, queryset: QuerySet[Game]) -> TemplateResponse | None:
        games = list(queryset.order_by("pk"))
        return moderation_confirm(
            modeladmin,  # type: ignore[arg-type]  # mixed into a ModelAdmin
            request,
            action=action,
            objects=games,
            allowed=lambda game: modeladmin.moderation_allowed(request, game),
            perform=lambda game, data: action.perform(request, game, data),
        )

    run.__name__ = action.name
    return admin.action(description=action.description, permissions=["moderate"])(run)


class ModerationActionsMixin:
    """The game moderation actions, for any ModelAdmin of ``Game``. Override
    ``moderation_allowed`` to scope them; ``has_moderate_permission`` decides
    whether they are offered at all."""

    admin_site: admin.AdminSite

    def moderation_allowed(self, request: HttpRequest, game: Game | None = None) -> bool:
        return moderation_allowed(request, game)

    def has_moderate_permission(self, request: HttpRequest) -> bool:
        return self.moderation_allowed(request, None)

    # A moderator sees the games they may moderate without also needing the view permission.
    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        seen: bool = super().has_view_permission(request, obj)  # type: ignore[misc]
        return seen or self.moderation_allowed(request, obj)

    def has_module_permission(self, request: HttpRequest) -> bool:
        shown: bool = super().has_module_permission(request)  # type: ignore[misc]
        return shown or self.moderation_allowed(request, None)

    def get_actions(self, request: HttpRequest) -> dict[str, Any]:
        found: dict[str, Any] = super().get_actions(request)  # type: ignore[misc]
        if self.has_moderate_permission(request):
            for action in GAME_MODERATION_ACTIONS:
                run = _game_action(action)
                found[action.name] = (run, action.name, action.description)
        return found


# --- list filters ----------------------------------------------------------------


class OverdueFilter(admin.SimpleListFilter):
    """Active games whose deadline has passed (the sweep acts on them soon)."""

    title = "overdue"
    parameter_name = "overdue"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [("yes", "Overdue: the deadline has passed")]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any]:
        if self.value() == "yes":
            return queryset.filter(status=Game.Status.ACTIVE, deadline_at__lt=timezone.now())
        return queryset


class WaitingOnFilter(admin.SimpleListFilter):
    """Active games waiting on one player: the seat to move is theirs."""

    title = "waiting on"
    parameter_name = "waiting_on"
    LIMIT = 100

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        waiting = (
            Seat.objects.filter(game__status=Game.Status.ACTIVE, index=F("game__to_move"))
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


class GameModerationAdmin(ModerationActionsMixin, HiddenInformationMixin[Game], ReadOnlyMixin, admin.ModelAdmin[Game]):
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
        "to_move",
        "player_to_move",
        "move_timeout_hours",
        "deadline_at",
        "seed_commitment",
        "revealed_seed",
        "result",
        "created_at",
        "started_at",
        "finished_at",
        "boards",
    )

    def get_queryset(self, request: HttpRequest) -> QuerySet[Game]:
        return (
            super().get_queryset(request).select_related("created_by").prefetch_related("seats__user").distinct()
        )

    @admin.display(description="seed")
    def revealed_seed(self, game: Game) -> str:
        if game.is_over and game.seed:
            return game.seed
        return "(hidden until the game is over)"

    @admin.display(description="to move")
    def player_to_move(self, game: Game) -> str:
        if game.to_move is None or game.status != Game.Status.ACTIVE:
            return "—"
        seat = next((s for s in game.seats.all() if s.index == game.to_move), None)
        if seat is None:
            return f"seat {game.to_move}"
        return f"{seat.user.get_username()} (seat {game.to_move})"

    @admin.display(description="board as a seat sees it")
    def boards(self, game: Game) -> str:
        seats = sorted((s for s in game.seats.all() if s.index is not None), key=lambda s: s.index or 0)
        if not seats:
            return "(not started)"
        return format_html_join(
            " · ",
            '<a href="{}">seat {} ({})</a>',
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
            raise Http404(f"No game {object_id}.")
        if not self.has_view_permission(request, game) or not self.moderation_allowed(request, game):
            raise PermissionDenied("You may not moderate this game.")
        if not any(s.index == seat for s in game.seats.all()):
            raise Http404(f"Game {game.pk} has no seat {seat}.")
        moderation.moderation_board_view_record(game=game, seat_index=seat, by_user=_moderator(request))
        context = {
            **self.admin_site.each_context(request),
            "title": f"Game {game.pk} as seat {seat} sees it",
            "opts": self.model._meta,
            "original": game,
            "board": board_context(game=game, seat_index=seat),
        }
        return TemplateResponse(request, "admin/games/game/board_as_seat.html", context)


GameAdmin = GameModerationAdmin
admin.site.register(Game, GameModerationAdmin)


@admin.register(Seat)
class SeatAdmin(HiddenInformationMixin[Seat], ReadOnlyMixin, admin.ModelAdmin[Seat]):
    list_display = ["game", "user", "index", "invited", "joined_at", "resigned"]
    list_filter = ["game__status", "game__variant", "invited", "resigned"]
    search_fields = ["game__id", "user__username"]
    list_select_related = ["game", "user"]
    actions = ["rotate_page_link"]

    @admin.action(description="Rotate the page link")
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
            f"Replaced the page link of {rotated} seat{'s' if rotated != 1 else ''}; earlier links no longer open the game.",
            messages.SUCCESS,
        )


@admin.register(Move)
class MoveAdmin(HiddenInformationMixin[Move], ReadOnlyMixin, admin.ModelAdmin[Move]):
    list_display = ["game", "ply", "seat", "text", "automatic", "created_at"]
    list_filter = ["game__status", "game__variant", "automatic"]
    search_fields = ["game__id", "text"]
    fields = readonly_fields = ("game", "ply", "seat", "text", "automatic", "created_at")
    list_select_related = ["game"]


class GameEventClaimInline(admin.TabularInline[GameEventClaim, GameEvent]):
    model = GameEventClaim
    fields = readonly_fields = ("consumer", "claimed_at", "done_at", "attempts")
    extra = 0
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(GameEvent)
class GameEventAdmin(HiddenInformationMixin[GameEvent], ReadOnlyMixin, admin.ModelAdmin[GameEvent]):
    list_display = ["id", "game", "kind", "created_at"]
    list_filter = ["kind", "claims__consumer"]
    search_fields = ["game__id"]
    readonly_fields = ["game", "kind", "payload", "created_at"]
    list_select_related = ["game"]
    inlines = [GameEventClaimInline]


@admin.register(ModerationEntry)
class ModerationEntryAdmin(HiddenInformationMixin[ModerationEntry], ReadOnlyMixin, admin.ModelAdmin[ModerationEntry]):
    """The moderation log: read-only for everyone, superusers included (it is
    append-only: games.moderation writes it). Moderators may read it."""

    list_display = ["at", "action", "user_id", "game_link", "target_user_id", "reason"]
    list_filter = ["action"]
    search_fields = ["game_id", "reason"]
    date_hierarchy = "at"
    fields = readonly_fields = ("at", "action", "user_id", "game_id", "target_user_id", "reason", "details")

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return moderation_allowed(request) or super().has_view_permission(request, obj)

    def has_module_permission(self, request: HttpRequest) -> bool:
        return moderation_allowed(request) or super().has_module_permission(request)

    @admin.display(description="game", ordering="game_id")
    def game_link(self, entry: ModerationEntry) -> str:
        if not entry.game_id:
            return "—"
        return format_html('<a href="{}">{}</a>', reverse("admin:games_game_change", args=[entry.game_id]), entry.game_id)


# --- players: warn and suspend (the moderation log lives in games, so here) --------


class PlayerModerationForm(ReasonForm):
    pass


def _player_action(
    name: str, description: str, do: Callable[[Any, Any, str], object]
) -> Callable[..., TemplateResponse | None]:
    spec = ModerationAction(name, description, PlayerModerationForm, lambda request, game, data: "")

    def run(modeladmin: PlayerModerationAdmin, request: HttpRequest, queryset: QuerySet[Player]) -> TemplateResponse | None:
        players = list(queryset.select_related("user").order_by("pk"))

        def perform(player: Player, data: dict[str, Any]) -> str:
            changed = do(player.user, _moderator(request), data["reason"])
            verb = description.split(" ")[0].lower()
            return f"{player.user.get_username()}: {'done' if changed is not False else 'nothing to do'} ({verb})."

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
    list_filter = [*PlayerAdmin.list_filter, ("suspended_at", admin.EmptyFieldListFilter)]
    readonly_fields = [*PlayerAdmin.readonly_fields, "suspended_at"]
    actions = [
        *PlayerAdmin.actions,
        _player_action(
            "moderate_warn",
            "Warn the selected players (asks why)",
            lambda user, by, reason: moderation.moderation_player_warn(user=user, by_user=by, reason=reason),
        ),
        _player_action(
            "moderate_suspend",
            "Suspend the selected players: tokens and links stop working (asks why)",
            lambda user, by, reason: moderation.moderation_player_suspend(user=user, by_user=by, reason=reason),
        ),
        _player_action(
            "moderate_unsuspend",
            "Lift the suspension of the selected players (asks why)",
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
