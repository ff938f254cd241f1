"""Read-mostly admin for webhooks: an operator can look, disable or re-enable,
never read a secret or invent a delivery."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils.translation import gettext_lazy

from api.admin_tools import NoAddMixin, titled
from webhooks.models import Delivery, DeliveryAttempt, Endpoint


@admin.register(Endpoint)
class EndpointAdmin(NoAddMixin, admin.ModelAdmin[Endpoint]):
    list_display = ["id", "owner", "url", "format", "league", "active", "consecutive_failures", "disabled_at", "created_at"]
    list_filter = [("is_active", titled(gettext_lazy("active"))), "format"]
    search_fields = ["owner__username", "url"]
    # `secret` is in neither list: it is never shown, not even read-only.
    fields = [
        "owner",
        "url",
        "format",
        "league",
        "events",
        "is_active",
        "disabled_at",
        "disabled_reason",
        "consecutive_failures",
        "failing_since",
        "created_at",
    ]
    readonly_fields = [
        "owner",
        "url",
        "format",
        "league",
        "events",
        "disabled_at",
        "disabled_reason",
        "consecutive_failures",
        "failing_since",
        "created_at",
    ]

    @admin.display(description=gettext_lazy("active"), boolean=True, ordering="is_active")
    def active(self, endpoint: Endpoint) -> bool:
        return endpoint.is_active


class DeliveryAttemptInline(NoAddMixin, admin.TabularInline[DeliveryAttempt, Delivery]):
    model = DeliveryAttempt
    fields = ["attempted_at", "status_code", "error", "duration_ms"]
    readonly_fields = ["attempted_at", "status_code", "error", "duration_ms"]
    extra = 0
    can_delete = False


@admin.register(Delivery)
class DeliveryAdmin(NoAddMixin, admin.ModelAdmin[Delivery]):
    list_display = ["message_id", "endpoint", "event", "status", "attempts", "next_attempt_at", "last_status_code"]
    list_filter = ["status"]
    search_fields = ["message_id", "endpoint__owner__username"]
    readonly_fields = [
        "endpoint",
        "event",
        "message_id",
        "status",
        "attempts",
        "next_attempt_at",
        "last_status_code",
        "last_error",
        "created_at",
        "delivered_at",
    ]
    fields = [
        "endpoint",
        "event",
        "message_id",
        "status",
        "attempts",
        "next_attempt_at",
        "last_status_code",
        "last_error",
        "created_at",
        "delivered_at",
    ]
    inlines = [DeliveryAttemptInline]

    def get_queryset(self, request: HttpRequest) -> QuerySet[Delivery]:
        return super().get_queryset(request).select_related("endpoint", "event")

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False  # deliveries are the worker's record; one may be deleted, never edited
