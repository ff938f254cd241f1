"""Admin for players' email preferences and per-game mutes (imported by notifications.admin)."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from notifications.models import GameMute, Preferences
from notifications.preferences import preferences_update


@admin.register(Preferences)
class PreferencesAdmin(admin.ModelAdmin[Preferences]):
    list_display = ["user", "mode", "digest_hour", "reminder_hours", "next_digest_at", "updated_at"]
    list_filter = ["mode"]
    search_fields = ["user__username"]
    raw_id_fields = ["user"]
    readonly_fields = ["next_digest_at", "updated_at"]

    def save_model(self, request: HttpRequest, obj: Preferences, form: Any, change: bool) -> None:
        # Through the service, so the choices are checked and the next digest follows them.
        preferences_update(
            user=obj.user, mode=obj.mode, digest_hour=obj.digest_hour, reminder_hours=list(obj.reminder_hours)
        )


@admin.register(GameMute)
class GameMuteAdmin(admin.ModelAdmin[GameMute]):
    list_display = ["user", "game", "created_at"]
    search_fields = ["user__username", "game__id"]
    raw_id_fields = ["user", "game"]
