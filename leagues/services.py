"""Writes of the leagues app: membership, starting a season, dropping a player,
editing a season's pairings (through games.moderation), and applying ratings
when a rated game ends.

Every game is made through games.services (game_create, seat_join, game_resign):
the league never writes games rows itself.
"""

from __future__ import annotations

import itertools
import logging
from collections.abc import Sequence
from datetime import datetime

from django.apps import apps
from django.contrib.auth.models import Group, Permission, User
from django.db import transaction
from django.db.models import Q
from django.dispatch import Signal
from django.utils import timezone
from django.utils.translation import gettext, ngettext

from games import moderation as game_moderation
from games import services as game_services
from games.audience import game_counts_in_ratings
from games.models import Game, ModerationEntry, Seat
from leagues import glicko2, scheduling, selectors, signals
from leagues.errors import (
    AlreadyAMember,
    NoRequestToDecide,
    NotALeagueMember,
    NotASeasonPlayer,
    PairingNotEditable,
    PairingNotFound,
    ReliabilityTooLow,
    SeasonNotStartable,
    SuspendedFromLeague,
)
from leagues.models import (
    Division,
    League,
    LeagueGame,
    Membership,
    PlayerRating,
    RatedGame,
    RatingChange,
    Season,
    SeasonEntry,
    TimeoutCredit,
)

logger = logging.getLogger(__name__)

LEAGUE_ADMINS_GROUP = "League admins"
# What a league admin may do in the admin; the querysets keep it to their own leagues.
LEAGUE_ADMIN_PERMISSIONS = (
    "view_league",
    "change_league",
    "view_division",
    "add_division",
    "change_division",
    "view_membership",
    "change_membership",
    "view_season",
    "add_season",
    "change_season",
    "view_seasonentry",
    "view_leaguegame",
    "view_leaguescopedgame",
    "view_leaguechatmessage",
    "view_leaguemoderationentry",
)

_MEMBER = (Membership.Status.ACTIVE, Membership.Status.LEAVING)


def league_admins_group() -> Group:
    """The "League admins" group with exactly its permissions (made after every
    migrate): leagues permissions only. A league admin moderates the games of
    their own leagues through leagues.admin, never with a site-wide games
    permission, so any other permission given to the group is taken back here."""
    group, _ = Group.objects.get_or_create(name=LEAGUE_ADMINS_GROUP)
    managed = Q(content_type__app_label="leagues", codename__in=LEAGUE_ADMIN_PERMISSIONS)
    # An app above leagues joins the set by declaring, on a model, the permissions
    # a league admin holds for their league's share of it (``league_admin_permissions``:
    # a tournament's), without leagues importing it.
    for model in apps.get_models():
        codenames = getattr(model, "league_admin_permissions", ())
        if codenames:
            managed |= Q(content_type__app_label=model._meta.app_label, codename__in=list(codenames))
    group.permissions.set(Permission.objects.filter(managed))
    return group


# --- membership -----------------------------------------------------------------------


def league_join_request(*, league: League, user: User, now: datetime | None = None) -> Membership:
    """Ask to join; a league admin approves (``membership_approve``). A league with
    a least reliability refuses players below it (ReliabilityTooLow)."""
    now = now or timezone.now()
    with transaction.atomic():
        membership = Membership.objects.select_for_update().filter(league=league, user=user).first()
        if membership is not None and membership.suspended_at is not None:
            raise SuspendedFromLeague(
                gettext(
                    "An admin of %(league)s suspended you from it on %(date)s, so you cannot join it; your account "
                    "and other leagues are not affected."
                )
                % {"league": league.name, "date": f"{membership.suspended_at:%Y-%m-%d}"}
            )
        if membership is not None and membership.status in (*_MEMBER, Membership.Status.PENDING):
            state = {
                "pending": gettext("You have already asked to join %(league)s."),
                "active": gettext("You are already a member of %(league)s."),
                "leaving": gettext("You have already asked to leave %(league)s."),
            }
            raise AlreadyAMember(
                state[membership.status] % {"league": league.name}, membership_status=membership.status
            )
        if league.min_reliability is not None:
            share = selectors.reliability(user_id=user.pk)
            if share is not None and share * 100 < league.min_reliability:
                raise ReliabilityTooLow(
                    gettext(
                        "%(league)s takes players who played at least %(least)s%% of their turns before the "
                        "deadline; you played %(yours)s%%."
                    )
                    % {"league": league.name, "least": league.min_reliability, "yours": f"{share * 100:.0f}"},
                    reliability=round(share * 100, 1),
                    min_reliability=league.min_reliability,
                )
        if membership is None:
            membership = Membership(league=league, user=user)
        membership.status = Membership.Status.PENDING
        membership.requested_at = now
        membership.decided_at = None
        membership.decided_by = None
        membership.save()
    return membership


