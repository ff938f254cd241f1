"""Reads of the leagues app: leagues, standings, ratings, reliability, the next game."""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any, TypedDict

from django.contrib.auth.models import User
from django.db.models import Exists, F, OuterRef, Q, QuerySet
from django.utils.translation import gettext

from accounts import selectors as accounts_selectors
from games.audience import real_games_q
from games.models import Game, GameEvent, Move, PlayedBy
from leagues.errors import LeagueNotFound, SeasonNotFound
from leagues.models import League, LeagueGame, Membership, PlayerRating, Season


def games_administered_q(user: User) -> Q:
    """The games of the leagues ``user`` administers, as a filter on games.Game:
    leagues.extension's visibility_q, so that a league's admins see its
    private games as moderators do."""
    return Q(Exists(LeagueGame.objects.filter(game=OuterRef("pk"), season__league__admins=user)))


def game_is_league_game(game_id: str) -> bool:
    """Whether a league's season scheduled the game: named in
    leagues.extension's counts_in_competition, so that games can tell a game that counts
    (its sandbox has no bots while it is played) without importing leagues."""
    return LeagueGame.objects.filter(game_id=game_id).exists()


def league_of_game(*, game_id: str) -> int | None:
    """The id of the league whose season scheduled the game, or None: webhooks
    posts a public league game to the league's channels."""
    return LeagueGame.objects.filter(game_id=game_id).values_list("season__league_id", flat=True).first()


def league_admin_ids(*, league_id: int) -> set[int]:
    """The user ids of the league's admins (none for a league that does not exist)."""
    return set(League.admins.through.objects.filter(league_id=league_id).values_list("user_id", flat=True))


def league_exists(*, league_id: int) -> bool:
    return League.objects.filter(pk=league_id).exists()


def league_list() -> QuerySet[League]:
    return League.objects.all().order_by("name")


def league_get(*, league_id: int) -> League:
    league = League.objects.filter(pk=league_id).first()
    if league is None:
        raise LeagueNotFound(gettext("There is no league with id %(id)s.") % {"id": league_id})
    return league


def season_get(*, league: League, number: int) -> Season:
    season = Season.objects.filter(league=league, number=number).first()
    if season is None:
        numbers = list(league.seasons.values_list("number", flat=True))
        if numbers:
            message = gettext("League %(league)s has no season %(number)s; it has seasons %(numbers)s.") % {
                "league": league.pk,
                "number": number,
                "numbers": ", ".join(map(str, numbers)),
            }
        else:
            message = gettext("League %(league)s has no season %(number)s; it has none yet.") % {
                "league": league.pk,
                "number": number,
            }
        raise SeasonNotFound(message)
    return season


def membership_status(*, league: League, user: User) -> str | None:
    return Membership.objects.filter(league=league, user=user).values_list("status", flat=True).first()


def active_member_count(*, league: League) -> int:
    return Membership.objects.filter(
        league=league, status__in=[Membership.Status.ACTIVE, Membership.Status.LEAVING]
    ).count()


# --- reliability -------------------------------------------------------------------


def reliability(*, user_id: int) -> float | None:
    """The share (0 to 1) of the user's turns played by them before the deadline:
    their own moves over their own moves plus their turns that timed out. None
    for a player with no turns yet."""
    # Real games only: a practice game's moves say nothing of keeping to deadlines.
    played = Move.objects.filter(
        real_games_q(prefix="game__"),
        played_by=PlayedBy.PLAYER,
        game__seats__user_id=user_id,
        game__seats__index=F("seat"),
    ).count()
    timed_out = GameEvent.objects.filter(kind=GameEvent.Kind.TURN_TIMED_OUT, payload__user_id=user_id).count()
    if played + timed_out == 0:
        return None
    return played / (played + timed_out)


# --- the next game -------------------------------------------------------------------


def next_game(*, league: League, user: User) -> Game | None:
    """The league game in which ``user`` is to move and has waited longest."""
    return (
        Game.objects.filter(
            league_game__season__league=league,
            status=Game.Status.ACTIVE,
            seats__user=user,
            seats__index=F("to_move"),
            seats__resigned=False,
        )
        .order_by(F("turn_started_at").asc(nulls_last=True), "started_at", "id")
        .first()
    )


# --- standings ------------------------------------------------------------------------


@dataclass
class StandingRow:
    user_id: int
    username: str
    division: str | None = None
    # 1 is the top division; 0 without divisions. Standings go division by division.
    division_level: int = 0
    played: int = 0
    points: int = 0
    wins: int = 0
    total_score: int = 0
    head_to_head: int = 0
    dropped: bool = False
    rank: int = 0
    places: list[int] = field(default_factory=list)


@dataclass
class _Finished:
    users: list[int]  # by seat index
    places: list[int]
    scores: list[int]


