"""Read-mostly admin, and moderation. Changes to a game go through
games.services and games.moderation, never here: the move log and the seed are
the truth, so they are never edited by hand, and the seed of an unfinished game
is never shown.

Moderation actions (abort, adjudicate, extend a deadline, pause, resume, replace
a seat; warn and suspend a player) each ask for a reason on a confirmation page
and are refused without the ``games.moderate_game`` permission. A scoped admin
(a league's) reuses them: subclass ``GameModerationAdmin`` (or mix
``ModerationActionsMixin`` into its own ModelAdmin) and override
``moderation_allowed(request, game)`` to narrow which games a user may moderate.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any, TypeVar

from django import forms
from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.contrib.auth import get_user_model
from django.core.exceptions import PermissionDenied
from django.db.models import F, Model, OuterRef, QuerySet, Subquery
from django.http import Http404, HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.urls import URLPattern, path, reverse
from django.utils import timezone
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

from accounts.admin import PlayerAdmin
from api.admin_tools import happened
from accounts.models import Player
from core.errors import DomainError, InvalidInput
from core.text import counted, listed
from games import moderation
from games.links import seat_link_rotate_for_seat
from api.admin_tools import ReadOnlyMixin
from games.models import Game, GameEvent, GameEventClaim, ModerationEntry, Move, Seat
from games.presentation import board_context
from games.results import ResultReason

MODERATE_PERMISSION = "games.moderate_game"
# The confirmation page every moderation action shows before it acts.
CONFIRMATION_TEMPLATE = "admin/games/moderation_confirmation.html"


HIDDEN_FIELDS = frozenset({"seed", "state", "private_card"})

_ModelT = TypeVar("_ModelT", bound=Model)


class HiddenInformationMixin(admin.ModelAdmin[_ModelT]):
    """Refuse list filters from the query string that touch hidden information.

    Django lets an admin list filter on any of a model's fields through the URL
    (``?seed__startswith=9``), which would reveal a running game's seed, its deck
    order or a blind reservation one guess at a time. Such a lookup gets a 400.
    """

    def lookup_allowed(self, lookup: str, value: str, request: HttpRequest) -> bool:
        if HIDDEN_FIELDS.intersection(lookup.split("__")):
            return False
        if "\x00" in str(value):  # PostgreSQL refuses it: a 400, not a 500
            return False
        return super().lookup_allowed(lookup, value, request)


class SeatInline(ReadOnlyMixin, admin.TabularInline[Seat, Game]):
    model = Seat
    fields = readonly_fields = ("index", "user", "join_position", "invited", "joined_at", "resigned", "resigned_at")
    extra = 0


class MoveInline(ReadOnlyMixin, admin.TabularInline[Move, Game]):
    model = Move
    # No private_card: the admin list is not the owner's view.
    fields = readonly_fields = ("ply", "seat", "text", "automatic", "created_at")
    extra = 0
    ordering = ["ply"]


# --- people, times and results in words -------------------------------------------------


def person_words(user_id: int | None, username: str | None, display_name: str | None) -> str:
    """A person the moderation log names by id, as they are called now: "Hank
    (hank, user 10)"; an id whose account no longer exists: "user 10 (deleted)"."""
    if user_id is None:
        return "—"
    if username is None:
        return f"user {user_id} (deleted)"
    if display_name and display_name != username:
        return f"{display_name} ({username}, user {user_id})"
    return f"{username} (user {user_id})"


def people_words(user_ids: Iterable[int | None]) -> dict[int, str]:
    """``person_words`` for each of these ids, in one query."""
    wanted = {user_id for user_id in user_ids if user_id is not None}
    found = {
        user_id: (username, display_name)
        for user_id, username, display_name in get_user_model()
        .objects.filter(pk__in=wanted)
        .values_list("pk", "username", "player__display_name")
    }
    return {user_id: person_words(user_id, *found.get(user_id, (None, None))) for user_id in wanted}