def league_leave_request(*, league: League, user: User, now: datetime | None = None) -> Membership | None:
    """Ask to leave (a league admin approves); a request to join not yet decided
    is simply withdrawn (None)."""
    now = now or timezone.now()
    with transaction.atomic():
        membership = Membership.objects.select_for_update().filter(league=league, user=user).first()
        if membership is None or membership.status in (Membership.Status.LEFT, Membership.Status.REJECTED):
            raise NotALeagueMember(
                gettext("You are not a member of %(league)s, so there is nothing to leave.") % {"league": league.name}
            )
        if membership.status == Membership.Status.PENDING:
            membership.delete()
            return None
        if membership.status == Membership.Status.LEAVING:
            raise AlreadyAMember(
                gettext("You have already asked to leave; a league admin will decide."), membership_status="leaving"
            )
        membership.status = Membership.Status.LEAVING
        membership.requested_at = now
        membership.save(update_fields=["status", "requested_at"])
    return membership


def membership_approve(*, membership_id: int, by: User | None, now: datetime | None = None) -> Membership:
    """Approve a request: a join makes an active member (a late joiner in a
    running season gets games at once, see ``season_add_late_joiner``); a leave
    ends the membership and forfeits the games still running (``season_drop_player``)."""
    now = now or timezone.now()
    with transaction.atomic():
        membership = Membership.objects.select_for_update().select_related("league", "user").get(pk=membership_id)
        if membership.status == Membership.Status.PENDING:
            if membership.suspended_at is not None:
                raise NoRequestToDecide(
                    gettext("%(username)s is suspended from %(league)s: lift the suspension first.")
                    % {"username": membership.user.get_username(), "league": membership.league.name}
                )
            membership.status = Membership.Status.ACTIVE
            running = _running_season(membership.league, now)
            if running is not None:
                season_add_late_joiner(season=running, user=membership.user, now=now)
        elif membership.status == Membership.Status.LEAVING:
            membership.status = Membership.Status.LEFT
            for season in Season.objects.filter(league=membership.league, started_at__isnull=False):
                season_drop_player(season=season, user=membership.user, now=now)
        else:
            raise NoRequestToDecide(
                gettext("There is no request to decide: the membership is %(status)s.") % {"status": membership.status}
            )
        membership.decided_at = now
        membership.decided_by = by
        membership.save()
    return membership


def membership_reject(*, membership_id: int, by: User | None, now: datetime | None = None) -> Membership:
    """Turn a request down: a join is refused, a leave leaves the member in."""
    now = now or timezone.now()
    with transaction.atomic():
        membership = Membership.objects.select_for_update().get(pk=membership_id)
        if membership.status == Membership.Status.PENDING:
            membership.status = Membership.Status.REJECTED
        elif membership.status == Membership.Status.LEAVING:
            membership.status = Membership.Status.ACTIVE
        else:
            raise NoRequestToDecide(
                gettext("There is no request to decide: the membership is %(status)s.") % {"status": membership.status}
            )
        membership.decided_at = now
        membership.decided_by = by
        membership.save()
    return membership


# --- moderating members -------------------------------------------------------------
#
# A league admin warns a player of their league, or suspends them from it: no
# joining it again, no new pairings in it (late joiners' tables, replacements);
# the games they already play in it go on, and time out as usual. Their account,
# their tokens and other leagues are not touched: a site-wide suspension is the
# staff's (games.moderation.moderation_player_suspend). Each is logged in the
# moderation log with the league in its details, and the player is emailed.


