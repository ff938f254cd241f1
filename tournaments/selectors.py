"""Reads of the tournaments app: who may see and organise a tournament, its
rounds, tables and standings as the API and the page show them, and who hears of
its events.

A public tournament is seen by anyone; a private one by its entrants (invited
too), its organisers, and those who see every game (superusers, holders of
``games.moderate_game``). To anyone else it does not exist (404, as an unknown id).
The seed of its draws is never shown.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.contrib.auth.models import AnonymousUser, User
from django.db.models import Exists, OuterRef, Q, QuerySet

from games.models import Game
from games.selectors import MODERATE_PERMISSION as MODERATE_PERMISSION  # who sees every game sees every tournament
from tournaments import errors
from tournaments.rounds import bot_only_prime, game_result, standings, took_part_q
from tournaments.models import Entry, Tournament, TournamentFollow, TournamentGame, TournamentRound
from tournaments.pairing import Standing


def _known(user: User | AnonymousUser | None) -> bool:
    return user is not None and user.is_authenticated and user.is_active


def _sees_all(user: User | AnonymousUser | None) -> bool:
    return _known(user) and bool(user.is_superuser or user.has_perm(MODERATE_PERMISSION))  # type: ignore[union-attr]


def organiser_q(user: User) -> Q:
    """The tournaments ``user`` organises: theirs, and their leagues' (T-ORGANISER)."""
    return Q(created_by=user) | Q(league__admins=user)


def is_organiser(tournament: Tournament, user: User | AnonymousUser | None) -> bool:
    if not _known(user):
        return False
    assert isinstance(user, User)
    if user.is_superuser or tournament.created_by_id == user.pk:
        return True
    return tournament.league_id is not None and tournament.league.admins.filter(pk=user.pk).exists()  # type: ignore[union-attr]


def organiser_check(tournament: Tournament, user: User) -> None:
    if not is_organiser(tournament, user):
        raise errors.NotAnOrganiser(rule="T-ORGANISER")


def visible_q(user: User | AnonymousUser | None) -> Q:
    if _sees_all(user):
        return Q()
    visible = Q(public=True)
    if _known(user):
        assert isinstance(user, User)
        visible |= Q(Exists(Entry.objects.filter(tournament=OuterRef("pk"), user=user))) | Q(
            Exists(Tournament.objects.filter(organiser_q(user), pk=OuterRef("pk")))
        )
    return visible


def tournament_list(*, user: User | AnonymousUser | None, status: str | None = None) -> QuerySet[Tournament]:
    found = Tournament.objects.filter(visible_q(user)).distinct().order_by("-created_at", "-id")
    return found.filter(status=status) if status else found


def tournament_get_visible(*, tournament_id: int, user: User | AnonymousUser | None) -> Tournament:
    tournament = Tournament.objects.filter(visible_q(user), pk=tournament_id).distinct().first()
    if tournament is None:
        raise errors.TournamentNotFound()
    return tournament


def games_organised_q(user: User) -> Q:
    """The private tournament games ``user`` may watch as an organiser (a filter on
    games.Game, for games.extensions' visibility_q): one EXISTS, no join."""
    organised = TournamentGame.objects.filter(game=OuterRef("pk")).filter(
        Q(table__round__tournament__created_by=user) | Q(table__round__tournament__league__admins=user)
    )
    return Q(Exists(organised))


def game_is_tournament_game(game_id: str) -> bool:
    return TournamentGame.objects.filter(game_id=game_id).exists()


def event_recipients(tournament_id: int) -> set[int]:
    """T-NEWS-AUDIENCE: a tournament's events reach its players (every entry that
    took part, withdrawn and eliminated too) and, for a public one, its followers."""
    tournament = Tournament.objects.filter(pk=tournament_id).first()
    if tournament is None:
        return set()
    # Those who took part (rounds.took_part_q): not an invitation that lapsed at the
    # start, nor one who left or was withdrawn before it.
    people = set(tournament.entries.filter(took_part_q(tournament)).values_list("user_id", flat=True))
    if tournament.public:
        people |= set(TournamentFollow.objects.filter(tournament=tournament).values_list("user_id", flat=True))
    return people


# --- what the API and the page show ---------------------------------------------------------


@dataclass(frozen=True)
class StandingRow:
    rank: int
    entry_id: int
    user_id: int
    username: str
    status: str
    points: float
    buchholz: float
    prestige: int
    rating: float


def standings_rows(tournament: Tournament) -> list[StandingRow]:
    table = standings(tournament)
    entries = {e.pk: e for e in tournament.entries.select_related("user")}
    return [
        StandingRow(
            rank=s.rank,
            entry_id=s.player,
            user_id=entries[s.player].user_id,
            username=entries[s.player].user.get_username(),
            status=entries[s.player].status,
            points=s.points,
            buchholz=s.buchholz,
            prestige=s.prestige,
            rating=round(s.rating, 1),
        )
        for s in table
        if s.player in entries
    ]


def _game_view(tournament_game: TournamentGame, names: dict[int, str]) -> dict[str, Any]:
    game = tournament_game.game
    result = game_result(tournament_game)
    return {
        "game_id": game.pk,
        "number": tournament_game.number,
        "status": game.status,
        "players": [names.get(int(e), "") for e in tournament_game.entries],
        "places": [result.places.get(int(e)) for e in tournament_game.entries] if result else None,
        "forfeited": sorted(names.get(e, "") for e in result.forfeited) if result else [],
    }