def with_people_names(queryset: QuerySet[_ModelT]) -> QuerySet[_ModelT]:
    """Moderation entries with the current username and display name of the
    moderator (``moderator_username``, ``moderator_display_name``) and of the
    player (``target_username``, ``target_display_name``), in the same query as
    the entries: the log keeps ids only, so a list of them would otherwise ask
    for each name apart."""
    users = get_user_model().objects
    names: dict[str, Any] = {}
    for prefix, column in (("moderator", "user_id"), ("target", "target_user_id")):
        names[f"{prefix}_username"] = Subquery(users.filter(pk=OuterRef(column)).values("username")[:1])
        names[f"{prefix}_display_name"] = Subquery(
            Player.objects.filter(user_id=OuterRef(column)).values("display_name")[:1]
        )
    annotated: QuerySet[_ModelT] = queryset.annotate(**names)
    return annotated


def moderator_words(entry: ModerationEntry) -> str:
    """The entry's moderator by name (``with_people_names`` looked it up)."""
    return person_words(
        entry.user_id, getattr(entry, "moderator_username", None), getattr(entry, "moderator_display_name", None)
    )


def target_words(entry: ModerationEntry) -> str:
    """The player the entry is about, by name (``with_people_names`` looked it up)."""
    return person_words(
        entry.target_user_id, getattr(entry, "target_username", None), getattr(entry, "target_display_name", None)
    )


def details_html(entry: ModerationEntry) -> SafeString:
    """An entry's details one per line, the people in them by name."""
    details = entry.details or {}
    names = people_words(value for key, value in details.items() if key.endswith("_user_id") and isinstance(value, int))
    rows = []
    for key, value in details.items():
        if key.endswith("_user_id"):
            label = key.removesuffix("_user_id").replace("_", " ") + " player"
            rows.append((label, names[value] if isinstance(value, int) else "—"))
        elif isinstance(value, list):
            rows.append((key.replace("_", " "), ", ".join(map(str, value))))
        else:
            rows.append((key.replace("_", " "), "—" if value is None else str(value)))
    if not rows:
        return format_html("{}", "—")
    return format_html("<ul>{}</ul>", format_html_join("", "<li>{}: {}</li>", rows))


def span_words(seconds: int) -> str:
    """A span of time as a person says it: "1 minute", "3 days", "1 day 6 hours"."""
    parts = []
    rest = max(seconds, 0)
    for unit, noun in ((86400, "day"), (3600, "hour"), (60, "minute"), (1, "second")):
        amount, rest = divmod(rest, unit)
        if amount:
            parts.append(counted(amount, noun))
    return " ".join(parts) or "no time"


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def time_control_words(game: Game) -> str:
    """The game's clock as docs/api.md ("Clocks and timeouts") describes it:
    "1 minute per move; no time bank; the 3rd timeout in a row forfeits the seat"."""
    per_move = f"{span_words(game.move_seconds)} per move"
    cap = span_words(game.bank_cap_seconds)
    if game.bank_start_seconds:
        bank = f"a bank of {span_words(game.bank_start_seconds)} at the start, at most {cap}"
    elif game.bank_cap_seconds:
        bank = f"an empty bank at the start, at most {cap}"
    else:
        bank = "no time bank"
    if game.forfeit_after == 1:
        forfeit = "the first timeout forfeits the seat"
    else:
        forfeit = f"the {_ordinal(game.forfeit_after)} timeout in a row forfeits the seat"
    return f"{per_move}; {bank}; {forfeit}"


# Why a game ended, for a moderator reading its result.
RESULT_REASON_WORDS: dict[str, str] = {
    ResultReason.POINTS: "a player reached the points target and the round was finished",
    ResultReason.GAUNTLET: "a player completed the Infinity Gauntlet and the round was finished",
    ResultReason.ALL_PASSED: "every player passed in a row",
    ResultReason.ROUND_LIMIT: "the round limit was reached",
    ResultReason.RESIGNATION: "every other player resigned",
    ResultReason.TIMEOUT: "every other player resigned or ran out of time",
    ResultReason.ACCOUNT_DISABLED: "every other player left the game (an account was disabled)",
    ResultReason.ADJUDICATED: "a moderator decided the places",
}