def _league_details(league: League) -> dict[str, object]:
    return {"league_id": league.pk, "league": league.name}


def member_warn(*, membership_id: int, by: User, reason: str) -> None:
    """Warn a player of the league about their conduct in it (logged, emailed)."""
    membership = Membership.objects.select_related("league", "user").get(pk=membership_id)
    game_moderation.moderation_player_warn(
        user=membership.user, by_user=by, reason=reason, details=_league_details(membership.league)
    )


def member_suspend(*, membership_id: int, by: User, reason: str, now: datetime | None = None) -> bool:
    """Suspend a player from the league. False, and nothing logged, when they
    were suspended from it already."""
    return _member_suspension_set(membership_id=membership_id, by=by, reason=reason, suspend=True, now=now)


def member_unsuspend(*, membership_id: int, by: User, reason: str, now: datetime | None = None) -> bool:
    """Lift a player's suspension from the league: they may ask to join again and
    be paired. False, and nothing logged, when there was none."""
    return _member_suspension_set(membership_id=membership_id, by=by, reason=reason, suspend=False, now=now)


def _member_suspension_set(*, membership_id: int, by: User, reason: str, suspend: bool, now: datetime | None) -> bool:
    """Suspend or lift, under the membership's row lock: logged (the league in the
    entry's details) and told to the player once it commits."""
    reason = game_moderation.moderation_reason_clean(reason)
    now = now or timezone.now()
    with transaction.atomic():
        membership = Membership.objects.select_for_update().select_related("league", "user").get(pk=membership_id)
        if (membership.suspended_at is not None) == suspend:
            return False
        membership.suspended_at = now if suspend else None
        membership.suspended_by = by if suspend else None
        membership.save(update_fields=["suspended_at", "suspended_by"])
        action = ModerationEntry.Action.LEAGUE_SUSPENDED if suspend else ModerationEntry.Action.LEAGUE_UNSUSPENDED
        entry = game_moderation.moderation_entry_record(
            by_user=by,
            action=action,
            reason=reason,
            target_user_id=membership.user_id,
            details=_league_details(membership.league),
            now=now,
        )
        _tell_after_commit(signals.member_suspended if suspend else signals.member_unsuspended, membership, entry.pk)
    logger.info("league %s: %s for user %s by user %s", membership.league_id, action, membership.user_id, by.pk)
    return True


def _tell_after_commit(signal: Signal, membership: Membership, entry_id: int) -> None:
    user_id, league_id = membership.user_id, membership.league_id
    transaction.on_commit(
        lambda: signal.send(sender=Membership, user_id=user_id, league_id=league_id, entry_id=entry_id)
    )


def _running_season(league: League, now: datetime) -> Season | None:
    return (
        Season.objects.filter(league=league, started_at__isnull=False, ends_on__gte=now.date())
        .order_by("-number")
        .first()
    )


# --- scheduling -------------------------------------------------------------------------


def _create_game(league: League, players: Sequence[User]) -> Game:
    """A league game with every seat taken: created by the first player with
    open seats (no invitations, so no invitation limit and no invitation email),
    which the others take at once; the last join starts the game. The play order
    is then drawn from the game's seed, like any game's."""
    game = game_services.game_create(
        creator=players[0],
        variant=league.variant,
        seats=len(players),
        move_seconds=league.move_seconds,
        bank_seconds=league.bank_seconds,
        bank_cap_seconds=max(league.bank_cap_seconds, league.bank_seconds),
        forfeit_after=league.forfeit_after,
        public=league.public,
        rated=league.rated,
        vacation_allowed=league.vacation_allowed,
        pauses_allowed=league.pauses_allowed,
    )
    for player in players[1:]:
        game_services.seat_join(game=game, user=player)
    return game