def _finished_games(season: Season) -> list[_Finished]:
    games = (
        Game.objects.filter(league_game__season=season, status=Game.Status.FINISHED)
        .order_by("finished_at", "id")
        .prefetch_related("seats")
    )
    finished: list[_Finished] = []
    for game in games:
        result: dict[str, Any] = game.result or {}
        places = [int(p) for p in result.get("places", [])]
        scores = [int(s) for s in result.get("scores", [])]
        by_seat: dict[int, int] = {s.index: s.user_id for s in game.seats.all() if s.index is not None}
        if len(places) != len(by_seat):
            continue
        finished.append(_Finished([by_seat[i] for i in range(len(places))], places, scores))
    return finished


def season_active_players(*, season: Season) -> QuerySet[User]:
    """The players still in ``season`` (an entry not dropped) and not suspended
    from its league, by username: those a pairing may be handed to
    (leagues.services.pairing_replace_player)."""
    suspended = Membership.objects.filter(league_id=season.league_id, suspended_at__isnull=False).values("user_id")
    return (
        User.objects.filter(season_entries__season=season, season_entries__dropped_at__isnull=True)
        .exclude(pk__in=suspended)
        .order_by("username")
    )


def points_for(points_for_place: list[int], place: int) -> int:
    return points_for_place[place - 1] if 0 < place <= len(points_for_place) else 0


def season_standings(*, season: Season) -> list[StandingRow]:
    """Every player of the season, best first: by points (the league's points for
    each place), then wins, then head-to-head among those still level (places
    above the other in the games they played together, less places below), then
    total prestige, then username. Players level on all of these share a rank."""
    league = season.league
    rows: dict[int, StandingRow] = {}
    for entry in season.entries.select_related("user", "division").order_by("id"):
        rows[entry.user_id] = StandingRow(
            user_id=entry.user_id,
            username=entry.user.get_username(),
            division=entry.division.name if entry.division else None,
            division_level=entry.division.level if entry.division else 0,
            dropped=entry.dropped_at is not None,
        )
    finished = _finished_games(season)
    for game in finished:
        for seat, user_id in enumerate(game.users):
            row = rows.get(user_id)
            if row is None:
                continue
            place = game.places[seat]
            row.played += 1
            row.points += points_for(league.points_for_place, place)
            row.wins += 1 if place == 1 else 0
            row.total_score += game.scores[seat] if seat < len(game.scores) else 0
            row.places.append(place)

    def level(row: StandingRow) -> tuple[int, int, int]:
        return (row.division_level, -row.points, -row.wins)

    ordered = sorted(rows.values(), key=level)
    for _, group_iter in itertools.groupby(ordered, key=level):
        group = list(group_iter)
        if len(group) < 2:
            continue
        tied = {row.user_id: row for row in group}
        for game in finished:
            present = [(seat, u) for seat, u in enumerate(game.users) if u in tied]
            for (seat_a, a), (seat_b, b) in itertools.combinations(present, 2):
                if game.places[seat_a] < game.places[seat_b]:
                    tied[a].head_to_head += 1
                    tied[b].head_to_head -= 1
                elif game.places[seat_b] < game.places[seat_a]:
                    tied[b].head_to_head += 1
                    tied[a].head_to_head -= 1

    def key(row: StandingRow) -> tuple[Any, ...]:
        return (row.division_level, -row.points, -row.wins, -row.head_to_head, -row.total_score)

    ordered = sorted(rows.values(), key=lambda r: (*key(r), r.username.lower()))
    previous: tuple[Any, ...] | None = None
    position = 0
    last_rank = 0
    for row in ordered:
        if previous is None or previous[0] != row.division_level:
            position = 0
        position += 1
        row.rank = last_rank if previous is not None and key(row) == previous else position
        last_rank = row.rank
        previous = key(row)
    return ordered


# --- ratings -----------------------------------------------------------------------------


class RatingView(TypedDict):
    rating: float
    rd: float
    volatility: float
    games: int


def ratings_for_user(*, user_id: int) -> dict[str, RatingView]:
    """A player's ratings by variant; variants they never played rated are absent."""
    return {
        r.variant: {
            "rating": round(r.rating, 1),
            "rd": round(r.rd, 1),
            "volatility": round(r.volatility, 6),
            "games": r.games,
        }
        for r in PlayerRating.objects.filter(user_id=user_id).order_by("variant")
    }


def player_ratings(user_id: int) -> dict[str, Any]:
    """What the public profile gains (leagues.extension): ``ratings``."""
    return {"ratings": ratings_for_user(user_id=user_id)}


def player_ratings_by_username(*, username: str) -> tuple[str, dict[str, RatingView]]:
    """The public player's username and ratings (accounts.errors.PlayerNotFoundError otherwise)."""
    player = accounts_selectors.player_get_public(username=username)
    return player.user.get_username(), ratings_for_user(user_id=player.user.pk)