def _seat_names(game: Game) -> dict[int, str]:
    return {seat.index: seat.user.get_username() for seat in game.seats.all() if seat.index is not None}


def result_html(game: Game) -> SafeString:
    """The result as a moderator reads it: who won, each seat's place and score
    (and whether it left), and why the game ended."""
    result = game.result
    if not result:
        if game.status == Game.Status.ABORTED:
            return format_html("{}", "No result: the game was aborted.")
        return format_html("{}", "No result yet.")
    names = _seat_names(game)

    def who(seat: int) -> str:
        return f"{names.get(seat, 'nobody')} (seat {seat})"

    places, scores = result.get("places") or [], result.get("scores") or []
    resigned, timed_out = set(result.get("resigned") or []), set(result.get("timed_out") or [])
    rows = []
    for seat in result.get("ranking") or []:
        left = "out on time" if seat in timed_out else "resigned" if seat in resigned else ""
        rows.append(
            (
                places[seat] if seat < len(places) else "?",
                who(seat),
                counted(scores[seat], "point") if seat < len(scores) else "?",
                left,
            )
        )
    winners = [who(seat) for seat in result.get("winners") or []]
    reason = str(result.get("reason", ""))
    return format_html(
        "<p>{}: {}</p><table><tr><th>place</th><th>player</th><th>score</th><th></th></tr>{}</table><p>{}</p>",
        "Winners" if len(winners) > 1 else "Winner",
        listed(winners),
        format_html_join("", "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>", rows),
        f"Why it ended: {RESULT_REASON_WORDS.get(reason, reason)} ({reason}).",
    )


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
        help_text="Required: it is kept in the moderation log and the game's export.",
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
    hours = forms.IntegerField(min_value=1, max_value=24 * 30, initial=24, help_text="Added to this turn's clock.")


class AdjudicateForm(ReasonForm):
    places = forms.CharField(
        max_length=40,
        help_text="Places by seat, in seat order, 1 is first; players sharing a place skip the next (1, 1, 3).",
    )

    def clean_places(self) -> list[int]:
        text = self.cleaned_data["places"]
        try:
            return [int(part) for part in text.replace(" ", "").split(",") if part]
        except ValueError:
            raise forms.ValidationError(f"{text!r} is not a list of places such as 2, 1.") from None


def seat_choices(game: Game) -> list[tuple[int, str]]:
    """The seats a moderator may hand over, as they pick one: "seat 1: hank".
    A seat that left the game is not offered: there is nobody to replace."""
    seats = sorted((s for s in game.seats.all() if s.index is not None and not s.resigned), key=lambda s: s.index or 0)
    return [
        (seat.index or 0, f"seat {seat.index}: {seat.user.get_username()}{' (the bot plays it)' if seat.bot else ''}")
        for seat in seats
    ]


class ReplaceSeatForm(ReasonForm):
    seat = forms.TypedChoiceField(coerce=int, choices=[], help_text="The seat to hand over (seat 0 plays first).")
    username = forms.CharField(required=False, help_text="The player who takes the seat; empty for the bot.")
    bot = forms.BooleanField(required=False, help_text="Let the built-in greedy bot play the seat.")

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        username, bot = cleaned.get("username"), cleaned.get("bot")
        if bool(username) == bool(bot):
            raise forms.ValidationError("Give either a username or tick the bot, not both.")
        if username:
            user = get_user_model().objects.filter(username=username).first()
            if user is None:
                raise forms.ValidationError(f"There is no player named {username!r}.")
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
    description: str
    form_class: type[ReasonForm]
    perform: Callable[[HttpRequest, Game, dict[str, Any]], str]
    one_game: bool = False


def _moderator(request: HttpRequest) -> Any:
    assert request.user.is_authenticated  # the admin site lets only active staff in
    return request.user


