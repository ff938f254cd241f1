"""What an account's deadlines calendar is made of, read in a fixed handful of
queries whatever the number of games: the games where it is the account's turn
(one query, with the turn's number and the time of the game's last change as
subqueries), their seats with the players' names (one), the account's reminder
hours (one) and its leagues' seasons (one).

Only what the account may see of a game is read: its id, variant, version,
clock and the names of the people in it. The state (deck, reserved cards) and
the seed are never loaded (``only``), so nothing hidden can reach the feed.

The rounds of the account's tournaments are read through
``tournaments.selectors.round_times`` (its name, the round's number and time: one
query, and one more per tournament); of a tournament only its id, name and dates
reach the feed, never the seed of its draws.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from typing import TYPE_CHECKING

from django.db.models import Exists, OuterRef, Prefetch, Q, Subquery

from games.audience import real_games_q
from games.models import Game, GameEvent, Move, Seat
from leagues.models import Membership, Season
from notifications.preferences.selectors import preferences_for
from tournaments.selectors import round_times

if TYPE_CHECKING:
    from django.contrib.auth.models import User

# Seasons that ended longer ago than this are left out of the feed.
SEASONS_KEPT_AFTER_END = timedelta(days=90)
# Tournament rounds that started longer ago than this are left out of the feed.
ROUNDS_KEPT_AFTER_START = timedelta(days=30)


@dataclass(frozen=True)
class Turn:
    """A game waiting for the account's move."""

    game_id: str
    variant: str  # Game.Variant's label: "Splendor", "Splendor: Marvel"
    version: int
    # The number of moves played so far: with the game id, names the turn.
    ply: int
    # When the turn's clock started and when it runs out; both None while the game is paused.
    turn_started_at: datetime | None
    deadline_at: datetime | None
    # The game's last change (its latest event): the events' DTSTAMP.
    changed_at: datetime
    opponents: tuple[str, ...]

    @property
    def paused(self) -> bool:
        return self.deadline_at is None


@dataclass(frozen=True)
class SeasonDates:
    league_id: int
    league: str
    number: int
    starts_on: date
    ends_on: date
    changed_at: datetime


@dataclass(frozen=True)
class RoundStart:
    """A round of one of the account's tournaments: started, or scheduled to."""

    tournament_id: int
    tournament: str
    number: int
    starts_at: datetime
    # The tournament's last change of dates (its start, else its creation): the event's DTSTAMP.
    changed_at: datetime


@dataclass(frozen=True)
class CalendarContent:
    turns: list[Turn]
    seasons: list[SeasonDates]
    rounds: list[RoundStart]
    # Hours before a deadline at which the account wants a reminder (notifications' preferences).
    reminder_hours: tuple[int, ...]


def turns_waiting(*, user: User) -> list[Turn]:
    """The account's real, active games where its seat is to move, soonest deadline
    first (paused games last). Two queries."""
    my_turn = Seat.objects.filter(game=OuterRef("pk"), user=user, index=OuterRef("to_move"), resigned=False)
    last_ply = Move.objects.filter(game=OuterRef("pk")).order_by("-ply").values("ply")[:1]
    # Table talk changes nothing in the game: it is no revision of its deadline.
    last_change = (
        GameEvent.objects.filter(game=OuterRef("pk")).exclude(kind=GameEvent.Kind.CHAT).order_by("-id")
        .values("created_at")[:1]
    )
    games = (
        Game.objects.filter(Exists(my_turn), real_games_q(), status=Game.Status.ACTIVE)
        .only("id", "variant", "version", "deadline_at", "turn_started_at", "started_at", "created_at", "to_move")
        .annotate(last_ply=Subquery(last_ply), last_change_at=Subquery(last_change))
        .prefetch_related(
            Prefetch(
                "seats",
                queryset=Seat.objects.select_related("user__player").only(
                    "id", "game_id", "user_id", "joined_at", "user__id", "user__player__id",
                    "user__player__display_name", "user__player__user_id",
                ),
            )
        )
        .order_by("pk")
    )
    turns = [
        Turn(
            game_id=game.pk,
            variant=game.get_variant_display(),
            version=game.version,
            ply=game.last_ply or 0,
            turn_started_at=game.turn_started_at if game.deadline_at is not None else None,
            deadline_at=game.deadline_at,
            changed_at=game.last_change_at or game.started_at or game.created_at,
            opponents=tuple(
                seat.user.player.display_name
                for seat in game.seats.all()
                if seat.user_id != user.pk and seat.joined_at is not None
            ),
        )
        for game in games
    ]
    return sorted(
        turns,
        key=lambda turn: (turn.deadline_at is None, turn.deadline_at.timestamp() if turn.deadline_at else 0, turn.game_id),
    )


def seasons_of(*, user: User, today: date) -> list[SeasonDates]:
    """The seasons of the leagues the account is a member of, and of those it played
    in, that have not ended more than SEASONS_KEPT_AFTER_END ago. One query."""
    member = Membership.objects.filter(
        league=OuterRef("league"), user=user, status__in=(Membership.Status.ACTIVE, Membership.Status.LEAVING)
    )
    seasons = (
        Season.objects.filter(Q(Exists(member)) | Q(entries__user=user), ends_on__gte=today - SEASONS_KEPT_AFTER_END)
        .select_related("league")
        .distinct()
        .order_by("starts_on", "league_id", "number")
    )
    return [
        SeasonDates(
            league_id=season.league_id,
            league=season.league.name,
            number=season.number,
            starts_on=season.starts_on,
            ends_on=season.ends_on,
            changed_at=season.started_at or season.league.created_at,
        )
        for season in seasons
    ]


def rounds_of(*, user: User, today: date) -> list[RoundStart]:
    """The started and scheduled rounds of the tournaments the account plays in
    (tournaments.selectors.round_times), from ROUNDS_KEPT_AFTER_START before today
    on, in time order."""
    since = datetime.combine(today, time.min, tzinfo=UTC) - ROUNDS_KEPT_AFTER_START
    found = [
        RoundStart(
            tournament_id=tournament.pk,
            tournament=tournament.name,
            number=number,
            starts_at=when,
            changed_at=tournament.started_at or tournament.created_at,
        )
        for tournament, number, when in round_times(user=user, since=since)
    ]
    return sorted(found, key=lambda r: (r.starts_at, r.tournament_id, r.number))


def calendar_content(*, user: User, today: date) -> CalendarContent:
    return CalendarContent(
        turns=turns_waiting(user=user),
        seasons=seasons_of(user=user, today=today),
        rounds=rounds_of(user=user, today=today),
        reminder_hours=tuple(sorted({int(hours) for hours in preferences_for(user=user).reminder_hours}, reverse=True)),
    )
