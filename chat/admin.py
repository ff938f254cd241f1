"""Table talk in the admin: the lines (read-only) with the action that hides one
with a reason (logged in the game's moderation log, chat.services.chat_message_hide),
and the players' reports with the action that leaves their lines as they are.
Moderators only (``games.moderate_game``), through the same confirmation page as
every moderation action (games.admin.actions.moderation_confirm). A scoped admin
(a league's: leagues.admin) subclasses ``ChatMessageAdmin`` and overrides
``moderation_allowed(request, message)`` and the queryset."""

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
from games.admin.actions import ModerationAction, ReasonForm, moderation_confirm, request_moderator
from games.admin.actions import moderation_allowed as site_moderation_allowed


def _hide(request: HttpRequest, message: ChatMessage, data: dict[str, Any]) -> str:
    hidden = services.chat_message_hide(message_id=message.pk, by_user=request_moderator(request), reason=data["reason"])
    if not hidden:
        return gettext("Line %(id)s was hidden already.") % {"id": message.pk}
    return gettext("Hid line %(id)s of game %(game)s.") % {"id": message.pk, "game": message.game_id}


HIDE = ModerationAction(
    "chat_hide", gettext_lazy("Hide the lines from the players (asks why)"), ReasonForm, _hide  # type: ignore[arg-type]
)


class ModeratedByPermission(admin.ModelAdmin[Any]):
    """Shown, and acted on, by those ``moderation_allowed`` lets in (the view
    permission alone is not enough: the lines are the players' words)."""

    def moderation_allowed(self, request: HttpRequest, message: ChatMessage | None = None) -> bool:
        """The site's moderators: a superuser, or staff with ``games.moderate_game``.
        ``message`` is for overrides that scope moderation (a league admin: the
        lines of their leagues' games)."""
        return site_moderation_allowed(request)

    def has_moderate_permission(self, request: HttpRequest) -> bool:
        return self.moderation_allowed(request, None)

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return self.moderation_allowed(request, obj)

    def has_module_permission(self, request: HttpRequest) -> bool:
        return self.moderation_allowed(request, None)


@admin.register(ChatMessage)
class ChatMessageAdmin(ReadOnlyMixin, ModeratedByPermission):
    list_display = ("id", "game_id", "thread", "author_name", "text", "created_at", "hidden_at")
    list_filter = ("thread", ("hidden_at", admin.EmptyFieldListFilter))
    list_select_related = ("author",)
    search_fields = ("game__id", "author__username", "text")
    ordering = ("-id",)
    actions = ["chat_hide"]

    @admin.display(description=gettext_lazy("author"), ordering="author__username")
    def author_name(self, message: ChatMessage) -> str:
        return message.author.get_username()

    @admin.action(description=HIDE.description, permissions=["moderate"])
    def chat_hide(self, request: HttpRequest, queryset: QuerySet[ChatMessage]) -> TemplateResponse | None:
        return moderation_confirm(
            self,
            request,
            action=HIDE,
            objects=list(queryset.order_by("pk")),
            allowed=lambda message: self.moderation_allowed(request, message),
            perform=lambda message, data: HIDE.perform(request, message, data),
        )


@admin.register(ChatReport)
class ChatReportAdmin(ReadOnlyMixin, ModeratedByPermission):
    list_display = ("id", "message_id", "message_author", "reporter_name", "reason", "created_at", "resolved_at")
    list_filter = (("resolved_at", admin.EmptyFieldListFilter),)
    list_select_related = ("reporter", "message__author")
    search_fields = ("reporter__username", "message__author__username")
    ordering = ("-id",)
    actions = ["chat_reports_dismiss"]

    @admin.display(description=gettext_lazy("author of the line"), ordering="message__author__username")
    def message_author(self, report: ChatReport) -> str:
        return report.message.author.get_username()

    @admin.display(description=gettext_lazy("reported by"), ordering="reporter__username")
    def reporter_name(self, report: ChatReport) -> str:
        return report.reporter.get_username()

    @admin.action(description=gettext_lazy("Leave the reported lines as they are"), permissions=["moderate"])
    def chat_reports_dismiss(self, request: HttpRequest, queryset: QuerySet[ChatReport]) -> None:
        count = services.chat_reports_dismiss(report_ids=list(queryset.values_list("pk", flat=True)))
        self.message_user(
            request, ngettext("%(count)s report closed.", "%(count)s reports closed.", count) % {"count": count}
        )
