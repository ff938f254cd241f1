"""The new-game page for a logged-in player in a browser (/accounts/games/new/):
variant, seats, the players to invite by username or email address, the clock,
public and rated. It invites by address (notifications.invitations), so it lives
in front, above notifications, games and accounts.

The form reads the input; one service creates the game; its domain errors are
shown next to the field they are about. No answer depends on whether an address
has an account.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_http_methods

from accounts.pages import private_page
from core.errors import DomainError
from games import errors as game_errors
from games.services import (
    DEFAULT_FORFEIT_AFTER,
    DEFAULT_MOVE_TIMEOUT_HOURS,
    MAX_BANK_HOURS,
    MAX_MOVE_TIMEOUT_HOURS,
    MAX_SEATS,
    MIN_SEATS,
)
from notifications.invitations import GameSetup, InvitationRefused, game_create_inviting

if TYPE_CHECKING:
    from django.contrib.auth.models import User


class NewGameForm(forms.Form):
    variant = forms.ChoiceField(
        label=_("Game"),
        choices=[("base", "Splendor"), ("marvel", "Splendor: Marvel")],
        initial="base",
        widget=forms.RadioSelect,
    )
    # Plain numbers: the service says what is allowed (its words are shown here).
    seats = forms.IntegerField(
        label=_("Players"),
        initial=2,
        widget=forms.NumberInput(attrs={"min": MIN_SEATS, "max": MAX_SEATS}),
    )
    invite = forms.CharField(
        label=_("Invite"),
        required=False,
        help_text=_(
            "Usernames or email addresses, separated by commas or new lines. "
            "Seats nobody is invited to are open to anyone with the game's link."
        ),
        widget=forms.Textarea(attrs={"rows": 3, "autocomplete": "off"}),
    )
    move_timeout_hours = forms.IntegerField(
        label=_("Time per move (hours)"),
        initial=DEFAULT_MOVE_TIMEOUT_HOURS,
        widget=forms.NumberInput(attrs={"min": 1, "max": MAX_MOVE_TIMEOUT_HOURS}),
    )
    bank_hours = forms.IntegerField(
        label=_("Time bank (hours)"),
        initial=0,
        widget=forms.NumberInput(attrs={"min": 0, "max": MAX_BANK_HOURS}),
    )
    public = forms.BooleanField(
        label=_("Public: anyone may watch, and it is listed among the open games"), required=False
    )
    rated = forms.BooleanField(label=_("Rated: the result counts towards ratings"), required=False)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # The limits in the words of the language active when the form is made.
        self.fields["seats"].help_text = gettext("%(least)d to %(most)d, you included.") % {
            "least": MIN_SEATS,
            "most": MAX_SEATS,
        }
        # What a missed deadline does (games.services.clocks): a vacation day, else the
        # bot's move, and the DEFAULT_FORFEIT_AFTER-th in a row forfeits the seat.
        self.fields["move_timeout_hours"].help_text = gettext(
            "1 to %(most)d. When a player's time runs out, one of their vacation days is used if "
            "they have one left; otherwise the bot plays that turn, and after %(forfeit)d missed "
            "turns in a row the seat is forfeited."
        ) % {"most": MAX_MOVE_TIMEOUT_HOURS, "forfeit": DEFAULT_FORFEIT_AFTER}
        self.fields["bank_hours"].help_text = gettext(
            "0 to %(most)d: extra time each player may spend over the whole game."
        ) % {"most": MAX_BANK_HOURS}

    def clean_invite(self) -> tuple[list[str], list[str]]:
        """(usernames, addresses): an entry with an @ is an address."""
        entries = [entry.strip() for entry in re.split(r"[,;\s]+", self.cleaned_data.get("invite") or "") if entry.strip()]
        usernames, addresses = [], []
        for entry in entries:
            if "@" in entry:
                try:
                    validate_email(entry)
                except ValidationError:
                    raise ValidationError(gettext("%(entry)s is not an email address.") % {"entry": entry}) from None
                addresses.append(entry)
            else:
                usernames.append(entry)
        return usernames, addresses


def _field_for(error: DomainError) -> str | None:
    """The form field a refusal of the service is about (None: the whole form)."""
    if isinstance(error, (InvitationRefused, game_errors.TooManyInvitations)):
        return "invite"
    text = error.message.lower()
    for words, field in (
        ("invite", "invite"),
        ("variant", "variant"),
        ("seats", "seats"),
        ("time per move", "move_timeout_hours"),
        ("time bank", "bank_hours"),
    ):
        if words in text:
            return field
    return None


@private_page
@login_required
@require_http_methods(["GET", "HEAD", "POST"])
def new_game(request: HttpRequest) -> HttpResponse:
    user: User = request.user  # type: ignore[assignment]
    form = NewGameForm(request.POST if request.method == "POST" else None)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        usernames, addresses = data["invite"]
        setup = GameSetup(
            variant=data["variant"],
            seats=data["seats"],
            usernames=usernames,
            addresses=addresses,
            move_timeout_hours=data["move_timeout_hours"],
            bank_hours=data["bank_hours"],
            public=data["public"],
            rated=data["rated"],
        )
        try:
            game = game_create_inviting(creator=user, setup=setup)
        except DomainError as error:
            form.add_error(_field_for(error), error.message)
        else:
            invited = len(usernames) + len(addresses)
            set_up = gettext("Game %(id)s is set up; it starts when every seat is taken.") % {"id": game.pk}
            if invited:
                told = ngettext("Your invitation is on the way.", "Your invitations are on the way.", invited)
                set_up = f"{set_up} {told}"
            messages.success(request, set_up)
            return HttpResponseRedirect(reverse("accounts-games"), status=303)
    # 200 with the refusals in the form, as the other account pages answer.
    return render(request, "notifications/pages/new_game.html", {"form": form})
