"""DRF permissions that check the scopes of the Bearer token that made the request.

    permission_classes = [CanRead]        # reading
    permission_classes = [CanPlay]        # acting: moves, create/join/resign
    permission_classes = [CanReadOrPlay]  # safe methods need read, unsafe need play

A request without a token (anonymous, or a test's `force_authenticate(user)`
without `token=`) holds no scopes. Anonymous callers get 401, not 403, with a
message that says how to send a token.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.utils.translation import gettext
from rest_framework.permissions import SAFE_METHODS, BasePermission

from accounts.authentication import missing_credentials
from accounts.errors import InsufficientScopeError
from accounts.models import ApiToken, Scope

if TYPE_CHECKING:
    from django.contrib.auth.models import User
    from rest_framework.request import Request
    from rest_framework.views import APIView


def request_user(request: Request) -> User:
    """The user of a request that one of these permissions let through.

    They let no anonymous request through, so this narrows the type for the
    views; one that got here all the same gets the 401 they would have given.
    """
    user = request.user
    if not user.is_authenticated:
        raise missing_credentials(request)
    return user


def _require_scope(request: Request, scope: str) -> bool:
    if not (request.user and request.user.is_authenticated):
        # Raised here rather than left to DRF, whose 401 says only that no
        # credentials were provided; the view still adds WWW-Authenticate.
        raise missing_credentials(request)
    token = request.auth
    if isinstance(token, ApiToken) and token.has_scope(scope):
        return True
    raise InsufficientScopeError(
        gettext("This token lacks the `%(scope)s` scope. Mint a token with it at POST /api/v1/tokens/.")
        % {"scope": scope},
        required_scope=scope,
    )


class CanRead(BasePermission):
    def has_permission(self, request: Request, view: APIView) -> bool:
        return _require_scope(request, Scope.READ)


class CanPlay(BasePermission):
    def has_permission(self, request: Request, view: APIView) -> bool:
        return _require_scope(request, Scope.PLAY)


class CanReadOrPlay(BasePermission):
    def has_permission(self, request: Request, view: APIView) -> bool:
        return _require_scope(request, Scope.READ if request.method in SAFE_METHODS else Scope.PLAY)
