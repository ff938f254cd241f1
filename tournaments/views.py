"""The tournaments REST API: thin views that call one selector or service and
serialise (docs/tournaments.md, "The API")."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from django.urls import reverse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.permissions import CanReadOrPlay, request_user
from api.openapi import location_header, problem_responses
from core.errors import DomainError
from leagues.schema import LeagueProblemSerializer
from tournaments import errors, selectors, services
from tournaments.models import Entry, Tournament, TournamentFollow
from tournaments.serializers import (
    TournamentEntrySerializer,
    TournamentInviteInputSerializer,
    TournamentCreateInputSerializer,
    TournamentDetailSerializer,
    TournamentSerializer,
)

_AUTH_PROBLEMS = {
    401: "not_authenticated, invalid_token, token_revoked, account_disabled, account_suspended: send `Authorization: Bearer <token>` "
    "with a token that works.",
    403: "insufficient_scope: the token lacks the scope this endpoint needs (read to look, play to act).",
    429: "throttled: too many requests; see Retry-After.",
}


def _problems(*problems: type[DomainError]) -> dict[Any, OpenApiResponse]:
    return problem_responses(problems, serializer=LeagueProblemSerializer, notes=_AUTH_PROBLEMS)


_View = TypeVar("_View", bound=Callable[..., Response])

_ID = OpenApiParameter("tournament_id", OpenApiTypes.INT, OpenApiParameter.PATH, description="The tournament's id.")
_STATUS = OpenApiParameter(
    "status", OpenApiTypes.STR, OpenApiParameter.QUERY, required=False, enum=list(Tournament.Status.values),
    description="Only tournaments in this state.",
)  # fmt: skip


def _with_players(tournament: Tournament) -> Tournament:
    tournament.players = tournament.entries.filter(  # type: ignore[attr-defined]
        status__in=[Entry.Status.ACTIVE, Entry.Status.ELIMINATED]
    ).count()
    return tournament


def _detail(tournament: Tournament, request: Request) -> dict[str, Any]:
    user = request_user(request)
    _with_players(tournament)
    entry = Entry.objects.filter(tournament=tournament, user=user).values_list("status", flat=True).first()
    tournament.your_entry = entry  # type: ignore[attr-defined]
    tournament.organiser = selectors.is_organiser(tournament, user)  # type: ignore[attr-defined]
    tournament.following = TournamentFollow.objects.filter(tournament=tournament, user=user).exists()  # type: ignore[attr-defined]
    tournament.rounds_planned = selectors.rounds_planned(tournament)  # type: ignore[attr-defined]
    tournament.rounds_shown = selectors.rounds_view(tournament)  # type: ignore[attr-defined]
    tournament.standings = selectors.standings_rows(tournament)  # type: ignore[attr-defined]
    return dict(TournamentDetailSerializer(tournament).data)


class TournamentListView(APIView):
    permission_classes = [CanReadOrPlay]

    @extend_schema(
        operation_id="tournaments_list",
        summary="Tournaments",
        description="The tournaments you may see: every public one, and the private ones you are in or organise.",
        parameters=[_STATUS],
        responses={200: TournamentSerializer(many=True), **_problems(errors.InvalidTournament)},
    )
    def get(self, request: Request) -> Response:
        wanted = request.query_params.get("status")
        if wanted is not None and wanted not in Tournament.Status.values:
            raise errors.InvalidTournament(f"status is one of {', '.join(Tournament.Status.values)}.", field="status",
                                           rule="T-FORMAT")  # fmt: skip
        found = selectors.tournament_list(user=request_user(request), status=wanted)[:200]
        return Response(TournamentSerializer([_with_players(t) for t in found], many=True).data)

    @extend_schema(
        operation_id="tournaments_create",
        summary="Create a tournament",
        description="Swiss (tables of 2-4, a number of rounds) or knockout (two-player matches of games_per_match "
        "games). You organise it; join it to play. docs/tournaments.md.",
        request=TournamentCreateInputSerializer,
        parameters=[location_header("The new tournament")],
        responses={201: TournamentDetailSerializer, **_problems(errors.InvalidTournament, errors.NotAnOrganiser)},
    )
    def post(self, request: Request) -> Response:
        body = TournamentCreateInputSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        fields = dict(body.validated_data)
        if "rounds" not in fields:
            fields["rounds"] = None
        tournament = services.tournament_create(creator=request_user(request), **fields)
        response = Response(_detail(tournament, request), status=status.HTTP_201_CREATED)
        response["Location"] = reverse("tournaments:tournament-detail", kwargs={"tournament_id": tournament.pk})
        return response


class TournamentDetailView(APIView):
    permission_classes = [CanReadOrPlay]

    @extend_schema(
        operation_id="tournaments_retrieve",
        summary="A tournament",
        description="Its settings, its rounds with their tables and results, and the standings with their "
        "tiebreaks (points, Buchholz, prestige, rating).",
        parameters=[_ID],
        responses={200: TournamentDetailSerializer, **_problems(errors.TournamentNotFound)},
    )
    def get(self, request: Request, tournament_id: int) -> Response:
        tournament = selectors.tournament_get_visible(tournament_id=tournament_id, user=request_user(request))
        return Response(_detail(tournament, request))


def _entry_view(
    operation: str, summary: str, description: str, *problems: type[DomainError]
) -> Callable[[_View], _View]:
    return extend_schema(
        operation_id=operation, summary=summary, description=description, parameters=[_ID], request=None,
        responses={200: TournamentEntrySerializer, **_problems(errors.TournamentNotFound, *problems)},
    )  # fmt: skip


class TournamentJoinView(APIView):
    permission_classes = [CanReadOrPlay]

    @_entry_view(
        "tournaments_join", "Join a tournament",
        "Enter an open tournament, or accept an invitation to a private one.",
        errors.TournamentClosed, errors.TournamentFull, errors.AlreadyEntered, errors.InvitationOnly,
    )  # fmt: skip
    def post(self, request: Request, tournament_id: int) -> Response:
        user = request_user(request)
        selectors.tournament_get_visible(tournament_id=tournament_id, user=user)
        entry = services.tournament_join(tournament_id=tournament_id, user=user)
        return Response({"tournament": tournament_id, "status": entry.status})


class TournamentLeaveView(APIView):
    permission_classes = [CanReadOrPlay]

    @_entry_view(
        "tournaments_leave", "Leave a tournament",
        "Before it starts your entry goes; after, you withdraw: your running games of it are resigned and you "
        "are not paired again (your finished games still count for the others). A finished tournament is not left.",
        errors.NotEntered, errors.TournamentClosed,
    )  # fmt: skip
    def post(self, request: Request, tournament_id: int) -> Response:
        user = request_user(request)
        selectors.tournament_get_visible(tournament_id=tournament_id, user=user)
        entry = services.tournament_leave(tournament_id=tournament_id, user=user)
        return Response({"tournament": tournament_id, "status": entry.status})


class TournamentDeclineView(APIView):
    permission_classes = [CanReadOrPlay]

    @_entry_view("tournaments_decline", "Decline an invitation", "Turn down your invitation.", errors.NotEntered)
    def post(self, request: Request, tournament_id: int) -> Response:
        user = request_user(request)
        selectors.tournament_get_visible(tournament_id=tournament_id, user=user)
        services.tournament_decline(tournament_id=tournament_id, user=user)
        return Response({"tournament": tournament_id, "status": Entry.Status.WITHDRAWN})


class TournamentInviteView(APIView):
    permission_classes = [CanReadOrPlay]

    @extend_schema(
        operation_id="tournaments_invite",
        summary="Invite players",
        description="An organiser invites players by username; each accepts with POST .../join/.",
        parameters=[_ID],
        request=TournamentInviteInputSerializer,
        responses={200: TournamentEntrySerializer(many=True), **_problems(
            errors.TournamentNotFound, errors.NotAnOrganiser, errors.TournamentClosed, errors.InvalidTournament)},
    )  # fmt: skip
    def post(self, request: Request, tournament_id: int) -> Response:
        user = request_user(request)
        selectors.tournament_get_visible(tournament_id=tournament_id, user=user)
        body = TournamentInviteInputSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        invited = services.tournament_invite(tournament_id=tournament_id, by=user, usernames=body.validated_data["usernames"])
        return Response([{"tournament": tournament_id, "status": e.status, "username": e.user.username} for e in invited])


class TournamentStartView(APIView):
    permission_classes = [CanReadOrPlay]

    @extend_schema(
        operation_id="tournaments_start",
        summary="Start a tournament",
        description="An organiser starts the first round now (T-RHYTHM-START); invitations not taken up lapse.",
        parameters=[_ID],
        request=None,
        responses={200: TournamentDetailSerializer, **_problems(
            errors.TournamentNotFound, errors.NotAnOrganiser, errors.TournamentClosed, errors.TooFewPlayers)},
    )  # fmt: skip
    def post(self, request: Request, tournament_id: int) -> Response:
        user = request_user(request)
        selectors.tournament_get_visible(tournament_id=tournament_id, user=user)
        tournament = services.tournament_start(tournament_id=tournament_id, by=user)
        return Response(_detail(tournament, request))


class TournamentFollowView(APIView):
    permission_classes = [CanReadOrPlay]

    @extend_schema(
        operation_id="tournaments_follow",
        summary="Follow a public tournament",
        description="Its tournament_round_started and tournament_finished events reach you (stream, webhooks). "
        "DELETE stops.",
        parameters=[_ID],
        request=None,
        responses={200: TournamentEntrySerializer, **_problems(errors.TournamentNotFound, errors.InvitationOnly)},
    )
    def post(self, request: Request, tournament_id: int) -> Response:
        services.tournament_follow(tournament_id=tournament_id, user=request_user(request))
        return Response({"tournament": tournament_id, "status": "following"})

    @extend_schema(
        operation_id="tournaments_unfollow", summary="Stop following", parameters=[_ID], request=None,
        responses={200: TournamentEntrySerializer, **_problems(errors.TournamentNotFound)},
    )  # fmt: skip
    def delete(self, request: Request, tournament_id: int) -> Response:
        services.tournament_follow(tournament_id=tournament_id, user=request_user(request), follow=False)
        return Response({"tournament": tournament_id, "status": None})
