"""Who may manage push subscriptions: a token's owner (read to look, play to
change, as everywhere in the API) or a person signed in to the site, whose page
calls the API with its session cookie and CSRF token (the settings page's "turn
on push" button). A session stands for the account itself: it holds every scope."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rest_framework.authentication import SessionAuthentication
from rest_framework.permissions import BasePermission

from accounts.permissions import CanReadOrPlay

if TYPE_CHECKING:
    from rest_framework.request import Request
    from rest_framework.views import APIView


class CsrfSessionAuthentication(SessionAuthentication):
    """The site's session, with Django's CSRF check on every unsafe method
    (DRF's SessionAuthentication enforces it); never a suspended player's."""

    def authenticate(self, request: Request) -> tuple[object, None] | None:
        found = super().authenticate(request)
        if found is None:
            return None
        player = getattr(found[0], "player", None)
        if player is None or player.is_suspended or player.erased_at is not None:
            return None
        return found


class SessionOrCanReadOrPlay(BasePermission):
    def has_permission(self, request: Request, view: APIView) -> bool:
        if request.user and request.user.is_authenticated and request.auth is None and request.successful_authenticator:
            return isinstance(request.successful_authenticator, CsrfSessionAuthentication)
        return CanReadOrPlay().has_permission(request, view)
