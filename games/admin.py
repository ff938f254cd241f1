"""Read-mostly admin. Changes to a game go through games.services, never here:
the move log and the seed are the truth, so they are never edited by hand, and
the seed of an unfinished game is never shown."""

from __future__ import annotations

from typing import Any, TypeVar

from django.contrib import admin, messages
from django.db.models import Model, QuerySet
from django.http import HttpRequest

from core.errors import DomainError
from games.links import seat_link_rotate_for_seat
from games.models import Game, GameEvent, GameEventClaim, Move, Seat


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


@admin.register(Game)
class GameAdmin(HiddenInformationMixin[Game], ReadOnlyMixin, admin.ModelAdmin[Game]):
    list_display = ["id", "variant", "status", "seat_count", "version", "to_move", "deadline_at", "created_at"]
    list_filter = ["status", "variant", "seat_count"]
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
        "move_timeout_hours",
        "deadline_at",
        "seed_commitment",
        "revealed_seed",
        "result",
        "created_at",
        "started_at",
        "finished_at",
    )

    def get_queryset(self, request: HttpRequest) -> QuerySet[Game]:
        return super().get_queryset(request).select_related("created_by").distinct()

    @admin.display(description="seed")
    def revealed_seed(self, game: Game) -> str:
        if game.is_over and game.seed:
            return game.seed
        return "(hidden until the game is over)"


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
