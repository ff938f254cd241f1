"""The leagues REST API: thin views that call one selector or service and serialise."""

from __future__ import annotations

from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.errors import PlayerNotFoundError
from accounts.permissions import CanRead, CanReadOrPlay, request_user
from api.openapi import problem_responses
from core.errors import DomainError
from leagues import selectors, services
from leagues.errors import (
    AlreadyAMember,
    LeagueNotFound,
    NotALeagueMember,
    ReliabilityTooLow,
    SeasonNotFound,
    SuspendedFromLeague,
)
from leagues.schema import LeagueProblemSerializer
from leagues.serializers import (
    LeagueDetailSerializer,
    LeagueSerializer,
    MembershipSerializer,
    NextGameSerializer,
    PlayerRatingsSerializer,
    StandingSerializer,
    StandingsSerializer,
)

_AUTH_PROBLEMS = {
    401: "not_authenticated, invalid_token, token_revoked, account_disabled, account_suspended: send `Authorization: Bearer <token>` "
    "with a token that works.",
    403: "insufficient_scope: the token lacks the scope this endpoint needs (read to look, play to join or leave).",
    429: "throttled: too many requests; see Retry-After.",
}


def _problems(*problems: type[DomainError]) -> dict[Any, OpenApiResponse]:
    return problem_responses(problems, serializer=LeagueProblemSerializer, notes=_AUTH_PROBLEMS)

_LEAGUE_ID = OpenApiParameter("league_id", OpenApiTypes.INT, OpenApiParameter.PATH, description="The league's id.")
_SEASON = OpenApiParameter("number", OpenApiTypes.INT, OpenApiParameter.PATH, description="The season's number: 1, 2, ...")


class LeagueListView(APIView):
    permission_classes = [CanRead]

    @extend_schema(
        operation_id="leagues_list",
        summary="Leagues",
        description="Every league with its rules (docs/leagues.md).",
        responses={200: LeagueSerializer(many=True), **_problems()},
    )
    def get(self, request: Request) -> Response:
        return Response(LeagueSerializer(selectors.league_list(), many=True).data)


class LeagueDetailView(APIView):
    permission_classes = [CanRead]

    @extend_schema(
        operation_id="leagues_retrieve",
        summary="A league",
        description="Its rules, its seasons, how many members it has and where you stand.",
        parameters=[_LEAGUE_ID],
        responses={200: LeagueDetailSerializer, **_problems(LeagueNotFound)},
    )
    def get(self, request: Request, league_id: int) -> Response:
        league = selectors.league_get(league_id=league_id)
        league.members = selectors.active_member_count(league=league)  # type: ignore[attr-defined]
        league.your_membership = selectors.membership_status(  # type: ignore[attr-defined]
            league=league, user=request_user(request)
        )
        return Response(LeagueDetailSerializer(league).data)


class LeagueJoinView(APIView):
    permission_classes = [CanReadOrPlay]

    @extend_schema(
        operation_id="leagues_join",
        summary="Ask to join a league",
        description="A league admin approves or turns the request down. A league may require a least reliability "
        "(the share of your turns played before the deadline).",
        parameters=[_LEAGUE_ID],
        request=None,
        responses={
            202: MembershipSerializer,
            **_problems(LeagueNotFound, AlreadyAMember, ReliabilityTooLow, SuspendedFromLeague),
        },
    )
    def post(self, request: Request, league_id: int) -> Response:
        league = selectors.league_get(league_id=league_id)
        membership = services.league_join_request(league=league, user=request_user(request))
        return Response({"league": league.pk, "status": membership.status}, status=status.HTTP_202_ACCEPTED)


class LeagueLeaveView(APIView):
    permission_classes = [CanReadOrPlay]

    @extend_schema(
        operation_id="leagues_leave",
        summary="Ask to leave a league",
        description="A member's request waits for a league admin; once approved, the games still running in a "
        "season are forfeited. A join request not yet decided is withdrawn at once (status null).",
        parameters=[_LEAGUE_ID],
        request=None,
        responses={202: MembershipSerializer, **_problems(LeagueNotFound, NotALeagueMember, AlreadyAMember)},
    )
    def post(self, request: Request, league_id: int) -> Response:
        league = selectors.league_get(league_id=league_id)
        membership = services.league_leave_request(league=league, user=request_user(request))
        body = {"league": league.pk, "status": membership.status if membership else None}
        return Response(body, status=status.HTTP_202_ACCEPTED)


class LeagueNextGameView(APIView):
    permission_classes = [CanRead]

    @extend_schema(
        operation_id="leagues_next_game",
        summary="The league game to move in next",
        description="Of the league's games in which it is your turn, the one that has waited longest. With the "
        "league's rule longest_waiting_first, that is the game to move in first.",
        parameters=[_LEAGUE_ID],
        responses={200: NextGameSerializer, **_problems(LeagueNotFound)},
    )
    def get(self, request: Request, league_id: int) -> Response:
        league = selectors.league_get(league_id=league_id)
        game = selectors.next_game(league=league, user=request_user(request))
        body = {
            "game_id": game.pk if game else None,
            "waiting_since": game.turn_started_at if game else None,
            "longest_waiting_first": league.longest_waiting_first,
        }
        return Response(NextGameSerializer(body).data)


class SeasonStandingsView(APIView):
    permission_classes = [CanRead]

    @extend_schema(
        operation_id="leagues_season_standings",
        summary="A season's standings",
        description="Best first (by division when the league has them): points by place, then wins, then "
        "head-to-head, then total prestige.",
        parameters=[_LEAGUE_ID, _SEASON],
        responses={200: StandingsSerializer, **_problems(LeagueNotFound, SeasonNotFound)},
    )
    def get(self, request: Request, league_id: int, number: int) -> Response:
        league = selectors.league_get(league_id=league_id)
        season = selectors.season_get(league=league, number=number)
        rows: Any = selectors.season_standings(season=season)
        standings = StandingSerializer(rows, many=True).data
        return Response({"league": league.pk, "season": season.number, "standings": standings})


class PlayerRatingsView(APIView):
    permission_classes = [CanRead]

    @extend_schema(
        operation_id="players_ratings",
        summary="A player's ratings",
        description="Glicko-2 ratings by variant, from rated games (docs/leagues.md).",
        parameters=[OpenApiParameter("username", OpenApiTypes.STR, OpenApiParameter.PATH, description="In any case.")],
        responses={200: PlayerRatingsSerializer, **_problems(PlayerNotFoundError)},
    )
    def get(self, request: Request, username: str) -> Response:
        name, ratings = selectors.player_ratings_by_username(username=username)
        return Response(PlayerRatingsSerializer({"username": name, "ratings": ratings}).data)