def _abort(request: HttpRequest, game: Game, data: dict[str, Any]) -> str:
    moderation.moderation_game_abort(game_id=game.pk, by_user=_moderator(request), reason=data["reason"])
    return f"Aborted game {game.pk}."


def _adjudicate(request: HttpRequest, game: Game, data: dict[str, Any]) -> str:
    moderation.moderation_game_adjudicate(
        game_id=game.pk, by_user=_moderator(request), reason=data["reason"], places=data["places"]
    )
    return f"Adjudicated game {game.pk}: places {', '.join(map(str, data['places']))}."


def _extend(request: HttpRequest, game: Game, data: dict[str, Any]) -> str:
    moderation.moderation_deadline_extend(
        game_id=game.pk, by_user=_moderator(request), reason=data["reason"], hours=data["hours"]
    )
    return f"Gave game {game.pk} {data['hours']} more hour{'s' if data['hours'] != 1 else ''}."


def _pause(request: HttpRequest, game: Game, data: dict[str, Any]) -> str:
    moderation.moderation_game_pause(game_id=game.pk, by_user=_moderator(request), reason=data["reason"])
    return f"Paused game {game.pk}."


def _resume(request: HttpRequest, game: Game, data: dict[str, Any]) -> str:
    moderation.moderation_game_resume(game_id=game.pk, by_user=_moderator(request), reason=data["reason"])
    return f"Resumed game {game.pk}."


def _replace(request: HttpRequest, game: Game, data: dict[str, Any]) -> str:
    new_user = data.get("new_user")
    moderation.moderation_seat_replace(
        game_id=game.pk,
        seat_index=data["seat"],
        by_user=_moderator(request),
        reason=data["reason"],
        new_user=new_user,
        bot=new_user is None,
    )
    who = new_user.get_username() if new_user is not None else "the bot"
    return f"Seat {data['seat']} of game {game.pk} is now played by {who}."


GAME_MODERATION_ACTIONS: tuple[ModerationAction, ...] = (
    ModerationAction("moderate_extend_deadline", "Extend the deadline (asks how long and why)", ExtendDeadlineForm, _extend),
    ModerationAction("moderate_pause", "Pause the clock (moderator; asks why)", ReasonForm, _pause),
    ModerationAction("moderate_resume", "Resume a moderator's pause (asks why)", ReasonForm, _resume),
    ModerationAction("moderate_abort", "Abort / annul the game (asks why)", ReasonForm, _abort),
    ModerationAction("moderate_adjudicate", "Adjudicate the result (one game; asks the places and why)", AdjudicateForm, _adjudicate, one_game=True),
    ModerationAction("moderate_replace_seat", "Replace a seat with a player or the bot (one game; asks why)", ReplaceSeatForm, _replace, one_game=True),
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
        raise PermissionDenied(f"You may not moderate {', '.join(str(obj.pk) for obj in refused)}.")
    if action.one_game and len(objects) != 1:
        modeladmin.message_user(request, f"Choose exactly one for “{action.description}”.", messages.ERROR)
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
        "title": action.description.split(" (")[0],
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


# --- list filters ----------------------------------------------------------------


class OverdueFilter(admin.SimpleListFilter):
    """Active games whose deadline has passed (the sweep acts on them soon)."""

    title = "overdue"
    parameter_name = "overdue"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [("yes", "Overdue: the deadline has passed")]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any]:
        if self.value() == "yes":
            return queryset.filter(status=Game.Status.ACTIVE, deadline_at__lt=timezone.now())
        return queryset


class WaitingOnFilter(admin.SimpleListFilter):
    """Active games waiting on one player: the seat to move is theirs."""

    title = "waiting on"
    parameter_name = "waiting_on"
    LIMIT = 100

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        # Only the players of the games this admin lists (a league admin's: their leagues').
        listed = model_admin.get_queryset(request).values("pk")
        waiting = (
            Seat.objects.filter(game__status=Game.Status.ACTIVE, index=F("game__to_move"), game__in=listed)
            .values_list("user_id", "user__username")
            .distinct()
            .order_by("user__username")[: self.LIMIT]
        )
        return [(str(user_id), username) for user_id, username in waiting]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any]:
        value = self.value()
        if value is None:
            return queryset
        if not value.isdigit():
            return queryset.none()
        return queryset.filter(
            status=Game.Status.ACTIVE, seats__user_id=int(value), seats__index=F("to_move")
        )


