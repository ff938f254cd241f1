"""The account pages, for people who play in a browser: signing up with the
emailed code, logging in and out, resetting and changing the password, and
changing the email address (confirmed at the new one).

Thin views: a form reads the input, one service acts, its refusal is shown in
the form. Every page is private (never cached) and sends no referrer to other
sites: the address of some (a reset or confirmation link) is a secret.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import TYPE_CHECKING, Any

from django import forms
from django.conf import settings
from django.contrib import messages
from django.contrib.auth import REDIRECT_FIELD_NAME, login
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.contrib.auth.forms import PasswordResetForm
from django.http import HttpRequest, HttpResponse, HttpResponseBase, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse, reverse_lazy
from django.utils.decorators import method_decorator
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods, require_POST

from accounts import services
from accounts.language import language_from_request
from accounts.forms import (
    EmailChangeForm,
    LimitedPasswordResetForm,
    LockoutAuthenticationForm,
    PasswordChangePageForm,
    PasswordResetSetForm,
    SignupForm,
    SignupResendForm,
    SignupVerifyForm,
    errors_to_form,
    page_refusal,
    wait_words,
)
from api.client_address import client_address
from core.errors import DomainError

if TYPE_CHECKING:
    from django.contrib.auth.models import User

BACKEND = "accounts.backends.LockoutModelBackend"
# No script at all; the one inline stylesheet of the base template; forms post here only;
# the web app manifest (front.pwa) the base template links.
CONTENT_SECURITY_POLICY = (
    "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; form-action 'self'; "
    "frame-ancestors 'none'; base-uri 'none'; manifest-src 'self'"
)
# The sign-up page runs one script of this site's own (the browser's time zone into
# the form), never an inline one.
SIGNUP_CONTENT_SECURITY_POLICY = CONTENT_SECURITY_POLICY + "; script-src 'self'"
# The sign-up waiting for its code, and where to go once verified, between the pages.
SESSION_SIGNUP_USERNAME = "accounts.signup_username"
SESSION_SIGNUP_NEXT = "accounts.signup_next"

View = Callable[..., HttpResponseBase]


def private_page(view: View) -> View:
    """Never cached, and no referrer sent to other sites.

    Not ``no-referrer``: under it a browser sends ``Origin: null`` with a form's
    POST, which Django's CSRF check refuses. ``same-origin`` sends the referrer
    (which may hold a reset or confirmation token) to this site only.
    """

    @wraps(view)
    def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
        response = view(request, *args, **kwargs)
        response["Referrer-Policy"] = "same-origin"
        response.setdefault("Content-Security-Policy", CONTENT_SECURITY_POLICY)
        response["X-Robots-Tag"] = "noindex, nofollow"
        return response

    return never_cache(wrapped)


def safe_next(request: HttpRequest, candidate: str | None) -> str:
    """`candidate` when it is an address on this site, else ""."""
    if candidate and url_has_allowed_host_and_scheme(
        candidate, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return candidate
    return ""


def _next_of(request: HttpRequest) -> str:
    return safe_next(request, request.POST.get(REDIRECT_FIELD_NAME) or request.GET.get(REDIRECT_FIELD_NAME))


def my_games_url() -> str:
    return reverse("accounts-games")


def _with_next(url: str, next_url: str) -> str:
    from urllib.parse import urlencode

    return f"{url}?{urlencode({REDIRECT_FIELD_NAME: next_url})}" if next_url else url


# --- sign-up ---------------------------------------------------------------------------


@private_page
@require_http_methods(["GET", "HEAD", "POST"])
def signup(request: HttpRequest) -> HttpResponse:
    next_url = _next_of(request)
    if request.user.is_authenticated:
        return HttpResponseRedirect(next_url or my_games_url())
    form = SignupForm(request.POST or None, initial={"language": language_from_request(request)})
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            user = services.signup_start(
                username=data["username"],
                email=data["email"],
                password=data["password"],
                display_name=data["display_name"] or None,
                client=client_address(request),
                language=data["language"] or language_from_request(request),
                time_zone=data["time_zone"],
            )
        except DomainError as error:
            if error.retry_after:
                form.add_error(None, page_refusal(error))
            else:
                errors_to_form(form, error)
        else:
            request.session[SESSION_SIGNUP_USERNAME] = user.get_username()
            request.session[SESSION_SIGNUP_NEXT] = next_url
            return HttpResponseRedirect(reverse("accounts-signup-verify"), status=303)
    context = {"form": form, "next": next_url, "login_url": _with_next(reverse("login"), next_url)}
    response = render(request, "accounts/pages/signup.html", context)
    response["Content-Security-Policy"] = SIGNUP_CONTENT_SECURITY_POLICY
    return response


@private_page
@require_http_methods(["GET", "HEAD", "POST"])
def signup_verify(request: HttpRequest) -> HttpResponse:
    waiting = request.session.get(SESSION_SIGNUP_USERNAME, "")
    next_url = safe_next(request, request.session.get(SESSION_SIGNUP_NEXT)) or _next_of(request)
    form = SignupVerifyForm(request.POST or None, initial={"username": waiting})
    if request.method == "POST" and form.is_valid():
        try:
            user = services.signup_verify(username=form.cleaned_data["username"], code=form.cleaned_data["code"])
        except DomainError as error:
            form.add_error("code" if not error.retry_after else None, _code_refusal(error))
        else:
            request.session.pop(SESSION_SIGNUP_USERNAME, None)
            request.session.pop(SESSION_SIGNUP_NEXT, None)
            login(request, user, backend=BACKEND)
            messages.success(request, gettext("Your address is verified and you are logged in. Welcome!"))
            return HttpResponseRedirect(next_url or my_games_url(), status=303)
    context = {"form": form, "waiting": waiting, "next": next_url}
    return render(request, "accounts/pages/signup_verify.html", context)


def _code_refusal(error: DomainError) -> str:
    """The services' messages point API clients at endpoints; a page says what to do on it."""
    from accounts.errors import TooManyAttemptsError, VerificationExpiredError

    if isinstance(error, TooManyAttemptsError):
        return gettext("Too many wrong codes: this code no longer works. Ask for a new code below.")
    if isinstance(error, VerificationExpiredError):
        return gettext("That code has expired. Ask for a new code below.")
    return error.message


