"""Admin for players and tokens. Tokens are read-only here: the secret is never
stored, and the hash is of no use to a person, so neither is shown; of a
calendar address only its last four characters are. A player is
never deleted here (the next request would make the profile again, and seats
point at the account): the erase action erases it.

Every action names the permission it needs: disabling ``accounts.disable_player``,
erasing ``accounts.erase_player``, revoking tokens ``accounts.change_apitoken``.
Disabling and erasing each ask, on a confirmation page, why (kept in the
append-only account action log, which superusers alone read) and for an optional
note to the person, who is emailed in their language
(accounts.services.account_actions)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from django import forms
from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.contrib.auth.admin import UserAdmin
from django.contrib.auth import get_user_model
from django.core.exceptions import PermissionDenied
from django.db.models import QuerySet
from django.http import HttpRequest
from django.template.response import TemplateResponse
from django.utils.translation import gettext, gettext_lazy, ngettext

from accounts.errors import AccountActionRefusedError
from accounts.models import AccountActionLog, ApiToken, CalendarFeed, EmailAddress, Player
from api.admin_tools import NoAddMixin, ReadOnlyMixin, happened, titled
from accounts.services import (
    DISABLE_PERMISSION,
    ERASE_PERMISSION,
    account_action_refusal,
    account_disable,
    account_erase,
    token_revoke,
)
from accounts.services.account_actions import MAX_NOTE_LENGTH, MAX_REASON_LENGTH
from core.errors import DomainError


if TYPE_CHECKING:
    from django_stubs_ext import StrOrPromise


class AccountActionForm(forms.Form):
    """What disabling or erasing asks: why (kept in the account action log, never
    sent) and, if staff wish, a note the person reads in the email telling them."""

    reason = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 3, "cols": 60}),
        max_length=MAX_REASON_LENGTH,
        label=gettext_lazy("Reason"),
        help_text=gettext_lazy("Required: it is kept in the account action log and never sent to the person."),
    )
    note = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 3, "cols": 60}),
        max_length=MAX_NOTE_LENGTH,
        required=False,
        label=gettext_lazy("Note to the person"),
        help_text=gettext_lazy(
            "Optional: added to the email that tells them, in their language, what was done to their account."
        ),
    )

    def clean_reason(self) -> str:
        reason = str(self.cleaned_data.get("reason") or "").strip()
        if not reason:
            raise forms.ValidationError(gettext("Say why: the reason is kept in the account action log."))
        return reason


@dataclass(frozen=True)
class _AccountActionKind:
    name: str
    title: StrOrPromise
    template: str
    done: Callable[[int], str]


DISABLE = _AccountActionKind(
    "disable_accounts",
    gettext_lazy("Disable accounts"),
    "admin/accounts/player/disable_confirmation.html",
    lambda count: ngettext("Disabled %(count)s account.", "Disabled %(count)s accounts.", count) % {"count": count},
)
ERASE = _AccountActionKind(
    "erase_accounts",
    gettext_lazy("Erase accounts"),
    "admin/accounts/player/erase_confirmation.html",
    lambda count: ngettext("Erased %(count)s account.", "Erased %(count)s accounts.", count) % {"count": count},
)


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

    def has_disable_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm(DISABLE_PERMISSION)

    def has_erase_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm(ERASE_PERMISSION)

    @admin.action(
        description=gettext_lazy("Disable the selected accounts (their seats leave their games at once)"),
        permissions=["disable"],
    )
    def disable_accounts(self, request: HttpRequest, queryset: QuerySet[Player]) -> TemplateResponse | None:
        players = list(queryset.select_related("user").filter(user__is_active=True).order_by("pk"))
        return self._account_action(
            request, players, kind=DISABLE, permission=DISABLE_PERMISSION, perform=account_disable
        )

    @admin.action(description=gettext_lazy("Erase the selected accounts for good (asks first)"), permissions=["erase"])
    def erase_accounts(self, request: HttpRequest, queryset: QuerySet[Player]) -> TemplateResponse | None:
        players = list(queryset.select_related("user").filter(erased_at__isnull=True).order_by("pk"))
        return self._account_action(request, players, kind=ERASE, permission=ERASE_PERMISSION, perform=account_erase)

    def _account_action(
        self,
        request: HttpRequest,
        players: list[Player],
        *,
        kind: _AccountActionKind,
        permission: str,
        perform: Callable[..., bool],
    ) -> TemplateResponse | None:
        """The confirmation page (the accounts, a reason, a note to the person)
        until it comes back valid, then the action, account by account. An
        account this user may not act on refuses the whole selection."""
        actor = request.user
        assert actor.is_authenticated  # the admin site lets only active staff in
        refused = [
            (player, refusal)
            for player in players
            if (refusal := account_action_refusal(user=player.user, by_user=actor, permission=permission))
        ]
        if refused:
            raise PermissionDenied(
                "; ".join(f"{player.user.get_username()}: {refusal}" for player, refusal in refused)
            )
        form = AccountActionForm(request.POST if request.POST.get("post") == "yes" else None)
        if form.is_bound and form.is_valid():
            done = 0
            for player in players:
                try:
                    changed = perform(
                        user=player.user, by_user=actor, reason=form.cleaned_data["reason"], note=form.cleaned_data["note"]
                    )
                except DomainError as error:
                    self.message_user(request, f"{player.user.get_username()}: {error.message}", messages.ERROR)
                    continue
                except AccountActionRefusedError as refusal:
                    self.message_user(request, f"{player.user.get_username()}: {refusal}", messages.ERROR)
                    continue
                if changed:
                    done += 1
                    if kind is ERASE:
                        player.refresh_from_db()
                        # Logged after the erasure, so the admin's history names it only as erased.
                        self.log_change(request, player, "Erased the account.")  # stored: kept in one language
                    else:
                        self.log_change(request, player, "Disabled the account.")
            self.message_user(request, kind.done(done), messages.SUCCESS)
            return None
        context = {
            **self.admin_site.each_context(request),
            "title": str(kind.title),
            "opts": self.model._meta,
            "players": players,
            "form": form,
            "action_name": kind.name,
            "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
            "media": self.media + form.media,
        }
        return TemplateResponse(request, kind.template, context)


@admin.register(ApiToken)
class ApiTokenAdmin(NoAddMixin, admin.ModelAdmin[ApiToken]):
    list_display = ["prefix", "name", "user", "scopes", "created_at", "last_used_at", "revoked_at"]
    list_filter = [("revoked_at", happened(gettext_lazy("revoked")))]
    search_fields = ["prefix", "name", "user__username"]
    fields = readonly_fields = ("user", "name", "prefix", "scopes", "created_at", "last_used_at", "revoked_at")
    list_select_related = ["user"]
    actions = ["revoke_tokens"]

    # No adding: tokens are minted through the API or `manage.py player_create`.

    @admin.action(description=gettext_lazy("Revoke the selected tokens"), permissions=["change"])
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


@admin.register(AccountActionLog)
class AccountActionLogAdmin(ReadOnlyMixin, admin.ModelAdmin[AccountActionLog]):
    """What staff did to accounts: superusers read it; no one, superusers
    included, adds, changes or deletes an entry (the model refuses it too)."""

    list_display = ["at", "action", "target_username", "target_user_id", "actor", "reason"]
    list_filter = ["action"]
    search_fields = ["target_username", "reason"]
    date_hierarchy = "at"
    fields = readonly_fields = (
        "at", "action", "target_user_id", "target_username", "actor", "reason", "message_sent"
    )

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return bool(request.user.is_active and request.user.is_superuser)

    def has_module_permission(self, request: HttpRequest) -> bool:
        return self.has_view_permission(request)

    def get_actions(self, request: HttpRequest) -> dict[str, Any]:
        return {}  # not even delete_selected: the log is append-only

    @admin.display(description=gettext_lazy("by"), ordering="actor_user_id")
    def actor(self, entry: AccountActionLog) -> str:
        """The staff user by their name as it is now (an id with no account left reads so)."""
        user = get_user_model().objects.filter(pk=entry.actor_user_id).first()
        if user is None:
            return gettext("user %(id)s (deleted)") % {"id": entry.actor_user_id}
        return f"{user.get_username()} ({entry.actor_user_id})"


class AccountUserAdmin(UserAdmin):  # type: ignore[type-arg]
    """Django's own user admin, in which staff who are not superusers change no
    account's standing: whether it is active (disabling is the players list's
    action, with its permission, reason, email and log), staff or superuser, nor
    its groups and permissions (else ``auth.change_user`` would grant anything)."""

    STANDING = ("is_active", "is_staff", "is_superuser", "groups", "user_permissions")

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> list[str]:
        fields = list(super().get_readonly_fields(request, obj))
        if obj is not None and not request.user.is_superuser:
            fields += [name for name in self.STANDING if name not in fields]
        return fields


admin.site.unregister(get_user_model())
admin.site.register(get_user_model(), AccountUserAdmin)
