"""Admin for players and tokens. Tokens are read-only here: the secret is never
stored, and the hash is of no use to a person, so neither is shown; of a
calendar address only its last four characters are. A player is
never deleted here (the next request would make the profile again, and seats
point at the account): the erase action, after a confirmation page, erases it."""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.db.models import QuerySet
from django.http import HttpRequest
from django.template.response import TemplateResponse
from django.utils.translation import gettext, gettext_lazy, ngettext

from accounts.models import ApiToken, CalendarFeed, EmailAddress, Player
from api.admin_tools import NoAddMixin, ReadOnlyMixin, happened, titled
from accounts.services import player_disable, player_erase, token_revoke


def _address_words(address: str, verified: bool) -> str:
    if verified:
        return gettext("%(address)s (verified)") % {"address": address}
    return gettext("%(address)s (not verified)") % {"address": address}


@admin.register(Player)
class PlayerAdmin(admin.ModelAdmin[Player]):
    list_display = ["display_name", "user", "email_verified_at", "created_at"]
    search_fields = ["display_name", "user__username", "user__email"]
    readonly_fields = ["user", "email_verified_at", "other_addresses", "calendar_address", "created_at", "erased_at"]
    list_select_related = ["user"]
    list_filter = [("user__is_active", titled(gettext_lazy("active"))), ("erased_at", happened(gettext_lazy("erased")))]
    actions = ["disable_accounts", "erase_accounts"]

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False  # erase_accounts instead

    @admin.display(description=gettext_lazy("other addresses"))
    def other_addresses(self, obj: Player) -> str:
        """The addresses added to the account besides its primary one (``user.email``)."""
        rows = EmailAddress.objects.filter(user_id=obj.user_id)
        return ", ".join(_address_words(row.address, row.is_verified) for row in rows) or "-"

    @admin.display(description=gettext_lazy("calendar address"))
    def calendar_address(self, obj: Player) -> str:
        """Whether the account has a deadlines calendar address, and its last four
        characters to tell one from the next: never the secret itself."""
        feed = CalendarFeed.objects.filter(user_id=obj.user_id).first()
        if feed is None:
            return gettext("none yet")
        return gettext("made; it ends in …%(tail)s") % {"tail": feed.secret_tail}

    @admin.action(description=gettext_lazy("Disable the selected accounts (their seats leave their games at once)"))
    def disable_accounts(self, request: HttpRequest, queryset: QuerySet[Player]) -> None:
        count = 0
        for player in queryset.select_related("user").filter(user__is_active=True):
            player_disable(user=player.user)
            count += 1
        self.message_user(
            request,
            ngettext("Disabled %(count)s account.", "Disabled %(count)s accounts.", count) % {"count": count},
            messages.SUCCESS,
        )

    @admin.action(description=gettext_lazy("Erase the selected accounts for good (asks first)"))
    def erase_accounts(self, request: HttpRequest, queryset: QuerySet[Player]) -> TemplateResponse | None:
        players = list(queryset.select_related("user").filter(erased_at__isnull=True))
        if request.POST.get("post") != "yes":
            context = {
                **self.admin_site.each_context(request),
                "title": gettext("Erase accounts"),
                "opts": self.model._meta,
                "players": players,
                "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
                "media": self.media,
            }
            return TemplateResponse(request, "admin/accounts/player/erase_confirmation.html", context)
        for player in players:
            player_erase(user=player.user)
            player.refresh_from_db()
            # Logged after the erasure, so the admin's history names it only as erased.
            self.log_change(request, player, "Erased the account.")  # stored: kept in one language
        count = len(players)
        self.message_user(
            request,
            ngettext("Erased %(count)s account.", "Erased %(count)s accounts.", count) % {"count": count},
            messages.SUCCESS,
        )
        return None


@admin.register(ApiToken)
class ApiTokenAdmin(NoAddMixin, admin.ModelAdmin[ApiToken]):
    list_display = ["prefix", "name", "user", "scopes", "created_at", "last_used_at", "revoked_at"]
    list_filter = [("revoked_at", happened(gettext_lazy("revoked")))]
    search_fields = ["prefix", "name", "user__username"]
    fields = readonly_fields = ("user", "name", "prefix", "scopes", "created_at", "last_used_at", "revoked_at")
    list_select_related = ["user"]
    actions = ["revoke_tokens"]

    # No adding: tokens are minted through the API or `manage.py player_create`.

    @admin.action(description=gettext_lazy("Revoke the selected tokens"))
    def revoke_tokens(self, request: HttpRequest, queryset: QuerySet[ApiToken]) -> None:
        user = request.user
        assert user.is_authenticated  # the admin site lets only active staff in
        count = 0
        for token in queryset.filter(revoked_at__isnull=True):
            token_revoke(token=token, by_user=user)
            count += 1
        self.message_user(
            request,
            ngettext("Revoked %(count)s token.", "Revoked %(count)s tokens.", count) % {"count": count},
            messages.SUCCESS,
        )


@admin.register(EmailAddress)
class EmailAddressAdmin(ReadOnlyMixin, admin.ModelAdmin[EmailAddress]):
    """Addresses players added to their accounts (accounts.services.addresses):
    shown only; the player adds, verifies and removes them."""

    list_display = ["address", "user", "verified_at", "created_at"]
    list_filter = [("verified_at", happened(gettext_lazy("verified")))]
    search_fields = ["address", "user__username", "user__email"]
    fields = readonly_fields = ("user", "address", "verified_at", "created_at")
    list_select_related = ["user"]