@private_page
@require_POST
def signup_resend(request: HttpRequest) -> HttpResponse:
    form = SignupResendForm(request.POST)
    if form.is_valid():
        # The same answer whether or not a sign-up is waiting under the name.
        services.signup_code_resend(username=form.cleaned_data["username"], client=client_address(request))
        request.session[SESSION_SIGNUP_USERNAME] = form.cleaned_data["username"]
        messages.info(
            request,
            gettext(
                "If a sign-up is waiting under that username, a new code is on its way; earlier codes no longer work. "
                "A new code can be sent once a minute, %(per_day)d a day."
            )
            % {"per_day": services.VERIFICATION_CODES_PER_DAY},
        )
    else:
        messages.error(request, gettext("Give the username you signed up with."))
    return HttpResponseRedirect(reverse("accounts-signup-verify"), status=303)


# --- logging in and out ----------------------------------------------------------------


@method_decorator(private_page, name="dispatch")
class LoginPage(auth_views.LoginView):
    template_name = "accounts/pages/login.html"
    authentication_form = LockoutAuthenticationForm
    redirect_authenticated_user = True

    def get_redirect_url(self) -> str:  # type: ignore[override]  # the stubs add a parameter Django 5.2 does not have
        # Django refuses (a 500) to send a logged-in visitor back to the login page itself.
        target = super().get_redirect_url()
        return "" if target.split("?")[0] == self.request.path else target

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context = super().get_context_data(**kwargs)
        context["signup_url"] = _with_next(reverse("accounts-signup"), context.get("next") or "")
        return context


