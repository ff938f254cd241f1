"""Pieces every app's admin shares: records that are shown but never written
there, the guard that refuses an action whose selection reaches past what the
admin lists (a league admin's scoped lists), and list filters that read as
questions.

Mixed into ``admin.ModelAdmin`` and ``InlineModelAdmin`` subclasses; this module
imports no app.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from django.contrib import admin
from django.contrib.admin import helpers
from django.contrib.admin.views.main import ChangeList
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.utils.translation import gettext

if TYPE_CHECKING:
    from django_stubs_ext import StrOrPromise


class NoAddMixin:
    """Rows made elsewhere (by the API, a service, a worker), never typed in here."""

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class ReadOnlyMixin(NoAddMixin):
    """Shown only: records that change through services (and their logs), never
    by editing them in the admin."""

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class ScopedActionsMixin(admin.ModelAdmin[Any]):
    """An action sent for rows the admin does not list to this user (another
    league's, by a hand-made POST) is refused whole with 403, not quietly
    applied to the rest. ``scoped_action_words`` ends the refusal: "You may not
    <words> 12, 14."."""

    scoped_action_words = "act on"

    def changelist_view(self, request: HttpRequest, extra_context: dict[str, Any] | None = None) -> HttpResponse:
        if request.method == "POST" and request.POST.get("action"):
            selected = set(request.POST.getlist(helpers.ACTION_CHECKBOX_NAME))
            listed = self.get_queryset(request).filter(pk__in=selected).values_list("pk", flat=True)
            outside = selected - {str(pk) for pk in listed}
            if outside:
                raise PermissionDenied(f"You may not {self.scoped_action_words} {', '.join(sorted(outside))}.")
        response: HttpResponse = super().changelist_view(request, extra_context)
        return response


# --- list filters that read as questions ------------------------------------------------


class _WhenFilter(admin.EmptyFieldListFilter):
    # Set by ``happened``: the filter's title, a past participle ("revoked").
    question: StrOrPromise = ""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.title = self.question

    def choices(self, changelist: ChangeList) -> Iterator[Any]:
        # Django's own words, in the active language (its catalog has all four).
        answers = {gettext("Empty"): gettext("No"), gettext("Not empty"): gettext("Yes")}
        for choice in super().choices(changelist):
            choice["display"] = answers.get(str(choice["display"]), choice["display"])
            yield choice


def happened(question: StrOrPromise) -> type[admin.EmptyFieldListFilter]:
    """A list filter on a date that is set when something happened, asked as a
    yes/no question ("revoked: Yes") rather than Django's "revoked at: Not empty"."""
    return type("Happened", (_WhenFilter,), {"question": question})


def titled(title: StrOrPromise) -> type[admin.BooleanFieldListFilter]:
    """A yes/no list filter titled ``title`` rather than by the field's name ("is active")."""

    class Titled(admin.BooleanFieldListFilter):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.title = title

    return Titled
