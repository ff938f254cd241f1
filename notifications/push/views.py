"""The push API: thin views that validate, call one service or selector, and
serialise. GET /api/v1/push/key/ is public; the subscriptions are the caller's
own (a token's owner or the signed-in person, notifications.push.permissions)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.urls import reverse
from django.utils.translation import gettext
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.authentication import BearerTokenAuthentication
from accounts.permissions import request_user
from api.openapi import location_header, problem_responses
from core.errors import DomainError
from games.schema import GameProblemSerializer
from notifications.models import PushSubscription
from notifications.push.errors import PushNotConfigured, PushSubscriptionNotFound, TooManyPushSubscriptions
from notifications.push import schema  # noqa: F401  (the session's scheme in the OpenAPI schema)
from notifications.push.keys import push_enabled
from notifications.push.permissions import CsrfSessionAuthentication, SessionOrCanReadOrPlay
from notifications.push.selectors import endpoint_host, push_subscriptions_of
from notifications.push.serializers import (
    PushKeySerializer,
    PushSubscriptionInputSerializer,
    PushSubscriptionSerializer,
)
from notifications.push.services import push_subscription_delete, push_subscription_save

_AUTH_PROBLEMS = {
    401: "not_authenticated, invalid_token, token_revoked, account_disabled, account_suspended: send "
    "`Authorization: Bearer <token>` with a token that works, or call from a signed-in page of the site "
    "(its session cookie and X-CSRFToken).",
    403: "insufficient_scope: the token lacks the scope this endpoint needs (read to look, play to change); "
    "a page's request without a valid CSRF token is refused too.",
    429: "throttled: too many requests; see Retry-After.",
}
_VALIDATION = {400: "validation_error: see `errors` (endpoint, keys.p256dh, keys.auth)."}
_SUBSCRIPTION_ID = OpenApiParameter(
    "subscription_id", OpenApiTypes.INT, OpenApiParameter.PATH, description="The subscription's id."
)


def _problems(*problems: type[DomainError], extra: dict[int, str] | None = None) -> dict[Any, OpenApiResponse]:
    return problem_responses(problems, serializer=GameProblemSerializer, notes=_AUTH_PROBLEMS, extra=extra)


def _shown(subscription: PushSubscription) -> dict[str, Any]:
    return dict(
        PushSubscriptionSerializer(
            {
                "id": subscription.pk,
                "endpoint_host": endpoint_host(subscription.endpoint),
                "created_at": subscription.created_at,
            }
        ).data
    )


class PushKeyView(APIView):
    authentication_classes: list[Any] = []
    permission_classes = [AllowAny]

    @extend_schema(
        operation_id="push_key",
        summary="The server's VAPID public key",
        description="What a page passes to `pushManager.subscribe()` as `applicationServerKey`. Needs no "
        "authentication. 404 `push_not_configured` when the server has no VAPID keys: push is off.",
        responses={
            200: PushKeySerializer,
            **problem_responses(
                (PushNotConfigured,),
                serializer=GameProblemSerializer,
                notes={429: "throttled: too many requests; see Retry-After."},
            ),
        },
    )
    def get(self, request: Request) -> Response:
        if not push_enabled():
            raise PushNotConfigured(
                gettext("This server sends no push notifications: it has no VAPID keys. Email still reaches you.")
            )
        return Response(PushKeySerializer({"public_key": settings.VAPID_PUBLIC_KEY}).data)


class PushSubscriptionListView(APIView):
    authentication_classes = [BearerTokenAuthentication, CsrfSessionAuthentication]
    permission_classes = [SessionOrCanReadOrPlay]

    @extend_schema(
        operation_id="me_push_subscriptions",
        summary="Your push subscriptions",
        description="Each browser that gets your push notifications: its id, the push service's host (never "
        "the rest of the endpoint) and when it subscribed.",
        responses={200: PushSubscriptionSerializer(many=True), **_problems()},
    )
    def get(self, request: Request) -> Response:
        return Response([_shown(s) for s in push_subscriptions_of(user_id=request_user(request).pk)])

    @extend_schema(
        operation_id="me_push_subscriptions_create",
        summary="Subscribe a browser to push notifications",
        description="Send the browser's PushSubscription (`subscription.toJSON()`). The endpoint must be an "
        "https URL on a public address; the keys must be a P-256 point and a 16-byte auth secret. Posting an "
        "endpoint again updates it (200) rather than adding another (201). At most "
        "PUSH_SUBSCRIPTIONS_PER_ACCOUNT (10) per account.",
        parameters=[location_header("The new subscription (DELETE it to unsubscribe)")],
        request=PushSubscriptionInputSerializer,
        responses={
            201: PushSubscriptionSerializer,
            200: PushSubscriptionSerializer,
            **_problems(TooManyPushSubscriptions, extra=_VALIDATION),
        },
    )
    def post(self, request: Request) -> Response:
        serializer = PushSubscriptionInputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        subscription, created = push_subscription_save(
            user=request_user(request),
            endpoint=data["endpoint"],
            p256dh=data["keys"]["p256dh"],
            auth=data["keys"]["auth"],
        )
        if not created:
            return Response(_shown(subscription))
        location = reverse("me-push-subscription", kwargs={"subscription_id": subscription.pk})
        return Response(_shown(subscription), status=status.HTTP_201_CREATED, headers={"Location": location})


class PushSubscriptionDetailView(APIView):
    authentication_classes = [BearerTokenAuthentication, CsrfSessionAuthentication]
    permission_classes = [SessionOrCanReadOrPlay]

    @extend_schema(
        operation_id="me_push_subscriptions_delete",
        summary="Unsubscribe a browser",
        description="Nothing more is pushed to it. Only your own subscriptions can be deleted.",
        parameters=[_SUBSCRIPTION_ID],
        request=None,
        responses={204: None, **_problems(PushSubscriptionNotFound)},
    )
    def delete(self, request: Request, subscription_id: int) -> Response:
        push_subscription_delete(user=request_user(request), subscription_id=subscription_id)
        return Response(status=status.HTTP_204_NO_CONTENT)