def rounds_view(tournament: Tournament) -> list[dict[str, Any]]:
    """Every round: its tables (players in seat order, games and their places,
    a match's winner) and its bye."""
    names = {e.pk: e.user.get_username() for e in tournament.entries.select_related("user")}
    shown: list[dict[str, Any]] = []
    played = list(tournament.round_set.order_by("number").prefetch_related("tables__games__game__seats"))
    bot_only_prime(g.game for r in played for t in r.tables.all() for g in t.games.all())
    for one in played:
        shown.append(
            {
                "number": one.number,
                "started_at": one.started_at,
                "finished_at": one.finished_at,
                "bye": names.get(one.bye_id) if one.bye_id else None,
                "tables": [
                    {
                        "position": table.position,
                        "players": [names.get(int(e), "") for e in table.entries],
                        "winner": names.get(table.winner_id) if table.winner_id else None,
                        "decided_by": table.decided_by,
                        "games": [_game_view(g, names) for g in table.games.all()],
                    }
                    for table in one.tables.all()
                ],
            }
        )
    return shown


def rounds_planned(tournament: Tournament) -> int | None:
    """How many rounds the tournament has: Swiss its setting; a knockout the
    bracket's depth (from its first round once paired, else from the entries)."""
    if tournament.format == Tournament.Format.SWISS:
        return tournament.rounds
    first = tournament.round_set.filter(number=1).first()
    count = 2 * first.tables.count() if first is not None else tournament.entries.filter(status=Entry.Status.ACTIVE).count()
    return (count - 1).bit_length() if count >= 2 else None


def player_entries(*, user: User) -> QuerySet[Entry]:
    return Entry.objects.filter(user=user).select_related("tournament").order_by("-tournament__created_at")


def round_times(*, user: User, since: datetime) -> list[tuple[Tournament, int, datetime]]:
    """The scheduled and started rounds of ``user``'s tournaments from ``since``
    (the calendar feed): (tournament, round number, its time)."""
    from django.utils.dateparse import parse_datetime

    found: list[tuple[Tournament, int, datetime]] = []
    tournaments = Tournament.objects.filter(
        entries__user=user, entries__status__in=[Entry.Status.ACTIVE, Entry.Status.ELIMINATED]
    ).exclude(status=Tournament.Status.CANCELLED)
    for tournament in tournaments.distinct().order_by("id"):
        started = {r.number: r.started_at for r in tournament.round_set.all()}
        scheduled = {n: parse_datetime(str(t)) for n, t in enumerate(tournament.round_starts or [], start=1)}
        if tournament.starts_at is not None:
            scheduled.setdefault(1, tournament.starts_at)
        for number in sorted(set(started) | set(scheduled)):
            when = started.get(number) or scheduled.get(number)
            if when is not None and when >= since:
                found.append((tournament, number, when))
    return found


def games_of(tournament: Tournament) -> QuerySet[Game]:
    return Game.objects.filter(tournament_game__table__round__tournament=tournament)


# --- a round's news (notifications reads it: read-only, never the seed) ---------------------


@dataclass(frozen=True)
class RoundPlace:
    """One player's place in a round: the first game of their table and the others
    at it, or the bye (``game_id`` None, nobody against them)."""

    user_id: int
    game_id: str | None
    opponent_ids: tuple[int, ...]


@dataclass(frozen=True)
class RoundNews:
    """What the email of a round's start tells each of its players."""

    tournament_id: int
    tournament_name: str
    knockout: bool
    number: int
    places: tuple[RoundPlace, ...]

    def place_of(self, user_id: int) -> RoundPlace | None:
        return next((place for place in self.places if place.user_id == user_id), None)


def round_news(*, tournament_id: int, number: int) -> RoundNews | None:
    """Round ``number`` of the tournament as its players are told of it: each
    player with a game (their table's first game, in table order), then the bye
    (Swiss, T-SWISS-BYE; a knockout's match without an opponent, T-KO-BYE). Entries
    are named by their account as it stands (a replaced entry names the newcomer)."""
    played = (
        TournamentRound.objects.filter(tournament_id=tournament_id, number=number).select_related("tournament").first()
    )
    if played is None:
        return None
    users = dict(Entry.objects.filter(tournament_id=tournament_id).values_list("pk", "user_id"))
    places: list[RoundPlace] = []
    for table in played.tables.order_by("position").prefetch_related("games"):
        entries = [int(e) for e in table.entries if int(e) in users]
        first = min(table.games.all(), key=lambda g: g.number, default=None)
        if first is None:
            if table.decided_by == "bye":
                places += [RoundPlace(users[e], None, ()) for e in entries]
            continue
        for entry in entries:
            others = tuple(users[o] for o in entries if o != entry)
            places.append(RoundPlace(users[entry], first.game_id, others))
    if played.bye_id is not None and played.bye_id in users:
        places.append(RoundPlace(users[played.bye_id], None, ()))
    tournament = played.tournament
    return RoundNews(
        tournament_id=tournament.pk,
        tournament_name=tournament.name,
        knockout=tournament.format == Tournament.Format.KNOCKOUT,
        number=played.number,
        places=tuple(places),
    )


__all__ = ["Standing", "StandingRow"]


@dataclass(frozen=True)
class InvitationNews:
    """What an invitation's email says (notifications reads it; never the seed)."""

    user_id: int
    tournament_id: int
    tournament_name: str
    organiser: User
    knockout: bool


def invitation_news(*, entry_id: int) -> InvitationNews | None:
    """The invitation ``entry_id`` while it is one; None once accepted, declined or gone."""
    entry = Entry.objects.select_related("tournament__created_by__player").filter(
        pk=entry_id, status=Entry.Status.INVITED
    ).first()
    if entry is None:
        return None
    tournament = entry.tournament
    return InvitationNews(entry.user_id, tournament.pk, tournament.name, tournament.created_by,
                          tournament.format == Tournament.Format.KNOCKOUT)  # fmt: skip