@method_decorator(private_page, name="dispatch")
class LogoutPage(auth_views.LogoutView):
    """Logging out also empties this browser's storage for the site (Clear-Site-Data):
    the service worker and the boards it kept for reading offline (front.pwa), so
    the next person at this browser sees none of them."""

    template_name = "accounts/pages/logged_out.html"

    def post(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        response = super().post(request, *args, **kwargs)
        response["Clear-Site-Data"] = '"storage"'
        return response


# --- passwords -------------------------------------------------------------------------


@method_decorator(private_page, name="dispatch")
class PasswordResetPage(auth_views.PasswordResetView):
    form_class = LimitedPasswordResetForm
    template_name = "accounts/pages/password_reset_form.html"
    email_template_name = "accounts/pages/password_reset_email.txt"
    subject_template_name = "accounts/pages/password_reset_subject.txt"
    success_url = reverse_lazy("accounts-password-reset-done")

    def form_valid(self, form: PasswordResetForm) -> HttpResponse:
        if isinstance(form, LimitedPasswordResetForm):  # form_class above: always
            form.client = client_address(self.request)
        return super().form_valid(form)


@method_decorator(private_page, name="dispatch")
class PasswordResetDonePage(auth_views.PasswordResetDoneView):
    template_name = "accounts/pages/password_reset_done.html"

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context = super().get_context_data(**kwargs)
        context["reset_hours"] = wait_words(settings.PASSWORD_RESET_TIMEOUT)
        return context


@method_decorator(private_page, name="dispatch")
class PasswordResetConfirmPage(auth_views.PasswordResetConfirmView):
    template_name = "accounts/pages/password_reset_confirm.html"
    form_class = PasswordResetSetForm
    success_url = reverse_lazy("accounts-password-reset-complete")


@method_decorator(private_page, name="dispatch")
class PasswordResetCompletePage(auth_views.PasswordResetCompleteView):
    template_name = "accounts/pages/password_reset_complete.html"


@method_decorator(private_page, name="dispatch")
class PasswordChangePage(auth_views.PasswordChangeView):
    template_name = "accounts/pages/password_change_form.html"
    form_class = PasswordChangePageForm
    success_url = reverse_lazy("accounts-password-change-done")


@method_decorator(private_page, name="dispatch")
class PasswordChangeDonePage(auth_views.PasswordChangeDoneView):
    template_name = "accounts/pages/password_change_done.html"


# --- the email address -----------------------------------------------------------------


def password_confirmed(request: HttpRequest, user: User, form: forms.Form) -> bool:
    """Whether the ``password`` field of ``form`` is ``user``'s own (a change of
    address asks for it); if not, the form says why, and guessing counts against
    the account as a login does."""
    try:
        services.login_check(
            username=user.get_username(), password=form.cleaned_data["password"], client=client_address(request)
        )
    except DomainError as error:
        if error.retry_after:
            form.add_error(
                None, gettext("Too many wrong passwords; try again in %(wait)s.") % {"wait": wait_words(error.retry_after)}
            )
        else:
            form.add_error("password", gettext("That is not your password."))
        return False
    return True


@private_page
@login_required
@require_http_methods(["GET", "HEAD", "POST"])
def email_change(request: HttpRequest) -> HttpResponse:
    user: User = request.user  # type: ignore[assignment]
    form = EmailChangeForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        if password_confirmed(request, user, form):
            try:
                confirm_url = request.build_absolute_uri(reverse("accounts-email-confirm", args=["TOKEN"]))
                address = services.email_change_start(
                    user=user, new_email=form.cleaned_data["email"], confirm_url=confirm_url.replace("TOKEN", "{token}")
                )
            except DomainError as error:
                errors_to_form(form, error)
            else:
                messages.info(
                    request,
                    gettext(
                        "We sent a link to %(address)s. Your address changes when you open it and confirm; "
                        "until then, email goes to your current address."
                    )
                    % {"address": address},
                )
                return HttpResponseRedirect(reverse("accounts-email"), status=303)
    context = {"form": form, "player": services.player_for_user(user=user)}
    return render(request, "accounts/pages/email_change.html", context)


@private_page
@require_http_methods(["GET", "HEAD", "POST"])
def email_confirm(request: HttpRequest, token: str) -> HttpResponse:
    """GET only shows a button: mail scanners open links, and must not change the address."""
    if request.method != "POST":
        return render(request, "accounts/pages/email_confirm.html", {"token": token})
    try:
        user = services.email_change_confirm(token=token)
    except DomainError as error:
        return render(request, "accounts/pages/email_confirm.html", {"token": token, "error": error.message})
    messages.success(request, gettext("Your address is now %(address)s.") % {"address": user.email})
    target = reverse("accounts-email") if request.user.is_authenticated else reverse("login")
    return HttpResponseRedirect(target, status=303)


# --- the deadlines calendar's address ---------------------------------------------------


@private_page
@login_required
@require_POST
def calendar_rotate(request: HttpRequest) -> HttpResponse:
    """The settings page's "Replace the address" button: a new secret address for
    the account's deadlines calendar; the old one answers 404 from now on."""
    user: User = request.user  # type: ignore[assignment]
    services.calendar_feed_rotate(user=user)
    messages.success(
        request,
        gettext(
            "Your calendar has a new address: the old one no longer works. Give the new one to your calendar apps."
        ),
    )
    return HttpResponseRedirect(reverse("accounts-settings") + "#calendar", status=303)