# --- the game admin ------------------------------------------------------------------


class GameModerationAdmin(ReadOnlyMixin, ModerationActionsMixin, HiddenInformationMixin[Game], admin.ModelAdmin[Game]):
    list_display = ["id", "variant", "status", "seat_count", "version", "player_to_move", "deadline_at", "created_at"]
    list_filter = ["status", OverdueFilter, WaitingOnFilter, "variant", "seat_count"]
    search_fields = ["id", "seats__user__username", "created_by__username"]
    date_hierarchy = "created_at"
    inlines = [SeatInline, MoveInline]
    # The state snapshot holds hidden information and the seed only matters after the end.
    fields = readonly_fields = (
        "id",
        "variant",
        "seat_count",
        "status",
        "created_by",
        "version",
        "player_to_move",
        "time_control",
        "deadline_at",
        "seed_commitment",
        "revealed_seed",
        "readable_result",
        "created_at",
        "started_at",
        "finished_at",
        "boards",
        "moderation_log",
    )

    def get_queryset(self, request: HttpRequest) -> QuerySet[Game]:
        return (
            super().get_queryset(request).select_related("created_by").prefetch_related("seats__user").distinct()
        )

    @admin.display(description="time control")
    def time_control(self, game: Game) -> str:
        return time_control_words(game)

    @admin.display(description="result")
    def readable_result(self, game: Game) -> SafeString:
        return result_html(game)

    @admin.display(description="moderation log")
    def moderation_log(self, game: Game) -> SafeString:
        entries = list(with_people_names(ModerationEntry.objects.filter(game_id=game.pk)).order_by("at", "id"))
        if not entries:
            return format_html("{}", "Nothing so far.")
        rows = (
            (f"{timezone.localtime(entry.at):%Y-%m-%d %H:%M}", entry.get_action_display(), moderator_words(entry), target_words(entry), entry.reason)
            for entry in entries
        )
        return format_html(
            "<table><tr><th>at</th><th>action</th><th>moderator</th><th>player</th><th>reason</th></tr>{}</table>",
            format_html_join("", "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>", rows),
        )

    @admin.display(description="seed")
    def revealed_seed(self, game: Game) -> str:
        if game.is_over and game.seed:
            return game.seed
        return "(hidden until the game is over)"

    @admin.display(description="to move")
    def player_to_move(self, game: Game) -> str:
        if game.to_move is None or game.status != Game.Status.ACTIVE:
            return "—"
        seat = next((s for s in game.seats.all() if s.index == game.to_move), None)
        if seat is None:
            return f"seat {game.to_move}"
        return f"{seat.user.get_username()} (seat {game.to_move})"

    @admin.display(description="board as a seat sees it")
    def boards(self, game: Game) -> str:
        seats = sorted((s for s in game.seats.all() if s.index is not None), key=lambda s: s.index or 0)
        if not seats:
            return "(not started)"
        return format_html_join(
            " · ",
            '<a href="{}">seat {} ({})</a>',
            (
                (reverse(self._board_url_name(), args=[game.pk, s.index]), s.index, s.user.get_username())
                for s in seats
            ),
        )

    def _board_url_name(self, *, namespaced: bool = True) -> str:
        # Per model: a subclass registered for a proxy (a league's games) has its own.
        name = f"{self.opts.app_label}_{self.opts.model_name}_board"
        return f"{self.admin_site.name}:{name}" if namespaced else name

    def get_urls(self) -> list[URLPattern]:
        board = path(
            "<str:object_id>/board/<int:seat>/",
            self.admin_site.admin_view(self.board_view),
            name=self._board_url_name(namespaced=False),
        )
        return [board, *super().get_urls()]

    def board_view(self, request: HttpRequest, object_id: str, seat: int) -> HttpResponse:
        """The board as seat ``seat`` sees it (its hidden cards included), for a
        moderator: refused to anyone who holds a seat in the game, and logged."""
        game = self.get_object(request, object_id)
        if game is None:
            raise Http404(f"No game {object_id}.")
        if not self.has_view_permission(request, game) or not self.moderation_allowed(request, game):
            raise PermissionDenied("You may not moderate this game.")
        if not any(s.index == seat for s in game.seats.all()):
            raise Http404(f"Game {game.pk} has no seat {seat}.")
        moderation.moderation_board_view_record(game=game, seat_index=seat, by_user=_moderator(request))
        context = {
            **self.admin_site.each_context(request),
            "title": f"Game {game.pk} as seat {seat} sees it",
            "opts": self.model._meta,
            "original": game,
            "board": board_context(game=game, seat_index=seat),
        }
        return TemplateResponse(request, "admin/games/game/board_as_seat.html", context)


