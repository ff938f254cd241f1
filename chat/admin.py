"""Table talk in the admin: the lines (read-only) with the action that hides one
with a reason (logged in the game's moderation log, chat.services.chat_message_hide),
and the players' reports with the action that leaves their lines as they are.
Moderators only (``games.moderate_game``), through the same confirmation page as
every moderation action (games.admin_moderation.moderation_confirm)."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest
from django.template.response import TemplateResponse
from django.utils.translation import gettext, gettext_lazy, ngettext

from api.admin_tools import ReadOnlyMixin
from chat import services
from chat.models import ChatMessage, ChatReport
from games.admin_moderation import ModerationAction, ReasonForm, moderation_allowed, moderation_confirm, request_moderator


def _hide(request: HttpRequest, message: ChatMessage, data: dict[str, Any]) -> str:
    hidden = services.chat_message_hide(message_id=message.pk, by_user=request_moderator(request), reason=data["reason"])
    if not hidden:
        return gettext("Line %(id)s was hidden already.") % {"id": message.pk}
    return gettext("Hid line %(id)s of game %(game)s.") % {"id": message.pk, "game": message.game_id}


HIDE = ModerationAction(
    "chat_hide", gettext_lazy("Hide the lines from the players (asks why)"), ReasonForm, _hide  # type: ignore[arg-type]
)


@admin.register(ChatMessage)
class ChatMessageAdmin(ReadOnlyMixin, admin.ModelAdmin[ChatMessage]):
    list_display = ("id", "game_id", "thread", "author_id", "text", "created_at", "hidden_at")
    list_filter = ("thread", ("hidden_at", admin.EmptyFieldListFilter))
    search_fields = ("game__id", "text")
    ordering = ("-id",)
    actions = ["chat_hide"]

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return moderation_allowed(request)

    def has_module_permission(self, request: HttpRequest) -> bool:
        return moderation_allowed(request)

    @admin.action(description=HIDE.description)
    def chat_hide(self, request: HttpRequest, queryset: QuerySet[ChatMessage]) -> TemplateResponse | None:
        return moderation_confirm(
            self,
            request,
            action=HIDE,
            objects=list(queryset.order_by("pk")),
            allowed=lambda message: moderation_allowed(request),
            perform=lambda message, data: HIDE.perform(request, message, data),
        )


@admin.register(ChatReport)
class ChatReportAdmin(ReadOnlyMixin, admin.ModelAdmin[ChatReport]):
    list_display = ("id", "message_id", "reporter_id", "reason", "created_at", "resolved_at")
    list_filter = (("resolved_at", admin.EmptyFieldListFilter),)
    ordering = ("-id",)
    actions = ["chat_reports_dismiss"]

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return moderation_allowed(request)

    def has_module_permission(self, request: HttpRequest) -> bool:
        return moderation_allowed(request)

    @admin.action(description=gettext_lazy("Leave the reported lines as they are"))
    def chat_reports_dismiss(self, request: HttpRequest, queryset: QuerySet[ChatReport]) -> None:
        count = services.chat_reports_dismiss(report_ids=list(queryset.values_list("pk", flat=True)))
        self.message_user(
            request, ngettext("%(count)s report closed.", "%(count)s reports closed.", count) % {"count": count}
        )
