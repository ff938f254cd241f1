"""DRF permissions that check the scopes of the Bearer token that made the request.

    permission_classes = [CanRead]        # reading
    permission_classes = [CanPlay]        # acting: moves, create/join/resign
    permission_classes = [CanReadOrPlay]  # safe methods need read, unsafe need play

A request without a token (anonymous, or a test's `force_authenticate(user)`
without `token=`) holds no scopes. Anonymous callers get 401, not 403.
"""

from __future__ import annotations

from rest_framework.permissions import SAFE_METHODS, BasePermission

from accounts.errors import InsufficientScopeError
from accounts.models import ApiToken, Scope


def _require_scope(request, scope: str) -> bool:  # type: ignore[no-untyped-def]
    if not (request.user and request.user.is_authenticated):
        return False  # DRF turns this into 401 with WWW-Authenticate
    token = request.auth
    if isinstance(token, ApiToken) and token.has_scope(scope):
        return True
    raise InsufficientScopeError(
        f"This token lacks the `{scope}` scope. Mint a token with it at POST /api/v1/tokens/.",
        required_scope=scope,
    )


class CanRead(BasePermission):
    def has_permission(self, request, view) -> bool:  # type: ignore[no-untyped-def]
        return _require_scope(request, Scope.READ)


class CanPlay(BasePermission):
    def has_permission(self, request, view) -> bool:  # type: ignore[no-untyped-def]
        return _require_scope(request, Scope.PLAY)


class CanReadOrPlay(BasePermission):
    def has_permission(self, request, view) -> bool:  # type: ignore[no-untyped-def]
        return _require_scope(request, Scope.READ if request.method in SAFE_METHODS else Scope.PLAY)