GameAdmin = GameModerationAdmin
admin.site.register(Game, GameModerationAdmin)


@admin.register(Seat)
class SeatAdmin(ReadOnlyMixin, HiddenInformationMixin[Seat], admin.ModelAdmin[Seat]):
    list_display = ["game", "user", "index", "invited", "joined_at", "resigned"]
    list_filter = ["game__status", "game__variant", "invited", "resigned"]
    search_fields = ["game__id", "user__username"]
    list_select_related = ["game", "user"]
    actions = ["rotate_page_link"]

    @admin.action(description="Rotate the page link")
    def rotate_page_link(self, request: HttpRequest, queryset: QuerySet[Seat]) -> None:
        """Revoke every link to the game page sent so far for these seats (a leaked email, say)."""
        rotated = 0
        for seat_id in queryset.values_list("pk", flat=True):
            try:
                seat_link_rotate_for_seat(seat_id=seat_id)
            except DomainError as error:
                self.message_user(request, error.message, messages.ERROR)
            else:
                rotated += 1
        self.message_user(
            request,
            f"Replaced the page link of {rotated} seat{'s' if rotated != 1 else ''}; earlier links no longer open the game.",
            messages.SUCCESS,
        )


@admin.register(Move)
class MoveAdmin(ReadOnlyMixin, HiddenInformationMixin[Move], admin.ModelAdmin[Move]):
    list_display = ["game", "ply", "seat", "text", "automatic", "created_at"]
    list_filter = ["game__status", "game__variant", "automatic"]
    search_fields = ["game__id", "text"]
    fields = readonly_fields = ("game", "ply", "seat", "text", "automatic", "created_at")
    list_select_related = ["game"]


class GameEventClaimInline(ReadOnlyMixin, admin.TabularInline[GameEventClaim, GameEvent]):
    model = GameEventClaim
    fields = readonly_fields = ("consumer", "claimed_at", "done_at", "attempts")
    extra = 0


@admin.register(GameEvent)
class GameEventAdmin(ReadOnlyMixin, HiddenInformationMixin[GameEvent], admin.ModelAdmin[GameEvent]):
    list_display = ["id", "game", "kind", "created_at"]
    list_filter = ["kind", "claims__consumer"]
    search_fields = ["game__id"]
    readonly_fields = ["game", "kind", "payload", "created_at"]
    list_select_related = ["game"]
    inlines = [GameEventClaimInline]


class ModerationLogMixin(admin.ModelAdmin[_ModelT]):
    """The columns of a moderation log (the site's, a league's): people by their
    current names, looked up with the entries, and the details in words. The
    admin it is mixed into gives ``game_link``."""

    list_display = ["at", "action", "moderator", "game_link", "player", "reason"]
    list_filter = ["action"]
    search_fields = ["game_id", "reason"]
    date_hierarchy = "at"
    fields = readonly_fields = ("at", "action", "moderator", "game_link", "player", "reason", "details_list")

    def get_queryset(self, request: HttpRequest) -> QuerySet[_ModelT]:
        return with_people_names(super().get_queryset(request))

    @admin.display(description="moderator", ordering="user_id")
    def moderator(self, entry: ModerationEntry) -> str:
        return moderator_words(entry)

    @admin.display(description="player", ordering="target_user_id")
    def player(self, entry: ModerationEntry) -> str:
        return target_words(entry)

    @admin.display(description="details")
    def details_list(self, entry: ModerationEntry) -> SafeString:
        return details_html(entry)


