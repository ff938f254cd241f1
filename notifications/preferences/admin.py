"""Admin for players' email preferences and per-game mutes (imported by notifications.admin)."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin
from django.http import HttpRequest

from core.errors import InvalidInput
from notifications.models import GameMute, Preferences
from notifications.preferences.services import preferences_check, preferences_update


class PreferencesForm(forms.ModelForm[Preferences]):
    class Meta:
        model = Preferences
        fields = ["user", "mode", "digest_hour", "reminder_hours"]

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        changes: dict[str, Any] = {n: cleaned[n] for n in ("mode", "digest_hour", "reminder_hours") if n in cleaned}
        try:
            preferences_check(changes)
        except InvalidInput as refused:
            for name, messages in refused.errors.items():
                self.add_error(name if name in self.fields else None, messages)
        return cleaned


@admin.register(Preferences)
class PreferencesAdmin(admin.ModelAdmin[Preferences]):
    form = PreferencesForm
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
