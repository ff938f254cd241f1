"""Admin for players and tokens. Tokens are read-only here: the secret is never
stored, and the hash is of no use to a person, so neither is shown."""

from __future__ import annotations

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest

from accounts.models import ApiToken, Player
from accounts.services import player_disable, token_revoke


@admin.register(Player)
class PlayerAdmin(admin.ModelAdmin[Player]):
    list_display = ["display_name", "user", "email_verified_at", "created_at"]
    search_fields = ["display_name", "user__username", "user__email"]
    readonly_fields = ["user", "email_verified_at", "created_at"]
    list_select_related = ["user"]
    list_filter = ["user__is_active"]
    actions = ["disable_accounts"]

    @admin.action(description="Disable the selected accounts (their seats leave their games at once)")
    def disable_accounts(self, request: HttpRequest, queryset: QuerySet[Player]) -> None:
        count = 0
        for player in queryset.select_related("user").filter(user__is_active=True):
            player_disable(user=player.user)
            count += 1
        self.message_user(request, f"Disabled {count} account(s).", messages.SUCCESS)


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin[ApiToken]):
    list_display = ["prefix", "name", "user", "scopes", "created_at", "last_used_at", "revoked_at"]
    list_filter = [("revoked_at", admin.EmptyFieldListFilter)]
    search_fields = ["prefix", "name", "user__username"]
    fields = readonly_fields = ("user", "name", "prefix", "scopes", "created_at", "last_used_at", "revoked_at")
    list_select_related = ["user"]
    actions = ["revoke_tokens"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # tokens are minted through the API or `manage.py player_create`

    @admin.action(description="Revoke the selected tokens")
    def revoke_tokens(self, request: HttpRequest, queryset: QuerySet[ApiToken]) -> None:
        user = request.user
        assert user.is_authenticated  # the admin site lets only active staff in
        count = 0
        for token in queryset.filter(revoked_at__isnull=True):
            token_revoke(token=token, by_user=user)
            count += 1
        self.message_user(request, f"Revoked {count} token(s).", messages.SUCCESS)
