"""The forms of the tournaments admin's actions: each asks for a reason (kept in
the moderation log, games.admin.actions.ReasonForm), and what else its service
needs: the new player of an entry (T-ADMIN-REPLACE), the places of an
adjudicated game."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.auth import get_user_model
from django.utils.translation import gettext, gettext_lazy

from games.admin.actions import AdjudicateForm, ReasonForm
from games.models import Game


class EntryReasonForm(ReasonForm):
    """Withdrawing a player asks only why."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["reason"].help_text = gettext_lazy("Required: it is kept in the moderation log.")


class EntryReplaceForm(EntryReasonForm):
    """Who takes the entry's place: an active account, by username."""

    username = forms.CharField(
        max_length=150,
        label=gettext_lazy("New player"),
        help_text=gettext_lazy(
            "The username of the player who takes this place from the next round (not already in the tournament)."
        ),
    )

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        username = (cleaned.get("username") or "").strip()
        if username:
            user = get_user_model().objects.filter(username=username, is_active=True).first()
            if user is None:
                self.add_error(
                    "username", gettext("There is no player named %(name)s.") % {"name": repr(username)}
                )
            cleaned["new_user"] = user
        return cleaned


def _seat_words(game: Game) -> list[str]:
    # Every seat, the resigned too: the places are one per seat.
    seats = sorted((s for s in game.seats.all() if s.index is not None), key=lambda s: s.index or 0)
    found = []
    for seat in seats:
        words = {"seat": seat.index or 0, "name": seat.user.get_username()}
        if seat.resigned:
            found.append(gettext("seat %(seat)s: %(name)s (resigned)") % words)
        else:
            found.append(gettext("seat %(seat)s: %(name)s") % words)
    return found


def adjudicate_form_for(game: Game | None) -> type[AdjudicateForm]:
    """The places form, its help naming the game's seats in order ("seat 0: p1,
    seat 1: p2"), since places are given by seat."""
    seats = ", ".join(_seat_words(game)) if game is not None else ""

    class ForThisGame(AdjudicateForm):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            if seats:
                field = self.fields["places"]
                field.help_text = gettext("%(help)s Seats: %(seats)s.") % {"help": field.help_text, "seats": seats}

    return ForThisGame
