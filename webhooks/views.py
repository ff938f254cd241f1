"""The webhooks REST API: thin views that validate, call one service or
selector, and serialise. The owner always comes from the token.

Reading needs the `read` scope, registering and changing webhooks `play`
(accounts.permissions.CanReadOrPlay): a webhook only ever carries what a
player may read, but it acts on their behalf."""

from __future__ import annotations

from typing import Any

from django.urls import reverse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.generics import GenericAPIView
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.permissions import CanReadOrPlay, request_user
from api.pagination import LimitOffsetPagination
from api.openapi import location_header, problem_responses
from core.errors import DomainError
from webhooks import selectors, services
from webhooks.errors import NotALeagueAdmin, TooManyWebhooks, WebhookNotFound, WebhookUrlRefused
from webhooks.models import Delivery
from webhooks.schema import WebhookProblemSerializer
from webhooks.serializers import (
    DeliverySerializer,
    WebhookCreateInputSerializer,
    WebhookSerializer,
    WebhookUpdateInputSerializer,
    WebhookWithSecretSerializer,
)

_AUTH_PROBLEMS = {
    401: "not_authenticated, invalid_token, token_revoked, account_disabled, account_suspended: send "
    "`Authorization: Bearer <token>` with a token that works.",
    403: "insufficient_scope: the token lacks the scope this endpoint needs (read to look, play to change).",
    429: "throttled: too many requests; see Retry-After.",
}


def _problems(*problems: type[DomainError], extra: dict[int, str] | None = None) -> dict[Any, OpenApiResponse]:
    """Document error responses: every status with the stable codes it can carry."""
    return problem_responses(problems, serializer=WebhookProblemSerializer, notes=_AUTH_PROBLEMS, extra=extra)

_WEBHOOK_ID = OpenApiParameter("webhook_id", OpenApiTypes.INT, OpenApiParameter.PATH, description="The webhook's id.")
_VALIDATION = {400: "validation_error (unknown event names, a format and events or a league that do not go together)"}


class WebhookListCreateView(APIView):
    permission_classes = [CanReadOrPlay]

    @extend_schema(
        operation_id="webhooks_list",
        summary="Your webhooks",
        description="Every webhook you registered, without its secret.",
        responses={200: WebhookSerializer(many=True), **_problems()},
    )
    def get(self, request: Request) -> Response:
        endpoints = selectors.endpoint_list(owner=request_user(request))
        return Response(WebhookSerializer(endpoints, many=True).data)

    @extend_schema(
        operation_id="webhooks_create",
        summary="Register a webhook",
        description="Events of the games you play are POSTed to the URL, signed per Standard Webhooks "
        "(docs/webhooks.md). The answer carries the signing secret: it is shown this once. With `format` "
        "discord or slack, a line of text is posted to a Discord or Slack incoming webhook instead; with "
        "`league`, a league's admin has every public game of the league posted there.",
        parameters=[location_header("The new webhook")],
        request=WebhookCreateInputSerializer,
        responses={
            201: WebhookWithSecretSerializer,
            **_problems(WebhookUrlRefused, TooManyWebhooks, NotALeagueAdmin, extra=_VALIDATION),
        },
    )
    def post(self, request: Request) -> Response:
        data = WebhookCreateInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        endpoint = services.endpoint_create(
            owner=request_user(request),
            url=data.validated_data["url"],
            events=data.validated_data["events"],
            format=data.validated_data["format"],
            league_id=data.validated_data.get("league"),
        )
        response = Response(WebhookWithSecretSerializer(endpoint).data, status=status.HTTP_201_CREATED)
        response["Location"] = reverse("webhooks:webhook-detail", kwargs={"webhook_id": endpoint.pk})
        return response