def _schedule(league: League, user_ids: Sequence[int]) -> list[list[tuple[int, ...]]]:
    if league.players_per_game == 2:
        return [list(r) for r in scheduling.round_robin(user_ids, double=league.double_round_robin)]
    return scheduling.tables(user_ids, size=league.players_per_game, double=league.double_round_robin)


def _divisions(league: League, user_ids: list[int]) -> list[tuple[Division | None, list[int]]]:
    """One group, or divisions of ``division_size`` by rating (best first) when the league outgrew it."""
    size = league.division_size
    if size is None or len(user_ids) <= size:
        return [(None, user_ids)]
    ratings = dict(
        PlayerRating.objects.filter(user_id__in=user_ids, variant=league.variant).values_list("user_id", "rating")
    )
    ranked = sorted(user_ids, key=lambda u: (-ratings.get(u, glicko2.DEFAULT_RATING), u))
    chunks = [ranked[i : i + size] for i in range(0, len(ranked), size)]
    # A last division too small for a game joins the one above it.
    if len(chunks) > 1 and len(chunks[-1]) < league.players_per_game:
        chunks[-2].extend(chunks.pop())
    groups: list[tuple[Division | None, list[int]]] = []
    for level, chunk in enumerate(chunks, start=1):
        division, _ = Division.objects.get_or_create(league=league, level=level, defaults={"name": f"Division {level}"})
        groups.append((division, chunk))
    return groups


def season_start(*, season_id: int, now: datetime | None = None) -> list[LeagueGame]:
    """Start a season: its entries are the league's members now, and every game of
    the season is created at once (round robin for two players, balanced tables
    for three and four), each started. All or nothing: a game that cannot be
    created leaves the season unstarted."""
    now = now or timezone.now()
    with transaction.atomic():
        season = Season.objects.select_for_update().select_related("league").get(pk=season_id)
        league = season.league
        if season.started_at is not None:
            raise SeasonNotStartable(
                gettext("%(season)s started on %(date)s.") % {"season": season, "date": f"{season.started_at:%Y-%m-%d}"}
            )
        # A member suspended from the league gets no pairings in it.
        members = list(
            Membership.objects.filter(league=league, status__in=_MEMBER, suspended_at__isnull=True)
            .order_by("requested_at", "id")
            .select_related("user")
        )
        if len(members) < league.players_per_game:
            raise SeasonNotStartable(
                ngettext(
                    "%(league)s has %(n)d member; a game of %(seats)d needs more.",
                    "%(league)s has %(n)d members; a game of %(seats)d needs more.",
                    len(members),
                )
                % {"league": league.name, "n": len(members), "seats": league.players_per_game}
            )
        users = {m.user_id: m.user for m in members}
        created: list[LeagueGame] = []
        for division, group in _divisions(league, list(users)):
            for user_id in group:
                SeasonEntry.objects.create(season=season, user_id=user_id, division=division, joined_at=now)
            for number, round_tables in enumerate(_schedule(league, group), start=1):
                for table in round_tables:
                    game = _create_game(league, [users[u] for u in table])
                    created.append(
                        LeagueGame.objects.create(season=season, game=game, division=division, round=number)
                    )
        season.started_at = now
        season.save(update_fields=["started_at"])
    return created


def season_add_late_joiner(*, season: Season, user: User, now: datetime | None = None) -> list[LeagueGame]:
    """A member approved after the season started. Two-player leagues: one game
    against every player still in the season (two with double round robin, one
    with each first). Three and four: tables with the players they would meet
    least, enough to meet everyone about once. Either way their games start now."""
    now = now or timezone.now()
    league = season.league
    with transaction.atomic():
        if SeasonEntry.objects.filter(season=season, user=user).exists():
            return []
        # Nobody suspended from the league is given a new table.
        others = list(
            SeasonEntry.objects.filter(season=season, dropped_at__isnull=True)
            .exclude(user__league_memberships__league=league, user__league_memberships__suspended_at__isnull=False)
            .select_related("user")
            .order_by("id")
        )
        SeasonEntry.objects.create(season=season, user=user, joined_at=now, late=True)
        last_round = max(season.league_games.values_list("round", flat=True), default=0)
        created: list[LeagueGame] = []
        size = league.players_per_game
        tables: list[tuple[User, ...]]
        if size == 2:
            tables = [(user, e.user) for e in others]
            if league.double_round_robin:
                tables += [(e.user, user) for e in others]
        else:
            pool = [e.user for e in others]
            tables = []
            for start in range(0, len(pool) - (size - 2), size - 1):
                tables.append((user, *pool[start : start + size - 1]))
        for table in tables:
            if len(table) < size:
                continue
            game = _create_game(league, list(table))
            created.append(LeagueGame.objects.create(season=season, game=game, round=last_round + 1))
    return created


