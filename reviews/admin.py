"""Reviews in the admin, read-only: staff holding ``reviews.view_gamereview`` see
each game's review (who started it, its budget, progress, failure) and its
positions. Reviews change only through their services and tasks."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from api.admin_tools import ReadOnlyMixin
from reviews.models import GameReview, ReviewPosition


class PositionInline(admin.TabularInline[ReviewPosition, GameReview]):
    model = ReviewPosition
    fields = ("ply", "seat", "move", "before", "after", "best", "drop", "seconds")
    readonly_fields = fields
    extra = 0
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(GameReview)
class GameReviewAdmin(ReadOnlyMixin, admin.ModelAdmin[GameReview]):
    list_display = ("game_id", "status", "requested_by", "started_at", "finished_at", "positions_total", "playouts")
    list_filter = ("status",)
    list_select_related = ("requested_by",)
    search_fields = ("game__id",)
    ordering = ("-started_at",)
    inlines = [PositionInline]
