"""The authentication backend: Django's own, with password guessing slowed per
username and client address (accounts.services.password_*), for every door that
checks a password: the API's token minting, the login page and the admin's alike.
The client address is the one ``authenticate()`` is given as ``client`` (the API
passes it), else the request's (api.client_address, which honours TRUSTED_PROXIES).

A suspended account (``Player.suspended_at``, set by a moderator) cannot
authenticate: ``user_can_authenticate`` refuses it, so every login door refuses
it, and ``get_user`` (which asks the same) ends a session it already has."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.contrib.auth.backends import ModelBackend
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest

from accounts import services
from api.client_address import client_address

if TYPE_CHECKING:
    from django.contrib.auth.models import User


class LockoutModelBackend(ModelBackend):
    def authenticate(
        self, request: HttpRequest | None, username: str | None = None, password: str | None = None, **kwargs: Any
    ) -> User | None:
        if username is None or password is None:
            return None
        client = kwargs.pop("client", None)
        if client is None:
            client = client_address(request) if request is not None else ""
        if services.password_lock_seconds(username=username, client=client):
            # Stops every backend: Django's authenticate() then answers None.
            raise PermissionDenied("too many wrong passwords for this username from this address")
        user = super().authenticate(request, username=username, password=password, **kwargs)
        if user is None:
            if services.password_names_suspended_account(username=username, password=password):
                return None  # the right password: refused for the suspension, not counted as a guess
            services.password_failure_record(username=username, client=client)
        else:
            services.password_failures_clear(username=username, client=client)
        return user

    def user_can_authenticate(self, user: Any) -> bool:
        if not super().user_can_authenticate(user):
            return False
        player = getattr(user, "player", None)
        return player is None or not player.is_suspended
