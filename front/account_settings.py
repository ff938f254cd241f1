"""The settings page for a logged-in player in a browser (/accounts/settings/):
time zone and the deadlines calendar's address (accounts), email preferences
(notifications.preferences) and the vacation summary (games). It combines all
three, so it lives in front, the app above them; taking vacation is My games'
page (front.my_games.vacation).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal, cast

from django import forms
from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_http_methods

from accounts import selectors as account_selectors
from accounts import services as account_services
from accounts.forms import LanguageForm, TimeZoneForm, errors_to_form
from accounts.pages import private_page
from core.errors import DomainError, InvalidInput
from front.my_games import VacationForm, player_zone, vacation_context
from front.push_device import SETTINGS_CONTENT_SECURITY_POLICY, push_device_words
from notifications.models import Preferences
from notifications.preferences.selectors import preferences_for
from notifications.preferences.services import MAX_REMINDERS, PUSH_PREFERENCES, preferences_update

if TYPE_CHECKING:
    from django.contrib.auth.models import User


class NotificationPreferencesForm(forms.Form):
    mode = forms.ChoiceField(
        label=gettext_lazy("Game email"),
        choices=Preferences.Mode.choices,
        widget=forms.RadioSelect,
    )
    digest_hour = forms.TypedChoiceField(
        label=gettext_lazy("Digest hour"),
        coerce=int,
        choices=[(hour, f"{hour:02d}:00") for hour in range(24)],
        help_text=gettext_lazy("When the daily digest goes out, in your time zone."),
    )
    reminder_hours = forms.CharField(
        label=gettext_lazy("Reminders (hours before a deadline)"),
        required=False,
    )
    # Push to this account's browsers (notifications.push): each kind beside email's
    # choices; a browser subscribes with the settings page's "this device" button.
    push_your_turn = forms.BooleanField(label=gettext_lazy("Push: your turn"), required=False)
    push_reminder = forms.BooleanField(label=gettext_lazy("Push: reminders before a deadline"), required=False)
    push_invitation = forms.BooleanField(label=gettext_lazy("Push: invitations"), required=False)
    push_chat_line = forms.BooleanField(
        label=gettext_lazy("Push: table talk lines"),
        required=False,
        help_text=gettext_lazy("Of the games where you asked for each line of table talk."),
    )
    push_game_over = forms.BooleanField(label=gettext_lazy("Push: game over"), required=False)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["reminder_hours"].help_text = _(
            "Whole numbers separated by commas, such as 24, 2; at most %(most)d. Leave empty for no reminders."
        ) % {"most": MAX_REMINDERS}

    def clean_reminder_hours(self) -> list[int]:
        text = self.cleaned_data.get("reminder_hours") or ""
        hours: list[int] = []
        for part in text.replace(";", ",").split(","):
            part = part.strip()
            if not part:
                continue
            if not part.isdigit():
                raise forms.ValidationError(_("%(part)s is not a whole number of hours.") % {"part": repr(part)})
            hours.append(int(part))
        return hours


class ConfirmMovesForm(forms.Form):
    confirm_moves = forms.BooleanField(label=gettext_lazy("Ask me to confirm a move before it is sent"), required=False)


def _preferences_initial(*, user: Any) -> dict[str, Any]:
    current = preferences_for(user=user)
    return {
        "mode": current.mode,
        "digest_hour": current.digest_hour,
        "reminder_hours": ", ".join(str(hour) for hour in current.reminder_hours),
        **{name: getattr(current, name) for name in PUSH_PREFERENCES},
    }


def _calendar_context(user: User) -> dict[str, str]:
    url = account_services.calendar_url(feed=account_services.calendar_feed_get(user=user))
    return {"calendar_url": url, "calendar_webcal_url": "webcal://" + url.split("://", 1)[1]}


@private_page
@login_required
@require_http_methods(["GET", "HEAD", "POST"])
def account_settings(request: HttpRequest) -> HttpResponse:
    """GET shows every setting; a POST saves one form, named by ``form``."""
    user: User = request.user  # type: ignore[assignment]
    player = account_services.player_for_user(user=user)
    which = request.POST.get("form", "") if request.method == "POST" else ""
    zone_form = TimeZoneForm(request.POST if which == "time_zone" else None, current=player.time_zone)
    email_form = NotificationPreferencesForm(
        request.POST if which == "notifications" else None, initial=_preferences_initial(user=user)
    )
    moves_form = ConfirmMovesForm(
        request.POST if which == "moves" else None, initial={"confirm_moves": player.confirm_moves}
    )
    language_form = LanguageForm(request.POST if which == "language" else None, initial={"language": player.language})
    if which == "language":
        if language_form.is_valid():
            language = language_form.cleaned_data["language"]
            account_services.player_language_set(user=user, language=language)
            translation.activate(language)
            messages.success(request, _("Saved: your emails and pages are in this language."))
            response = HttpResponseRedirect(reverse("accounts-settings"), status=303)
            # The switch's cookie too, so the pages after signing out stay in it.
            same_site = cast(Literal["Lax", "Strict", "None", False] | None, settings.LANGUAGE_COOKIE_SAMESITE)
            response.set_cookie(
                settings.LANGUAGE_COOKIE_NAME, language, samesite=same_site,
                secure=settings.SESSION_COOKIE_SECURE, httponly=False, max_age=365 * 24 * 3600,
            )
            return response
    elif which == "moves":
        if moves_form.is_valid():
            confirm = moves_form.cleaned_data["confirm_moves"]
            account_services.player_confirm_moves_set(user=user, confirm_moves=confirm)
            messages.success(
                request, _("Saved: the game page asks before it sends a move.") if confirm else _("Saved: moves are sent at once.")
            )
            return HttpResponseRedirect(reverse("accounts-settings"), status=303)
    elif which == "time_zone":
        if zone_form.is_valid():
            try:
                account_services.player_time_zone_set(user=user, time_zone=zone_form.cleaned_data["time_zone"])
            except DomainError as error:
                errors_to_form(zone_form, error)
            else:
                messages.success(request, _("Time zone saved: %(zone)s.") % {"zone": zone_form.cleaned_data["time_zone"]})
                return HttpResponseRedirect(reverse("accounts-settings"), status=303)
    elif which == "notifications":
        if email_form.is_valid():
            try:
                preferences_update(user=user, **email_form.cleaned_data)
            except InvalidInput as error:
                errors_to_form(email_form, error)
            else:
                messages.success(request, _("Email preferences saved."))
                return HttpResponseRedirect(reverse("accounts-settings"), status=303)
    elif request.method == "POST":
        messages.error(request, _("Nothing was saved: use one of the forms' Save buttons."))
    context = {
        "player": player,
        "zone_form": zone_form,
        "email_form": email_form,
        "moves_form": moves_form,
        "language_form": language_form,
        "email_warning": account_selectors.player_email_warning(player=player),
        # The deadlines calendar's secret address (docs/calendar.md), and the same for apps that open webcal:.
        **_calendar_context(user),
        "vacation_form": VacationForm(),
        **vacation_context(user=user, zone=player_zone(player.time_zone), now=timezone.now()),
        "push_device_words": push_device_words(),
    }
    page = render(request, "notifications/account/settings.html", context)
    page["Content-Security-Policy"] = SETTINGS_CONTENT_SECURITY_POLICY
    return page