def season_drop_player(*, season: Season, user: User, now: datetime | None = None) -> int:
    """A player who left during the season: their games still running are
    forfeited (games.services.game_resign; the seat ranks last and scores the
    last place's points). Returns how many."""
    now = now or timezone.now()
    forfeited = 0
    with transaction.atomic():
        SeasonEntry.objects.filter(season=season, user=user, dropped_at__isnull=True).update(dropped_at=now)
        running = Game.objects.filter(
            league_game__season=season, status=Game.Status.ACTIVE, seats__user=user, seats__resigned=False
        ).order_by("id")
        for game in running:
            game_services.game_resign(game=game, user=user)
            forfeited += 1
    return forfeited


# --- editing pairings ----------------------------------------------------------------------


def _pairing_open(league_game_id: int, doing: str) -> LeagueGame:
    """The pairing with its game, refused when the game is over (finished or aborted)."""
    pairing = LeagueGame.objects.select_related("game", "season__league").filter(pk=league_game_id).first()
    if pairing is None:
        raise PairingNotFound(gettext("There is no pairing %(id)s.") % {"id": league_game_id})
    game = pairing.game
    if game.is_over:
        if doing == "cancelled":
            refusal = gettext("Game %(game)s is already %(status)s; only a pairing still being played can be cancelled.")
        else:
            refusal = gettext("Game %(game)s is already %(status)s; only a pairing still being played can be changed.")
        raise PairingNotEditable(refusal % {"game": game.pk, "status": game.status}, game_status=game.status)
    return pairing


def pairing_replace_player(
    *, league_game_id: int, seat_index: int, new_user: User, by_user: User, reason: str
) -> Seat:
    """Hand one seat of a season's pairing to another player of that season
    (games.moderation.moderation_seat_replace: logged, with a ``seat_replaced``
    event). The new player must still be in the season and not already at the
    table; a game that is over is refused."""
    game_moderation.moderation_reason_clean(reason)
    pairing = _pairing_open(league_game_id, "changed")
    season = pairing.season
    if Membership.objects.filter(league_id=season.league_id, user=new_user, suspended_at__isnull=False).exists():
        raise NotASeasonPlayer(
            gettext("%(username)s is suspended from %(league)s, so they get no new pairings in it.")
            % {"username": new_user.get_username(), "league": season.league}
        )
    if not SeasonEntry.objects.filter(season=season, user=new_user, dropped_at__isnull=True).exists():
        raise NotASeasonPlayer(
            gettext(
                "%(username)s does not play in %(season)s (never entered, or left it); choose one of the season's "
                "players."
            )
            % {"username": new_user.get_username(), "season": season}
        )
    if Seat.objects.filter(game_id=pairing.game_id, user=new_user).exists():
        raise NotASeasonPlayer(
            gettext("%(username)s already has a seat in game %(game)s; choose someone else.")
            % {"username": new_user.get_username(), "game": pairing.game_id}
        )
    return game_moderation.moderation_seat_replace(
        game_id=pairing.game_id, seat_index=seat_index, by_user=by_user, reason=reason, new_user=new_user
    )


def pairing_cancel(*, league_game_id: int, by_user: User, reason: str) -> Game:
    """Cancel a season's pairing: its game is aborted
    (games.moderation.moderation_game_abort: logged, with a ``game_aborted``
    event), so it no longer counts in the standings or the ratings."""
    game_moderation.moderation_reason_clean(reason)
    pairing = _pairing_open(league_game_id, "cancelled")
    return game_moderation.moderation_game_abort(game_id=pairing.game_id, by_user=by_user, reason=reason)


