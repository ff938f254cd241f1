"""Moderation in the admin: who may moderate, the forms that ask for a reason,
the confirmation page every action shows before it acts, and the actions
themselves (each a thin adapter over games.moderation). A scoped admin (a
league's) reuses them: mix ``ModerationActionsMixin`` into its ModelAdmin and
override ``moderation_allowed(request, game)``."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, TypeVar

from django import forms
from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.contrib.auth import get_user_model
from django.core.exceptions import PermissionDenied
from django.db.models import Model, QuerySet
from django.http import HttpRequest
from django.template.response import TemplateResponse
from django.utils.translation import gettext, gettext_lazy, ngettext

from core.errors import DomainError, InvalidInput
from games import moderation
from games.models import Game

_ModelT = TypeVar("_ModelT", bound=Model)

MODERATE_PERMISSION = "games.moderate_game"
# The confirmation page every moderation action shows before it acts.
CONFIRMATION_TEMPLATE = "admin/games/moderation_confirmation.html"

if TYPE_CHECKING:
    from django_stubs_ext import StrOrPromise



# --- moderation: permission, forms, actions ---------------------------------------


def moderation_allowed(request: HttpRequest, game: Game | None = None) -> bool:
    """The default check: a superuser, or a staff user with ``games.moderate_game``.
    ``game`` is for overrides that scope moderation (a league admin: the games of
    their leagues); this one allows every game."""
    user = request.user
    return bool(user.is_active and user.is_staff and user.has_perm(MODERATE_PERMISSION))


class ReasonForm(forms.Form):
    reason = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 3, "cols": 60}),
        max_length=moderation.MAX_REASON_LENGTH,
        label=gettext_lazy("Reason"),
        help_text=gettext_lazy("Required: it is kept in the moderation log and the game's export."),
    )

    def clean_reason(self) -> str:
        try:
            return moderation.moderation_reason_clean(self.cleaned_data.get("reason"))
        except InvalidInput as error:
            raise forms.ValidationError(error.errors["reason"][0]) from None

    @classmethod
    def for_games(cls, games: Sequence[Game]) -> type[ReasonForm]:
        """The form for these games: a form whose choices depend on the game (its
        seats) overrides this; most forms are the same for every game."""
        return cls


class ExtendDeadlineForm(ReasonForm):
    hours = forms.IntegerField(
        label=gettext_lazy("Hours"),
        min_value=1,
        max_value=24 * 30,
        initial=24,
        help_text=gettext_lazy("Added to this turn's clock."),
    )


class AdjudicateForm(ReasonForm):
    places = forms.CharField(
        max_length=40,
        label=gettext_lazy("Places"),
        help_text=gettext_lazy(
            "Places by seat, in seat order, 1 is first; players sharing a place skip the next (1, 1, 3)."
        ),
    )

    def clean_places(self) -> list[int]:
        text = self.cleaned_data["places"]
        try:
            return [int(part) for part in text.replace(" ", "").split(",") if part]
        except ValueError:
            raise forms.ValidationError(
                gettext("%(text)s is not a list of places such as 2, 1.") % {"text": repr(text)}
            ) from None


def seat_choices(game: Game) -> list[tuple[int, str]]:
    """The seats a moderator may hand over, as they pick one: "seat 1: hank".
    A seat that left the game is not offered: there is nobody to replace."""
    seats = sorted((s for s in game.seats.all() if s.index is not None and not s.resigned), key=lambda s: s.index or 0)
    return [
        (
            seat.index or 0,
            gettext("seat %(seat)s: %(name)s (the bot plays it)") % {"seat": seat.index, "name": seat.user.get_username()}
            if seat.bot
            else gettext("seat %(seat)s: %(name)s") % {"seat": seat.index, "name": seat.user.get_username()},
        )
        for seat in seats
    ]


class ReplaceSeatForm(ReasonForm):
    """The seat and who takes it: a player by username, or, left empty, the
    built-in bot (``moderation_seat_replace`` takes either, never both)."""

    seat = forms.TypedChoiceField(
        coerce=int,
        choices=[],
        label=gettext_lazy("Seat"),
        help_text=gettext_lazy("The seat to hand over (seat 0 plays first)."),
    )
    username = forms.CharField(
        required=False,
        label=gettext_lazy("Username"),
        help_text=gettext_lazy(
            "The player who takes the seat (their username); leave it empty to hand the seat to the built-in bot."
        ),
    )

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        username = cleaned.get("username")
        # None: the bot takes the seat (_replace reads it so).
        cleaned["new_user"] = None
        if username:
            user = get_user_model().objects.filter(username=username).first()
            if user is None:
                raise forms.ValidationError(
                    gettext("There is no player named %(name)s.") % {"name": repr(username)}
                )
            cleaned["new_user"] = user
        return cleaned

    @classmethod
    def for_games(cls, games: Sequence[Game]) -> type[ReasonForm]:
        # The action takes one game; with several, no seat is offered (and the
        # action refuses them before the form is shown).
        choices = seat_choices(games[0]) if len(games) == 1 else []

        class ForThisGame(cls):  # type: ignore[valid-type,misc]  # a subclass of the class at hand
            def __init__(self, *args: Any, **kwargs: Any) -> None:
                super().__init__(*args, **kwargs)
                seat_field = self.fields["seat"]
                assert isinstance(seat_field, forms.TypedChoiceField)
                seat_field.choices = choices

        return ForThisGame


@dataclass(frozen=True)
class ModerationAction:
    """One moderation action: its name in the action menu, its form, whether it
    takes one game at a time, and what it does to one game (returns a message)."""

    name: str
    description: StrOrPromise
    form_class: type[ReasonForm]
    perform: Callable[[HttpRequest, Game, dict[str, Any]], str]
    one_game: bool = False


def request_moderator(request: HttpRequest) -> Any:
    assert request.user.is_authenticated  # the admin site lets only active staff in
    return request.user


def _abort(request: HttpRequest, game: Game, data: dict[str, Any]) -> str:
    moderation.moderation_game_abort(game_id=game.pk, by_user=request_moderator(request), reason=data["reason"])
    return gettext("Aborted game %(game)s.") % {"game": game.pk}


def _adjudicate(request: HttpRequest, game: Game, data: dict[str, Any]) -> str:
    moderation.moderation_game_adjudicate(
        game_id=game.pk, by_user=request_moderator(request), reason=data["reason"], places=data["places"]
    )
    return gettext("Adjudicated game %(game)s: places %(places)s.") % {
        "game": game.pk,
        "places": ", ".join(map(str, data["places"])),
    }


def _extend(request: HttpRequest, game: Game, data: dict[str, Any]) -> str:
    moderation.moderation_deadline_extend(
        game_id=game.pk, by_user=request_moderator(request), reason=data["reason"], hours=data["hours"]
    )
    return ngettext(
        "Gave game %(game)s %(hours)s more hour.", "Gave game %(game)s %(hours)s more hours.", data["hours"]
    ) % {"game": game.pk, "hours": data["hours"]}


def _pause(request: HttpRequest, game: Game, data: dict[str, Any]) -> str:
    moderation.moderation_game_pause(game_id=game.pk, by_user=request_moderator(request), reason=data["reason"])
    return gettext("Paused game %(game)s.") % {"game": game.pk}


def _resume(request: HttpRequest, game: Game, data: dict[str, Any]) -> str:
    moderation.moderation_game_resume(game_id=game.pk, by_user=request_moderator(request), reason=data["reason"])
    return gettext("Resumed game %(game)s.") % {"game": game.pk}


def _replace(request: HttpRequest, game: Game, data: dict[str, Any]) -> str:
    new_user = data.get("new_user")
    moderation.moderation_seat_replace(
        game_id=game.pk,
        seat_index=data["seat"],
        by_user=request_moderator(request),
        reason=data["reason"],
        new_user=new_user,
        bot=new_user is None,
    )
    if new_user is None:
        return gettext("Seat %(seat)s of game %(game)s is now played by the bot.") % {
            "seat": data["seat"],
            "game": game.pk,
        }
    return gettext("Seat %(seat)s of game %(game)s is now played by %(name)s.") % {
        "seat": data["seat"],
        "game": game.pk,
        "name": new_user.get_username(),
    }


GAME_MODERATION_ACTIONS: tuple[ModerationAction, ...] = (
    ModerationAction(
        "moderate_extend_deadline", gettext_lazy("Extend the deadline (asks how long and why)"), ExtendDeadlineForm, _extend
    ),
    ModerationAction("moderate_pause", gettext_lazy("Pause the clock (moderator; asks why)"), ReasonForm, _pause),
    ModerationAction("moderate_resume", gettext_lazy("Resume a moderator's pause (asks why)"), ReasonForm, _resume),
    ModerationAction("moderate_abort", gettext_lazy("Abort / annul the game (asks why)"), ReasonForm, _abort),
    ModerationAction(
        "moderate_adjudicate",
        gettext_lazy("Adjudicate the result (one game; asks the places and why)"),
        AdjudicateForm,
        _adjudicate,
        one_game=True,
    ),
    ModerationAction(
        "moderate_replace_seat",
        gettext_lazy("Replace a seat with a player or the bot (one game; asks why)"),
        ReplaceSeatForm,
        _replace,
        one_game=True,
    ),
)


def moderation_confirm(
    modeladmin: admin.ModelAdmin[Any],
    request: HttpRequest,
    *,
    action: ModerationAction,
    objects: Sequence[Any],
    allowed: Callable[[Any], bool],
    perform: Callable[[Any, dict[str, Any]], str],
) -> TemplateResponse | None:
    """Run a moderation action from an admin changelist: show the confirmation
    page with the action's form (a reason is always required) until it is sent
    back valid, then do it object by object (each all-or-nothing), refusing the
    objects ``allowed`` refuses. Returns the page, or None to go back to the list."""
    refused = [obj for obj in objects if not allowed(obj)]
    if refused:
        raise PermissionDenied(
            gettext("You may not moderate %(objects)s.") % {"objects": ", ".join(str(obj.pk) for obj in refused)}
        )
    if action.one_game and len(objects) != 1:
        modeladmin.message_user(
            request, gettext("Choose exactly one for “%(action)s”.") % {"action": action.description}, messages.ERROR
        )
        return None
    form = action.form_class(request.POST if request.POST.get("post") == "yes" else None)
    if form.is_bound and form.is_valid():
        for obj in objects:
            try:
                message = perform(obj, form.cleaned_data)
            except DomainError as error:
                modeladmin.message_user(request, f"{obj.pk}: {error.message}", messages.ERROR)
            else:
                modeladmin.message_user(request, message, messages.SUCCESS)
        return None
    context = {
        **modeladmin.admin_site.each_context(request),
        "title": str(action.description).split(" (")[0],
        "opts": modeladmin.model._meta,
        "objects": objects,
        "form": form,
        "action_name": action.name,
        "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
        "media": modeladmin.media + form.media,
    }
    return TemplateResponse(request, CONFIRMATION_TEMPLATE, context)


def _game_action(action: ModerationAction) -> Callable[..., TemplateResponse | None]:
    def run(modeladmin: ModerationActionsMixin, request: HttpRequest, queryset: QuerySet[Game]) -> TemplateResponse | None:
        games = list(queryset.order_by("pk"))
        return moderation_confirm(
            modeladmin,  # type: ignore[arg-type]  # mixed into a ModelAdmin
            request,
            action=replace(action, form_class=action.form_class.for_games(games)),
            objects=games,
            allowed=lambda game: modeladmin.moderation_allowed(request, game),
            perform=lambda game, data: action.perform(request, game, data),
        )

    run.__name__ = action.name
    return admin.action(description=action.description, permissions=["moderate"])(run)


class ModerationActionsMixin:
    """The game moderation actions, for any ModelAdmin of ``Game``. Override
    ``moderation_allowed`` to scope them; ``has_moderate_permission`` decides
    whether they are offered at all."""

    admin_site: admin.AdminSite

    def moderation_allowed(self, request: HttpRequest, game: Game | None = None) -> bool:
        return moderation_allowed(request, game)

    def has_moderate_permission(self, request: HttpRequest) -> bool:
        return self.moderation_allowed(request, None)

    # A moderator sees the games they may moderate without also needing the view permission.
    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        seen: bool = super().has_view_permission(request, obj)  # type: ignore[misc]
        return seen or self.moderation_allowed(request, obj)

    def has_module_permission(self, request: HttpRequest) -> bool:
        shown: bool = super().has_module_permission(request)  # type: ignore[misc]
        return shown or self.moderation_allowed(request, None)

    def get_actions(self, request: HttpRequest) -> dict[str, Any]:
        found: dict[str, Any] = super().get_actions(request)  # type: ignore[misc]
        if self.has_moderate_permission(request):
            for action in GAME_MODERATION_ACTIONS:
                run = _game_action(action)
                found[action.name] = (run, action.name, action.description)
        return found
