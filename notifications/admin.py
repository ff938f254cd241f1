"""Admin for the email work: what was sent to whom and why not, and the
invitation opt-outs (addresses by digest only). Preferences and mutes are in
notifications.preferences.admin, imported here."""

from __future__ import annotations

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils.translation import gettext_lazy, ngettext

from api.admin_tools import NoAddMixin
from notifications.preferences import admin as preferences_admin  # noqa: F401  (registers Preferences and GameMute)
from notifications.email.services import notifications_retry
from notifications.models import InboundMessage, InvitationOptOut, Notification


@admin.register(Notification)
class NotificationAdmin(NoAddMixin, admin.ModelAdmin[Notification]):
    list_display = ["id", "kind", "user", "game", "status", "attempts", "created_at", "sent_at"]
    list_filter = ["status", "kind"]
    search_fields = ["user__username", "game__id", "key"]
    raw_id_fields = ["user", "game", "event"]
    readonly_fields = [f.name for f in Notification._meta.fields]
    actions = ["retry_now"]

    @admin.action(
        description=gettext_lazy("Try the selected failed or queued notifications again now"), permissions=["change"]
    )
    def retry_now(self, request: HttpRequest, queryset: QuerySet[Notification]) -> None:
        count = notifications_retry(notification_ids=list(queryset.values_list("pk", flat=True)))
        self.message_user(
            request,
            ngettext(
                "%(count)s notification queued to be sent again.", "%(count)s notifications queued to be sent again.", count
            )
            % {"count": count},
            messages.SUCCESS,
        )


@admin.register(InvitationOptOut)
class InvitationOptOutAdmin(NoAddMixin, admin.ModelAdmin[InvitationOptOut]):
    list_display = ["address_digest", "created_at"]
    search_fields = ["address_digest"]
    readonly_fields = ["address_digest", "created_at"]


@admin.register(InboundMessage)
class InboundMessageAdmin(NoAddMixin, admin.ModelAdmin[InboundMessage]):
    """Play by email's received messages: what each asked and what became of it.
    The raw message (kept only until processed) is not shown."""

    list_display = ["id", "source", "status", "authenticated", "user", "game", "command", "outcome", "received_at"]
    list_filter = ["status", "source", "authenticated"]
    search_fields = ["user__username", "game__id"]
    raw_id_fields = ["user", "game"]
    exclude = ["raw"]
    readonly_fields = [f.name for f in InboundMessage._meta.fields if f.name != "raw"]
