"""Thin views: validate input, call one service or selector, serialise the result."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.db.models import QuerySet
from django.http import Http404
from django.urls import reverse
from django.utils.translation import gettext
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema, extend_schema_view
from rest_framework import generics, status
from rest_framework.permissions import AllowAny, BasePermission
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.settings import api_settings
from rest_framework.views import APIView

from api.client_address import client_address
from api.openapi import THROTTLED, location_header, problem_responses
from api.throttling import ScopedRateThrottle
from core.errors import DomainError

from accounts import selectors, services
from accounts.errors import (
    AccountSuspendedError,
    ConfirmationRequiredError,
    EmailAddressTakenError,
    EmailAddressUnverifiedError,
    InvalidCredentialsError,
    LoginLockedError,
    TooManyAttemptsError,
    TooManyCodesError,
    VerificationError,
    VerificationExpiredError,
)
from accounts.language import language_from_request
from accounts.models import ApiToken
from accounts.selectors import AddressEntry
from accounts.permissions import CanPlay, CanRead, CanReadOrPlay, request_user
from accounts.serializers import (
    AccountProblemSerializer,
    CalendarUrlSerializer,
    EmailAddressAddSerializer,
    EmailAddressSerializer,
    EmailAddressVerifySerializer,
    EraseSerializer,
    MeSerializer,
    MeUpdateSerializer,
    PasswordSetSerializer,
    ResendAcceptedSerializer,
    ResendSerializer,
    SignupAcceptedSerializer,
    SignupSerializer,
    TokenCreatedSerializer,
    TokenCreateSerializer,
    TokenRecoverAcceptedSerializer,
    TokenRecoverConfirmSerializer,
    TokenRecoverSerializer,
    TokenSerializer,
    VerifySerializer,
)

if TYPE_CHECKING:
    from django.contrib.auth.models import User

# What the authentication and the scope checks answer, on every view that takes a token.
AUTH_PROBLEMS = {
    401: "not_authenticated, invalid_token, token_revoked, account_disabled, account_suspended: send "
    "`Authorization: Bearer <token>` with a token that works.",
    403: "insufficient_scope: the token lacks the scope this endpoint needs.",
}
VALIDATION = {400: "validation_error: see `errors` for each field."}


def _problems(
    *problems: type[DomainError], extra: dict[int, str] | None = None, auth: bool = True
) -> dict[Any, OpenApiResponse]:
    """Error responses, each status with the stable codes it can carry, under the
    media type they are sent with (not application/json). Every API view is rate
    limited (REST_FRAMEWORK throttles), so 429 `throttled` is always one."""
    notes = {**(AUTH_PROBLEMS if auth else {}), 429: THROTTLED}
    return problem_responses(problems, serializer=AccountProblemSerializer, notes=notes, extra=extra)

RETRY_AFTER = OpenApiParameter(
    "Retry-After",
    OpenApiTypes.INT,
    location=OpenApiParameter.HEADER,
    response=[429],
    description="Seconds to wait before trying again.",
)


class PlayerSignupView(APIView):
    permission_classes = [AllowAny]
    authentication_classes = []

    @extend_schema(
        operation_id="players_signup",
        summary="Sign up",
        description="Answers 202 and emails a code to verify at POST /api/v1/players/verify/. A sign-up "
        "that was never verified gives way: one with the same email address is replaced (at most "
        "five codes a day go to one sign-up: 429 `too_many_codes`), and one whose code has expired or "
        "been guessed at too often no longer holds its username. Emails with codes are also limited per "
        "address and per caller's address (429 `too_many_codes`, with nothing kept).",
        request=SignupSerializer,
        responses={
            202: SignupAcceptedSerializer,
            **_problems(TooManyCodesError, extra=VALIDATION, auth=False),
        },
        parameters=[RETRY_AFTER],
        auth=[],
    )
    def post(self, request: Request) -> Response:
        serializer = SignupSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = dict(serializer.validated_data)
        data.setdefault("language", language_from_request(request))
        user = services.signup_start(**data, client=client_address(request))
        body = {
            "username": user.username,
            "email": user.email,
            "detail": gettext("Check your email for a verification code, then POST it to /api/v1/players/verify/."),
        }
        return Response(body, status=status.HTTP_202_ACCEPTED)


class PlayerVerifyView(APIView):
    permission_classes = [AllowAny]
    authentication_classes = []

    @extend_schema(
        operation_id="players_verify",
        summary="Verify the email address with the emailed code",
        description="A code works for 24 hours and five tries. After the fifth wrong code the answer "
        "is 429 `too_many_attempts`, whose Retry-After says when POST /api/v1/players/resend/ will "
        "send a new code; an expired code is 400 `verification_expired`.",
        request=VerifySerializer,
        responses={
            200: MeSerializer,
            **_problems(
                VerificationError, VerificationExpiredError, TooManyAttemptsError, extra=VALIDATION, auth=False
            ),
        },
        parameters=[RETRY_AFTER],
        auth=[],
    )
    def post(self, request: Request) -> Response:
        serializer = VerifySerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        user = services.signup_verify(**serializer.validated_data)
        return Response(MeSerializer(user.player).data)


def resend_accepted() -> str:
    return gettext(
        "If a sign-up under that name is waiting for verification, a new code is on its way to its email "
        "address; earlier codes no longer work. A sign-up gets at most one code every %(seconds)d seconds and "
        "%(per_day)d a day."
    ) % {
        "seconds": int(services.VERIFICATION_RESEND_INTERVAL.total_seconds()),
        "per_day": services.VERIFICATION_CODES_PER_DAY,
    }


class PlayerResendView(APIView):
    permission_classes = [AllowAny]
    authentication_classes = []
    # On top of the usual limits: each call may send an email.
    # The stubs type the setting as its import strings; api_settings hands out the classes.
    throttle_classes = [*api_settings.DEFAULT_THROTTLE_CLASSES, ScopedRateThrottle]  # type: ignore[list-item]
    throttle_scope = "signup_resend"

    @extend_schema(
        operation_id="players_resend",
        summary="Email a new verification code",
        description="For a sign-up that is not verified yet, by `username` or `email`. The answer is the "
        "same whether or not such a sign-up exists, so it tells nothing about who has an account.",
        request=ResendSerializer,
        responses={202: ResendAcceptedSerializer, **_problems(extra=VALIDATION, auth=False)},
        parameters=[RETRY_AFTER],
        auth=[],
    )
    def post(self, request: Request) -> Response:
        serializer = ResendSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        services.signup_code_resend(**serializer.validated_data, client=client_address(request))
        return Response({"detail": resend_accepted()}, status=status.HTTP_202_ACCEPTED)


@extend_schema_view(
    get=extend_schema(
        operation_id="tokens_list",
        summary="Your API tokens (never their secrets)",
        responses={
            200: TokenSerializer(many=True),
            **_problems(extra={400: "validation_error: `limit` or `offset` is not a whole number in range."}),
        },
        parameters=[RETRY_AFTER],
    )
)
class TokenListCreateView(generics.ListAPIView[ApiToken]):
    serializer_class = TokenSerializer

    def get_permissions(self) -> list[BasePermission]:
        # Minting accepts a password instead of a token; post() checks either.
        return [AllowAny()] if self.request.method == "POST" else [CanRead()]

    def get_queryset(self) -> QuerySet[ApiToken]:
        return selectors.token_list(user=request_user(self.request))

    @extend_schema(
        operation_id="tokens_create",
        summary="Mint a token",
        description="Authenticate with a `play` token, or give `username` and `password` in the body "
        "(for the first token). The secret is in the response once and never again.",
        request=TokenCreateSerializer,
        responses={201: TokenCreatedSerializer, **_problems(InvalidCredentialsError, AccountSuspendedError, LoginLockedError, extra=VALIDATION)},
        parameters=[RETRY_AFTER, location_header("The new token (DELETE it to revoke it)")],
    )
    def post(self, request: Request) -> Response:
        serializer = TokenCreateSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        if data.get("username"):
            user = services.login_check(
                username=data["username"], password=data["password"], client=client_address(request)
            )
        else:
            if not CanPlay().has_permission(request, self):
                self.permission_denied(request)  # anonymous: 401 with the Bearer challenge
            user = request_user(request)
        token, plaintext = services.token_create(user=user, name=data["name"], scopes=data["scopes"])
        return _token_created(token, plaintext)


class TokenDetailView(APIView):
    permission_classes = [CanPlay]

    @extend_schema(
        operation_id="tokens_revoke",
        summary="Revoke one of your tokens",
        request=None,
        responses={204: None, **_problems(extra={404: "not_found: you have no token with this id."})},
        parameters=[RETRY_AFTER],
    )
    def delete(self, request: Request, token_id: int) -> Response:
        user = request_user(request)
        token = selectors.token_get_for_user(user=user, token_id=token_id)
        if token is None:
            raise Http404
        services.token_revoke(token=token, by_user=user)
        return Response(status=status.HTTP_204_NO_CONTENT)


class MeView(APIView):
    permission_classes = [CanReadOrPlay]

    @extend_schema(
        operation_id="me",
        summary="The player this token belongs to",
        responses={200: MeSerializer, **_problems()},
        parameters=[RETRY_AFTER],
    )
    def get(self, request: Request) -> Response:
        player = services.player_for_user(user=request_user(request))
        return Response(MeSerializer(player, context={"token": request.auth}).data)

    @extend_schema(
        operation_id="me_update",
        summary="Change your settings",
        description="`time_zone`: an IANA time zone name (\"Europe/Riga\", \"America/New_York\", \"UTC\"). "
        "Deadlines in email are shown in it and the daily digest goes out at your digest hour in it. "
        "`confirm_moves`: true (the default) to have the game page ask before it sends a move. "
        "`language`: en, it or lv, the language of your emails, email replies and pages. Needs a "
        "`play` token.",
        request=MeUpdateSerializer,
        responses={200: MeSerializer, **_problems(extra=VALIDATION)},
        parameters=[RETRY_AFTER],
    )
    def patch(self, request: Request) -> Response:
        serializer = MeUpdateSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        user = request_user(request)
        if "time_zone" in serializer.validated_data:
            services.player_time_zone_set(user=user, time_zone=serializer.validated_data["time_zone"])
        if "confirm_moves" in serializer.validated_data:
            services.player_confirm_moves_set(user=user, confirm_moves=serializer.validated_data["confirm_moves"])
        if "language" in serializer.validated_data:
            services.player_language_set(user=user, language=serializer.validated_data["language"])
        player = services.player_for_user(user=user)
        player.refresh_from_db()
        return Response(MeSerializer(player, context={"token": request.auth}).data)

    @extend_schema(
        operation_id="me_erase",
        summary="Erase your account for good",
        description="Send your username as `confirm`. Your username becomes `deleted-<id>`, your display name "
        "`deleted player <id>`, your email address and tokens are deleted and the account can never be used "
        "again. Your seats in finished and active games stay, under that name, so that no game loses its "
        "history; your seats in active games leave them at once (as a timeout does) and your invitations are "
        "declined. Needs a `play` token.",
        request=EraseSerializer,
        responses={204: None, **_problems(ConfirmationRequiredError, extra=VALIDATION)},
        parameters=[RETRY_AFTER],
    )
    def delete(self, request: Request) -> Response:
        serializer = EraseSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        services.player_erase_confirmed(user=request_user(request), confirm=serializer.validated_data.get("confirm"))
        return Response(status=status.HTTP_204_NO_CONTENT)


class CalendarRotateView(APIView):
    permission_classes = [CanPlay]

    @extend_schema(
        operation_id="me_calendar_rotate",
        summary="Replace the address of your deadlines calendar",
        description="Makes a new secret address for your deadlines calendar (`calendar_url`, docs/calendar.md) "
        "and answers with it; the old address answers 404 from now on, so calendar apps subscribed to it stop "
        "updating until given the new one. Needs a `play` token.",
        request=None,
        responses={200: CalendarUrlSerializer, **_problems()},
        parameters=[RETRY_AFTER],
    )
    def post(self, request: Request) -> Response:
        feed = services.calendar_feed_rotate(user=request_user(request))
        return Response({"calendar_url": services.calendar_url(feed=feed)})


class PasswordView(APIView):
    permission_classes = [CanPlay]

    @extend_schema(
        operation_id="me_password",
        summary="Set your password",
        description="Sets a password (or a new one) for minting tokens with `username` and `password`. It must "
        "pass the password checks: a 400 lists what they say in `errors.password`.",
        request=PasswordSetSerializer,
        responses={204: None, **_problems(extra=VALIDATION)},
        parameters=[RETRY_AFTER],
    )
    def post(self, request: Request) -> Response:
        serializer = PasswordSetSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        services.password_set(user=request_user(request), password=serializer.validated_data["password"])
        return Response(status=status.HTTP_204_NO_CONTENT)


def recover_accepted() -> str:
    return gettext(
        "If an account has this address, a code is on its way to it; earlier recovery codes no longer work. Send it "
        "to POST /api/v1/tokens/recover/confirm/ within %(minutes)d minutes. An account gets at most one code every "
        "%(seconds)d seconds and %(per_day)d a day."
    ) % {
        "minutes": int(services.RECOVERY_LIFETIME.total_seconds()) // 60,
        "seconds": int(services.VERIFICATION_RESEND_INTERVAL.total_seconds()),
        "per_day": services.VERIFICATION_CODES_PER_DAY,
    }


class TokenRecoverView(APIView):
    permission_classes = [AllowAny]
    authentication_classes = []
    # On top of the usual limits: each call may send an email.
    throttle_classes = [*api_settings.DEFAULT_THROTTLE_CLASSES, ScopedRateThrottle]  # type: ignore[list-item]
    throttle_scope = "token_recover"

    @extend_schema(
        operation_id="tokens_recover",
        summary="Email a code to mint a new token",
        description="For a player who lost their token (and has no password to mint one with). The answer is "
        "the same whether or not an account has the address, so it tells nothing about who has one.",
        request=TokenRecoverSerializer,
        responses={202: TokenRecoverAcceptedSerializer, **_problems(extra=VALIDATION, auth=False)},
        parameters=[RETRY_AFTER],
        auth=[],
    )
    def post(self, request: Request) -> Response:
        serializer = TokenRecoverSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        services.token_recovery_start(email=serializer.validated_data["email"], client=client_address(request))
        return Response({"detail": recover_accepted()}, status=status.HTTP_202_ACCEPTED)


class TokenRecoverConfirmView(APIView):
    permission_classes = [AllowAny]
    authentication_classes = []

    @extend_schema(
        operation_id="tokens_recover_confirm",
        summary="Mint a new token with the emailed code",
        description="The new token has the `read` and `play` scopes; its secret is in the response once and never "
        "again. Your other tokens keep working: revoke a lost one at DELETE /api/v1/tokens/{id}/. A code works "
        "once, for an hour and five tries. Every refusal is the same 400 `verification_failed`, whether the "
        "address is unknown or the code wrong, expired, used or tried too often.",
        request=TokenRecoverConfirmSerializer,
        responses={201: TokenCreatedSerializer, **_problems(VerificationError, extra=VALIDATION, auth=False)},
        parameters=[RETRY_AFTER, location_header("The new token (DELETE it to revoke it)")],
        auth=[],
    )
    def post(self, request: Request) -> Response:
        serializer = TokenRecoverConfirmSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        token, plaintext = services.token_recovery_confirm(**serializer.validated_data)
        return _token_created(token, plaintext)


def _token_created(token: ApiToken, plaintext: str) -> Response:
    body = TokenCreatedSerializer(token, context={"plaintext": plaintext}).data
    response = Response(body, status=status.HTTP_201_CREATED)
    response["Location"] = reverse("token-detail", kwargs={"token_id": token.pk})
    return response


# --- your addresses ---------------------------------------------------------------------

ADDRESS_NOT_FOUND = {404: "not_found: you have no added address with this id (the primary address has none)."}


def _addresses(request: Request) -> Response:
    addresses = selectors.email_addresses_list(user=request_user(request))
    # many=True takes a list, which the stubs' Serializer[AddressEntry] does not say.
    return Response(EmailAddressSerializer(addresses, many=True).data)  # type: ignore[arg-type]


def _entry(user: User, address_id: int) -> AddressEntry:
    entry = selectors.email_address_get(user=user, address_id=address_id)
    if entry is None:  # removed meanwhile by another request of the account
        raise Http404
    return entry


class EmailAddressListView(APIView):
    permission_classes = [CanReadOrPlay]

    @extend_schema(
        operation_id="me_emails",
        summary="Your email addresses",
        description="The primary address first (game email goes to it; its `id` is null: it is your account's "
        "`email`), then the addresses you added. A reply by email from any verified address plays; one from an "
        "address that is not verified never does.",
        responses={200: EmailAddressSerializer(many=True), **_problems()},
        parameters=[RETRY_AFTER],
    )
    def get(self, request: Request) -> Response:
        return _addresses(request)

    @extend_schema(
        operation_id="me_emails_add",
        summary="Add an email address",
        description="Emails a code to the address; send it to POST /api/v1/me/emails/{id}/verify/ within 24 hours. "
        "Adding an address that is waiting for its code again sends a new code (the earlier one stops working). "
        "An address another account uses is 409 `email_address_taken`. Codes are limited per account, per "
        "address and per caller's address (429 `too_many_codes`). Needs a `play` token.",
        request=EmailAddressAddSerializer,
        responses={
            201: EmailAddressSerializer,
            **_problems(EmailAddressTakenError, TooManyCodesError, extra=VALIDATION),
        },
        parameters=[RETRY_AFTER, location_header("The added address")],
    )
    def post(self, request: Request) -> Response:
        serializer = EmailAddressAddSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        user = request_user(request)
        row = services.email_address_add(
            user=user, address=serializer.validated_data["address"], client=client_address(request)
        )
        response = Response(EmailAddressSerializer(_entry(user, row.pk)).data, status=status.HTTP_201_CREATED)
        response["Location"] = reverse("me-email-detail", kwargs={"address_id": row.pk})
        return response


class EmailAddressDetailView(APIView):
    permission_classes = [CanPlay]

    @extend_schema(
        operation_id="me_emails_remove",
        summary="Remove an added email address",
        description="Replies from it no longer play. The primary address cannot be removed: make another "
        "address primary first. Needs a `play` token.",
        request=None,
        responses={204: None, **_problems(extra=ADDRESS_NOT_FOUND)},
        parameters=[RETRY_AFTER],
    )
    def delete(self, request: Request, address_id: int) -> Response:
        try:
            services.email_address_remove(user=request_user(request), address_id=address_id)
        except services.EmailAddressNotFoundError:
            raise Http404 from None
        return Response(status=status.HTTP_204_NO_CONTENT)


class EmailAddressVerifyView(APIView):
    permission_classes = [CanPlay]

    @extend_schema(
        operation_id="me_emails_verify",
        summary="Verify an added address with the emailed code",
        description="A code works for 24 hours and five tries: a wrong one is 400 `verification_failed` with "
        "`attempts_left`, the fifth 429 `too_many_attempts`; an expired one is 400 `verification_expired` (add "
        "the address again for a new code). An address another account verified meanwhile is 409 "
        "`email_address_taken`. Verifying a verified address changes nothing. Needs a `play` token.",
        request=EmailAddressVerifySerializer,
        responses={
            200: EmailAddressSerializer,
            **_problems(
                VerificationError,
                VerificationExpiredError,
                TooManyAttemptsError,
                EmailAddressTakenError,
                extra={**VALIDATION, **ADDRESS_NOT_FOUND},
            ),
        },
        parameters=[RETRY_AFTER],
    )
    def post(self, request: Request, address_id: int) -> Response:
        serializer = EmailAddressVerifySerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        user = request_user(request)
        try:
            row = services.email_address_verify(
                user=user, address_id=address_id, code=serializer.validated_data["code"]
            )
        except services.EmailAddressNotFoundError:
            raise Http404 from None
        return Response(EmailAddressSerializer(_entry(user, row.pk)).data)


class EmailAddressPrimaryView(APIView):
    permission_classes = [CanPlay]

    @extend_schema(
        operation_id="me_emails_make_primary",
        summary="Make a verified address your primary address",
        description="Game email goes to it from now on, and it becomes your account's `email`; the old primary "
        "address becomes an added address, verified (with a new `id`), and is told of the change. Answers with "
        "all your addresses. An address that is not verified is 409 `email_address_unverified`. Needs a `play` "
        "token.",
        request=None,
        responses={
            200: EmailAddressSerializer(many=True),
            **_problems(EmailAddressUnverifiedError, extra=ADDRESS_NOT_FOUND),
        },
        parameters=[RETRY_AFTER],
    )
    def post(self, request: Request, address_id: int) -> Response:
        try:
            services.email_address_make_primary(user=request_user(request), address_id=address_id)
        except services.EmailAddressNotFoundError:
            raise Http404 from None
        return _addresses(request)
