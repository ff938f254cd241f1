"""The email addresses page for a logged-in player (/accounts/email/addresses/):
the addresses of the account, adding one (with the password, as changing the
address asks), verifying it with the code emailed to it, making a verified one
primary and removing one. Thin: each form calls one service of
accounts.services.addresses, as the API's /api/v1/me/emails/ does."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_http_methods, require_POST
from django.utils.translation import gettext, gettext_lazy

from accounts import selectors, services
from accounts.forms import errors_to_form, page_refusal
from accounts.pages import password_confirmed, private_page
from api.client_address import client_address
from core.errors import DomainError

if TYPE_CHECKING:
    from django.contrib.auth.models import User


class AddressAddForm(forms.Form):
    address = forms.EmailField(
        label=gettext_lazy("Another email address"), max_length=254, widget=forms.EmailInput(attrs={"autocomplete": "email"})
    )
    password = forms.CharField(
        label=gettext_lazy("Your password"),
        strip=False,
        help_text=gettext_lazy("To be sure it is you."),
        widget=forms.PasswordInput(attrs={"autocomplete": "current-password"}),
    )


class AddressCodeForm(forms.Form):
    code = forms.CharField(label=gettext_lazy("Code from the email"), max_length=64)


def _back() -> HttpResponseRedirect:
    return HttpResponseRedirect(reverse("accounts-email-addresses"), status=303)


def _page(
    request: HttpRequest,
    *,
    add_form: AddressAddForm | None = None,
    code_forms: dict[int, AddressCodeForm] | None = None,
) -> HttpResponse:
    user: User = request.user  # type: ignore[assignment]
    addresses = selectors.email_addresses_list(user=user)
    forms_by_id = code_forms or {}
    rows = [
        {**entry, "code_form": forms_by_id.get(entry["id"] or 0) or AddressCodeForm(auto_id=f"id_%s_{entry['id']}")}
        for entry in addresses
    ]
    context = {"addresses": rows, "add_form": add_form or AddressAddForm(), "limit": services.ADDRESSES_PER_ACCOUNT}
    return render(request, "accounts/pages/email_addresses.html", context)


@private_page
@login_required
@require_http_methods(["GET", "HEAD", "POST"])
def email_addresses(request: HttpRequest) -> HttpResponse:
    """The list, and (POST) adding an address: a code is emailed to it."""
    if request.method != "POST":
        return _page(request)
    user: User = request.user  # type: ignore[assignment]
    form = AddressAddForm(request.POST)
    if form.is_valid():
        if password_confirmed(request, user, form):
            try:
                row = services.email_address_add(
                    user=user, address=form.cleaned_data["address"], client=client_address(request)
                )
            except DomainError as error:
                _refusal_to_form(form, error)
            else:
                messages.info(
                    request,
                    gettext(
                        "We sent a code to %(address)s. Type it below, next to that address, to verify it; until "
                        "then, replies from it play nothing."
                    )
                    % {"address": row.address},
                )
                return _back()
    return _page(request, add_form=form)


def _refusal_to_form(form: forms.Form, error: DomainError) -> None:
    if error.retry_after:
        form.add_error(None, page_refusal(error))
    else:
        errors_to_form(form, error)


@private_page
@login_required
@require_POST
def email_address_verify(request: HttpRequest, address_id: int) -> HttpResponse:
    user: User = request.user  # type: ignore[assignment]
    form = AddressCodeForm(request.POST, auto_id=f"id_%s_{address_id}")
    if form.is_valid():
        try:
            row = services.email_address_verify(user=user, address_id=address_id, code=form.cleaned_data["code"])
        except services.EmailAddressNotFoundError:
            raise Http404 from None
        except DomainError as error:
            _refusal_to_form(form, error)
        else:
            messages.success(
                request, gettext("%(address)s is verified: your replies from it play.") % {"address": row.address}
            )
            return _back()
    return _page(request, code_forms={address_id: form})


@private_page
@login_required
@require_POST
def email_address_resend(request: HttpRequest, address_id: int) -> HttpResponse:
    """A new code for an address that waits for one (as adding it again does)."""
    user: User = request.user  # type: ignore[assignment]
    entry = selectors.email_address_get(user=user, address_id=address_id)
    if entry is None:
        raise Http404
    try:
        services.email_address_add(user=user, address=entry["address"], client=client_address(request))
    except DomainError as error:
        form = AddressCodeForm(auto_id=f"id_%s_{address_id}")
        _refusal_to_form(form, error)
        return _page(request, code_forms={address_id: form})
    messages.info(
        request,
        gettext("We sent a new code to %(address)s; the earlier one no longer works.") % {"address": entry["address"]},
    )
    return _back()


@private_page
@login_required
@require_POST
def email_address_primary(request: HttpRequest, address_id: int) -> HttpResponse:
    user: User = request.user  # type: ignore[assignment]
    try:
        services.email_address_make_primary(user=user, address_id=address_id)
    except services.EmailAddressNotFoundError:
        raise Http404 from None
    except DomainError as error:
        messages.error(request, error.message)
        return _back()
    messages.success(request, gettext("Game email now goes to %(address)s.") % {"address": user.email})
    return _back()


@private_page
@login_required
@require_POST
def email_address_remove(request: HttpRequest, address_id: int) -> HttpResponse:
    user: User = request.user  # type: ignore[assignment]
    entry = selectors.email_address_get(user=user, address_id=address_id)
    if entry is None:
        raise Http404
    try:
        services.email_address_remove(user=user, address_id=address_id)
    except services.EmailAddressNotFoundError:
        raise Http404 from None
    messages.success(
        request, gettext("%(address)s is removed: replies from it no longer play.") % {"address": entry["address"]}
    )
    return _back()