@admin.register(ModerationEntry)
class ModerationEntryAdmin(
    ReadOnlyMixin,
    ModerationLogMixin[ModerationEntry],
    HiddenInformationMixin[ModerationEntry],
    admin.ModelAdmin[ModerationEntry],
):
    """The moderation log: read-only for everyone, superusers included (it is
    append-only: games.moderation writes it). Moderators may read it."""

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return moderation_allowed(request) or super().has_view_permission(request, obj)

    def has_module_permission(self, request: HttpRequest) -> bool:
        return moderation_allowed(request) or super().has_module_permission(request)

    @admin.display(description="game", ordering="game_id")
    def game_link(self, entry: ModerationEntry) -> str:
        if not entry.game_id:
            return "—"
        return format_html('<a href="{}">{}</a>', reverse("admin:games_game_change", args=[entry.game_id]), entry.game_id)


# --- players: warn and suspend (the moderation log lives in games, so here) --------


class PlayerModerationForm(ReasonForm):
    pass


def _player_action(
    name: str, description: str, do: Callable[[Any, Any, str], object]
) -> Callable[..., TemplateResponse | None]:
    spec = ModerationAction(name, description, PlayerModerationForm, lambda request, game, data: "")

    def run(modeladmin: PlayerModerationAdmin, request: HttpRequest, queryset: QuerySet[Player]) -> TemplateResponse | None:
        players = list(queryset.select_related("user").order_by("pk"))

        def perform(player: Player, data: dict[str, Any]) -> str:
            changed = do(player.user, _moderator(request), data["reason"])
            verb = description.split(" ")[0].lower()
            return f"{player.user.get_username()}: {'done' if changed is not False else 'nothing to do'} ({verb})."

        return moderation_confirm(
            modeladmin,
            request,
            action=spec,
            objects=players,
            allowed=lambda player: modeladmin.moderation_allowed(request, player),
            perform=perform,
        )

    run.__name__ = name
    return admin.action(description=description, permissions=["moderate"])(run)


class PlayerModerationAdmin(PlayerAdmin):
    """The accounts admin for players, with the moderation actions on players."""

    list_display = [*PlayerAdmin.list_display, "suspended_at"]
    list_filter = [*PlayerAdmin.list_filter, ("suspended_at", happened("suspended"))]
    readonly_fields = [*PlayerAdmin.readonly_fields, "suspended_at"]
    actions = [
        *PlayerAdmin.actions,
        _player_action(
            "moderate_warn",
            "Warn the selected players (asks why)",
            lambda user, by, reason: moderation.moderation_player_warn(user=user, by_user=by, reason=reason),
        ),
        _player_action(
            "moderate_suspend",
            "Suspend the selected players: tokens and links stop working (asks why)",
            lambda user, by, reason: moderation.moderation_player_suspend(user=user, by_user=by, reason=reason),
        ),
        _player_action(
            "moderate_unsuspend",
            "Lift the suspension of the selected players (asks why)",
            lambda user, by, reason: moderation.moderation_player_unsuspend(user=user, by_user=by, reason=reason),
        ),
    ]

    def moderation_allowed(self, request: HttpRequest, player: Player | None = None) -> bool:
        return moderation_allowed(request)

    def has_moderate_permission(self, request: HttpRequest) -> bool:
        return self.moderation_allowed(request)


admin.site.unregister(Player)
admin.site.register(Player, PlayerModerationAdmin)

# The admin's front page shows the operator's counts (games.templatetags.moderation_admin).
admin.site.index_template = "admin/games/index_with_counts.html"
