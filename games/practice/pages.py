"""The practice page for a logged-in player in a browser (/accounts/games/practice/):
a form that starts a game against one to three of the service's bots
(games.services.practice_game_create), and the player's practice games and
sandboxes, listed apart from My games. Mounted by front.urls beside the
other account pages (front.my_games); a sandbox is made from a game's own
page ("Try this position", games.pages.game.game_sandbox_page).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django import forms
from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.utils.translation import gettext, gettext_lazy
from django.views.decorators.http import require_http_methods

from accounts.pages import private_page
from core.errors import DomainError
from core.text import listed
from games import services
from games.practice import selectors as practice_selectors
from games.models import Game, Seat
from games.presentation import bot_choice_label, bot_the, bot_title
from games.services import MAX_SEATS

if TYPE_CHECKING:
    from django.contrib.auth.models import User

# The bot a new practice game offers first: the strongest.
DEFAULT_BOT = "ismcts"


def _bot_choices(*, optional: bool) -> list[tuple[str, str]]:
    choices = [(name, bot_choice_label(name)) for name in services.bot_names()]
    return [("", gettext("none")), *choices] if optional else choices


class PracticeGameForm(forms.Form):
    variant = forms.ChoiceField(
        label=gettext_lazy("Game"),
        choices=[("base", "Splendor"), ("marvel", "Splendor: Marvel")],
        initial="base",
        widget=forms.RadioSelect,
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # One field per bot seat beside the player's: the first is required, the others may stay empty.
        for number in range(1, MAX_SEATS):
            self.fields[f"bot_{number}"] = forms.ChoiceField(
                label=gettext("Bot %(number)s") % {"number": number}
                if number == 1
                else gettext("Bot %(number)s (optional)") % {"number": number},
                choices=_bot_choices(optional=number > 1),
                initial=DEFAULT_BOT if number == 1 else "",
                required=number == 1,
            )

    def bots(self) -> list[str]:
        """The bots chosen, in seat order, the empty seats left out."""
        return [self.cleaned_data[f"bot_{n}"] for n in range(1, MAX_SEATS) if self.cleaned_data.get(f"bot_{n}")]


def _name(seat: Seat) -> str:
    if seat.bot_name:
        return bot_title(seat.bot_name)
    player = getattr(seat.user, "player", None)
    return (getattr(player, "display_name", "") if player is not None else "") or seat.user.get_username()


def _status(game: Game, seats: list[Seat], user: User) -> tuple[str, bool]:
    """The row's status line, and whether the player (or a hot seat they play) is to move."""
    if game.status == Game.Status.ACTIVE:
        to_move = next((s for s in seats if s.index == game.to_move), None)
        if to_move is None:
            return gettext("In play"), False
        if not to_move.bot_name:
            return gettext("Your turn"), True  # the player's own seat, or a sandbox's hot seat, which they play
        return gettext("The %(bot)s's turn") % {"bot": bot_title(to_move.bot_name)}, False
    if game.status == Game.Status.FINISHED:
        winners = [
            gettext("you") if s.user_id == user.pk else _name(s)
            for s in seats
            if s.index is not None and s.index in ((game.result or {}).get("winners") or [])
        ]
        if winners:
            return gettext("Finished: won by %(winners)s") % {"winners": listed(winners)}, False
        return gettext("Finished"), False
    return gettext("Aborted"), False


def practice_row(game: Game, user: User) -> dict[str, Any]:
    seats = sorted(game.seats.all(), key=lambda s: (s.index if s.index is not None else 99, s.pk))
    bots = [s.bot_name for s in seats if s.bot_name]
    hot_seats = [s for s in seats if not s.bot_name and s.user_id != user.pk]
    against = [bot_the(name) for name in bots]
    if hot_seats:
        against.append(gettext("yourself") if not bots else gettext("yourself at the other seats"))
    state, your_turn = _status(game, seats, user)
    return {
        "id": game.pk,
        "variant": game.get_variant_display(),
        "sandbox_of": game.sandbox_of_id or "",
        "against": listed(against),
        "state": state,
        "your_turn": your_turn,
        "url": reverse("game-page", kwargs={"game_id": game.pk}),
    }


@private_page
@login_required
@require_http_methods(["GET", "HEAD", "POST"])
def practice(request: HttpRequest) -> HttpResponse:
    """Start a game against bots (then its page), and the player's practice games and
    sandboxes. A refusal (PRACTICE_GAMES_ACTIVE_PER_ACCOUNT in play, say) is shown
    above the form in the service's words."""
    user: User = request.user  # type: ignore[assignment]
    form = PracticeGameForm(request.POST if request.method == "POST" else None)
    if request.method == "POST" and form.is_valid():
        try:
            game = services.practice_game_create(
                creator=user, variant=form.cleaned_data["variant"], bots=form.bots()
            )
        except DomainError as error:
            form.add_error(None, error.message)
        else:
            return HttpResponseRedirect(reverse("game-page", kwargs={"game_id": game.pk}), status=303)
    games = list(practice_selectors.practice_games(user=user))
    lists = [
        (
            "practice-games",
            gettext("Your practice games"),
            [practice_row(g, user) for g in games if g.kind == Game.Kind.PRACTICE],
            gettext("None yet: start one above."),
        ),
        (
            "sandboxes",
            gettext("Your sandboxes"),
            [practice_row(g, user) for g in games if g.kind == Game.Kind.SANDBOX],
            gettext("None yet: a game's page, or its replay, offers to try its position."),
        ),
    ]
    context = {"form": form, "lists": lists, "practice_limit": settings.PRACTICE_GAMES_ACTIVE_PER_ACCOUNT}
    # 200 with the refusals in the form, as the other account pages answer.
    return render(request, "games/account/practice.html", context)
