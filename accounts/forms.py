"""The account pages' forms (accounts.pages): they read and check what a person
typed; the services do the work and their refusals come back as form errors."""

from __future__ import annotations

import re
from typing import Any

from django import forms
from django.contrib.auth.forms import AuthenticationForm, PasswordChangeForm, PasswordResetForm, SetPasswordForm
from django.core.exceptions import ValidationError
from django.utils.translation import gettext, gettext_lazy, ngettext, pgettext_lazy

from accounts import services
from accounts.speaking import in_language_of
from accounts.models import AccountEmailSent, Language
from api.client_address import client_address
from core.errors import DomainError, InvalidInput


def errors_to_form(form: forms.Form, error: DomainError) -> None:
    """Show a service's refusal in the form: field by field for InvalidInput
    (fields the form does not have go to the top), its message otherwise."""
    if isinstance(error, InvalidInput):
        for field, messages in error.errors.items():
            for message in messages:
                form.add_error(field if field in form.fields else None, message)
        return
    form.add_error(None, page_refusal(error))


def wait_words(seconds: int) -> str:
    """How long a wait is, in the active language: "45 seconds", "3 minutes", "2 hours"."""
    if seconds < 90:
        return ngettext("%(n)d second", "%(n)d seconds", seconds) % {"n": seconds}
    minutes = -(-seconds // 60)
    if minutes < 90:
        return ngettext("%(n)d minute", "%(n)d minutes", minutes) % {"n": minutes}
    hours = -(-minutes // 60)
    return ngettext("%(n)d hour", "%(n)d hours", hours) % {"n": hours}


# What the services' refusals say to API clients and a page does not: the header
# that says when to retry, and the endpoints to call (kept in every translation).
_API_WORDS = ("Retry-After", "/api/")


def page_refusal(error: DomainError) -> str:
    """A service's refusal as a page says it: the sentences that speak to API
    clients (Retry-After, endpoint paths) left out, and, for a refusal that ends
    when time passes, how long to wait. The error's title when nothing is left."""
    sentences = re.split(r"(?<=[.!?])\s+", error.message)
    kept = " ".join(sentence for sentence in sentences if not any(word in sentence for word in _API_WORDS))
    said = kept or gettext(error.title)
    if error.retry_after:
        return gettext("%(refusal)s Try again in %(wait)s.") % {"refusal": said, "wait": wait_words(error.retry_after)}
    return said


LANGUAGE_HELP = gettext_lazy("Your emails and pages are written in it.")


class BrowserTimeZoneField(forms.CharField):
    """The browser's time zone (``Intl.DateTimeFormat().resolvedOptions().timeZone``),
    put in a hidden field by the sign-up page's script. A guess, not something the
    person typed: a name the time zone database does not know is dropped (the
    account starts in UTC), never refused."""

    widget = forms.HiddenInput

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(required=False, **kwargs)

    def clean(self, value: Any) -> str:
        from zoneinfo import available_timezones

        return value if isinstance(value, str) and value in available_timezones() else ""


class SignupForm(forms.Form):
    username = forms.CharField(
        label=pgettext_lazy("account field", "Username"),
        max_length=150,
        help_text=gettext_lazy("Letters, digits and @ . + - _ only; others see it."),
        widget=forms.TextInput(attrs={"autocomplete": "username", "autocapitalize": "none"}),
    )
    email = forms.EmailField(
        label=gettext_lazy("Email"),
        help_text=gettext_lazy("We send a code to it; game email goes there."),
        widget=forms.EmailInput(attrs={"autocomplete": "email"}),
    )
    display_name = forms.CharField(
        label=gettext_lazy("Display name"),
        max_length=64,
        required=False,
        help_text=gettext_lazy("The name shown in games. Leave empty to use your username."),
    )
    password = forms.CharField(
        label=gettext_lazy("Password"), strip=False, widget=forms.PasswordInput(attrs={"autocomplete": "new-password"})
    )
    language = forms.ChoiceField(
        label=gettext_lazy("Language"), choices=Language.choices, required=False, help_text=LANGUAGE_HELP
    )
    time_zone = BrowserTimeZoneField()


class LanguageForm(forms.Form):
    language = forms.ChoiceField(label=gettext_lazy("Language"), choices=Language.choices, help_text=LANGUAGE_HELP)


class SignupVerifyForm(forms.Form):
    username = forms.CharField(
        label=pgettext_lazy("account field", "Username"),
        max_length=150,
        widget=forms.TextInput(attrs={"autocomplete": "username", "autocapitalize": "none"}),
    )
    code = forms.CharField(
        label=gettext_lazy("Code"),
        max_length=32,
        help_text=gettext_lazy("The code in the email we sent you."),
        widget=forms.TextInput(
            attrs={"autocomplete": "one-time-code", "autocapitalize": "characters", "spellcheck": "false"}
        ),
    )


class SignupResendForm(forms.Form):
    username = forms.CharField(label=pgettext_lazy("account field", "Username"), max_length=150)


class LockoutAuthenticationForm(AuthenticationForm):
    """Django's login form, saying plainly when passwords for the username are
    not being checked for a while (accounts.backends.LockoutModelBackend)."""

    error_messages = {
        **AuthenticationForm.error_messages,
        "invalid_login": gettext_lazy(
            "The username or password is wrong, or the account is not verified yet. Both are case-sensitive."
        ),
    }

    def clean(self) -> dict[str, Any]:
        username = self.cleaned_data.get("username")
        if username:
            self._refuse_while_locked(username)
        try:
            return super().clean()
        except ValidationError:
            if username:
                self._refuse_while_locked(username)  # that wrong password was the last one allowed
                password = self.cleaned_data.get("password")
                if password and services.password_names_suspended_account(username=username, password=password):
                    raise self._suspended() from None
            raise

    def confirm_login_allowed(self, user: Any) -> None:
        super().confirm_login_allowed(user)
        player = getattr(user, "player", None)
        if player is not None and player.is_suspended:
            raise self._suspended()

    @staticmethod
    def _suspended() -> ValidationError:
        return ValidationError(
            gettext("A moderator suspended this account; it cannot log in while it is suspended."), code="suspended"
        )

    def _refuse_while_locked(self, username: str) -> None:
        client = client_address(self.request) if self.request is not None else ""
        seconds = services.password_lock_seconds(username=username, client=client)
        if seconds:
            raise ValidationError(
                gettext(
                    "Too many wrong passwords were given for this username from your address, so no password is "
                    "checked for it from here for %(wait)s. Try again then, or reset your password."
                )
                % {"wait": wait_words(seconds)},
                code="locked",
            )


class LimitedPasswordResetForm(PasswordResetForm):
    """Django's reset form, whose links count against the limits per address and
    per client (accounts.services.account_email_take): past them no link is sent,
    and the page answers the same, so it tells nothing either way."""

    # The address of the client asking; the page sets it (accounts.pages.PasswordResetPage).
    client = ""

    def send_mail(
        self,
        subject_template_name: str,
        email_template_name: str,
        context: dict[str, Any],
        from_email: str | None,
        to_email: str,
        html_email_template_name: str | None = None,
    ) -> None:
        kind = AccountEmailSent.Kind.PASSWORD_RESET
        if services.account_email_take(kind=kind, address=to_email, client=self.client):
            return
        # In the account's language, whatever the language of the page that asked.
        with in_language_of(context.get("user")):
            super().send_mail(
                subject_template_name, email_template_name, context, from_email, to_email, html_email_template_name
            )


class PasswordResetSetForm(SetPasswordForm):  # type: ignore[type-arg]
    """Setting a new password from a reset link also lifts a lockout."""

    def save(self, commit: bool = True) -> Any:
        user = super().save(commit=commit)
        services.password_failures_clear(username=user.get_username())
        return user


class PasswordChangePageForm(PasswordChangeForm):
    def save(self, commit: bool = True) -> Any:
        user = super().save(commit=commit)
        services.password_failures_clear(username=user.get_username())
        return user


class EmailChangeForm(forms.Form):
    email = forms.EmailField(
        label=gettext_lazy("New email address"), widget=forms.EmailInput(attrs={"autocomplete": "email"})
    )
    password = forms.CharField(
        label=gettext_lazy("Your password"),
        strip=False,
        help_text=gettext_lazy("To be sure it is you."),
        widget=forms.PasswordInput(attrs={"autocomplete": "current-password"}),
    )


class TimeZoneForm(forms.Form):
    time_zone = forms.ChoiceField(
        label=gettext_lazy("Time zone"), help_text=gettext_lazy("Deadlines and the digest hour are read in it.")
    )

    def __init__(self, *args: Any, current: str = "UTC", **kwargs: Any) -> None:
        kwargs.setdefault("initial", {"time_zone": current})
        super().__init__(*args, **kwargs)
        names = time_zone_names()
        if current not in names:
            names = sorted([*names, current])  # a name set through the API stays selectable
        field = self.fields["time_zone"]
        assert isinstance(field, forms.ChoiceField)
        field.choices = [(name, name) for name in names]


def time_zone_names() -> list[str]:
    from zoneinfo import available_timezones

    # Without the legacy aliases ("US/Eastern", "Etc/GMT+3"...), which read as mistakes in a list.
    names = {name for name in available_timezones() if "/" in name and not name.startswith(("Etc/", "SystemV/"))}
    return sorted(names | {"UTC"})