# --- ratings -------------------------------------------------------------------------------


def _pairwise(places: Sequence[int]) -> list[tuple[int, int, float]]:
    """Every pair of seats with the first one's score against the second."""
    pairs: list[tuple[int, int, float]] = []
    for a, b in itertools.combinations(range(len(places)), 2):
        score = 1.0 if places[a] < places[b] else 0.0 if places[a] > places[b] else 0.5
        pairs.append((a, b, score))
    return pairs


def ratings_apply_game(*, game_id: str, now: datetime | None = None) -> bool:
    """Update the ratings of a rated game's players, once: True when this call
    applied them, False when the game is not rated, not finished, or was done.

    Multi-player games count as the pairwise results between every two seats
    (the better place wins; a shared place is a draw), all rated from the ratings
    before the game, as one Glicko-2 rating period. A seat that left the game
    (resigned, forfeited on time) ranks last, so it loses to everyone. A win over
    a player who *timed out* counts for the winner at most once per opponent and
    calendar month (TimeoutCredit): the one who timed out still takes every loss.
    """
    now = now or timezone.now()
    with transaction.atomic():
        game = Game.objects.select_for_update().get(pk=game_id)
        if not game_counts_in_ratings(game) or game.status != Game.Status.FINISHED or not isinstance(game.result, dict):
            return False
        if RatedGame.objects.filter(game=game).exists():
            return False
        seats: dict[int, int] = {
            s.index: s.user_id for s in Seat.objects.filter(game=game, index__isnull=False) if s.index is not None
        }
        places = [int(p) for p in game.result.get("places", [])]
        timed_out = {int(s) for s in game.result.get("timed_out", [])}
        if sorted(seats) != list(range(len(places))):
            logger.warning("game %s: seats and result disagree; not rated", game_id)
            RatedGame.objects.create(game=game, rated_at=now)
            return False
        user_ids = [seats[i] for i in range(len(places))]
        for user_id in sorted(user_ids):
            PlayerRating.objects.get_or_create(user_id=user_id, variant=game.variant)
        current = {
            r.user_id: r
            for r in PlayerRating.objects.select_for_update().filter(user_id__in=user_ids, variant=game.variant)
        }
        before = {u: glicko2.Rating(r.rating, r.rd, r.volatility) for u, r in current.items()}
        results: dict[int, list[glicko2.Result]] = {u: [] for u in user_ids}
        notes: dict[int, list[dict[str, object]]] = {u: [] for u in user_ids}
        period = f"{now:%Y-%m}"
        for a, b, score in _pairwise(places):
            for me, other, my_score in ((a, b, score), (b, a, 1.0 - score)):
                counted = True
                if my_score == 1.0 and other in timed_out:
                    _, counted = TimeoutCredit.objects.get_or_create(
                        user_id=user_ids[me],
                        opponent_id=user_ids[other],
                        variant=game.variant,
                        period=period,
                        defaults={"game": game},
                    )
                if counted:
                    results[user_ids[me]].append(glicko2.Result(before[user_ids[other]], my_score))
                notes[user_ids[me]].append({"user_id": user_ids[other], "score": my_score, "counted": counted})
        for user_id in user_ids:
            rating = current[user_id]
            old = before[user_id]
            new = glicko2.rate(old, results[user_id]) if results[user_id] else old
            RatingChange.objects.create(
                game=game,
                user_id=user_id,
                variant=game.variant,
                rating_before=old.rating,
                rating_after=new.rating,
                rd_before=old.rd,
                rd_after=new.rd,
                volatility_before=old.volatility,
                volatility_after=new.volatility,
                results=notes[user_id],
                created_at=now,
            )
            rating.rating, rating.rd, rating.volatility = new.rating, new.rd, new.volatility
            rating.games += 1
            rating.updated_at = now
            rating.save()
        RatedGame.objects.create(game=game, rated_at=now)
    return True