class WebhookDetailView(APIView):
    permission_classes = [CanReadOrPlay]

    @extend_schema(
        operation_id="webhooks_retrieve",
        summary="One of your webhooks",
        parameters=[_WEBHOOK_ID],
        responses={200: WebhookSerializer, **_problems(WebhookNotFound)},
    )
    def get(self, request: Request, webhook_id: int) -> Response:
        endpoint = selectors.endpoint_get(owner=request_user(request), endpoint_id=webhook_id)
        return Response(WebhookSerializer(endpoint).data)

    @extend_schema(
        operation_id="webhooks_update",
        summary="Change a webhook, or turn it back on",
        description='Change `url`, `events` or `format`; `{"is_active": true}` re-enables a webhook that was disabled '
        "after failing deliveries.",
        parameters=[_WEBHOOK_ID],
        request=WebhookUpdateInputSerializer,
        responses={200: WebhookSerializer, **_problems(WebhookNotFound, WebhookUrlRefused, extra=_VALIDATION)},
    )
    def patch(self, request: Request, webhook_id: int) -> Response:
        data = WebhookUpdateInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        endpoint = selectors.endpoint_get(owner=request_user(request), endpoint_id=webhook_id)
        endpoint = services.endpoint_update(
            endpoint=endpoint,
            url=data.validated_data.get("url"),
            events=data.validated_data.get("events"),
            is_active=data.validated_data.get("is_active"),
            format=data.validated_data.get("format"),
        )
        return Response(WebhookSerializer(endpoint).data)

    @extend_schema(
        operation_id="webhooks_destroy",
        summary="Delete a webhook",
        description="Nothing more is sent to it; its deliveries are forgotten.",
        parameters=[_WEBHOOK_ID],
        responses={204: OpenApiResponse(description="Deleted."), **_problems(WebhookNotFound)},
    )
    def delete(self, request: Request, webhook_id: int) -> Response:
        endpoint = selectors.endpoint_get(owner=request_user(request), endpoint_id=webhook_id)
        services.endpoint_delete(endpoint=endpoint)
        return Response(status=status.HTTP_204_NO_CONTENT)


class WebhookRotateSecretView(APIView):
    permission_classes = [CanReadOrPlay]

    @extend_schema(
        operation_id="webhooks_rotate_secret",
        summary="A new signing secret",
        description="The old secret stops at once; the new one is shown this once.",
        parameters=[_WEBHOOK_ID],
        request=None,
        responses={200: WebhookWithSecretSerializer, **_problems(WebhookNotFound)},
    )
    def post(self, request: Request, webhook_id: int) -> Response:
        endpoint = selectors.endpoint_get(owner=request_user(request), endpoint_id=webhook_id)
        endpoint = services.endpoint_rotate_secret(endpoint=endpoint)
        return Response(WebhookWithSecretSerializer(endpoint).data)


class WebhookDeliveriesView(GenericAPIView[Delivery]):
    permission_classes = [CanReadOrPlay]
    serializer_class = DeliverySerializer

    @extend_schema(
        operation_id="webhooks_deliveries",
        summary="A webhook's deliveries",
        description="Newest first, each with its attempts (time, HTTP status, error, duration).",
        parameters=[
            _WEBHOOK_ID,
            OpenApiParameter(
                "limit",
                {"type": "integer", "minimum": 1, "maximum": LimitOffsetPagination.max_limit},
                description=f"Deliveries per page (default 20, at most {LimitOffsetPagination.max_limit}).",
            ),
            OpenApiParameter("offset", {"type": "integer", "minimum": 0}, description="How many to skip."),
        ],
        responses={200: DeliverySerializer(many=True), **_problems(WebhookNotFound, extra={400: "validation_error"})},
    )
    def get(self, request: Request, webhook_id: int) -> Response:
        endpoint = selectors.endpoint_get(owner=request_user(request), endpoint_id=webhook_id)
        page = self.paginate_queryset(selectors.delivery_list(endpoint=endpoint))
        assert page is not None  # REST_FRAMEWORK sets a DEFAULT_PAGINATION_CLASS
        return self.get_paginated_response(DeliverySerializer(page, many=True).data)
