"""Writes of the tournaments app: creating one, entries (join, leave, invitations),
following, starting, and the organisers' withdrawals and replacements. The
rounds themselves (pairing, games, results) are tournaments.rounds.

Rule ids (docs/tournaments.md) are in the refusals' ``rule`` field.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone
from django.utils.dateparse import parse_datetime
from django.utils.translation import gettext

from games import services as game_services
from games.moderation import moderation_entry_record
from games.models import Game, ModerationEntry
from leagues.models import League, PlayerRating
from tournaments import errors, rounds, selectors, signals
from tournaments.models import Entry, Tournament, TournamentFollow, TournamentGame
from tournaments.pairing import MAX_SEATS, MIN_SEATS

logger = logging.getLogger(__name__)

MAX_ROUNDS = 20
MAX_GAMES_PER_MATCH = 9
MAX_PLAYERS = 256
MIN_MOVE_SECONDS = 3600


def _invalid(field: str, rule: str, message: str) -> errors.InvalidTournament:
    return errors.InvalidTournament(message, field=field, rule=rule)


def _times(values: object) -> list[datetime]:
    if not isinstance(values, list):
        raise _invalid("round_starts", "T-RHYTHM-SCHEDULE", gettext("round_starts is a list of times, one per round."))
    times: list[datetime] = []
    for value in values:
        parsed = value if isinstance(value, datetime) else parse_datetime(value) if isinstance(value, str) else None
        if parsed is None or timezone.is_naive(parsed):
            raise _invalid(
                "round_starts",
                "T-RHYTHM-SCHEDULE",
                gettext("%(value)r is not a time with its offset, like 2027-01-04T18:00:00Z.") % {"value": value},
            )
        times.append(parsed)
    if any(b <= a for a, b in zip(times, times[1:])):
        raise _invalid("round_starts", "T-RHYTHM-SCHEDULE", gettext("Each round starts after the one before."))
    return times


def _check(t: Tournament, now: datetime) -> None:
    """T-FORMAT-*: the settings of a new tournament fit together."""
    if t.format == Tournament.Format.SWISS:
        if not MIN_SEATS <= t.seats <= MAX_SEATS:
            raise _invalid("seats", "T-FORMAT-SEATS", gettext("A Swiss table has 2 to 4 seats."))
        if t.rounds is None or not 1 <= t.rounds <= MAX_ROUNDS:
            raise _invalid("rounds", "T-FORMAT-ROUNDS", gettext("A Swiss tournament has 1 to %(n)d rounds.") % {"n": MAX_ROUNDS})
    elif t.format == Tournament.Format.KNOCKOUT:
        if t.seats != 2:
            raise _invalid("seats", "T-FORMAT-SEATS", gettext("A knockout match is between two players."))
        if t.games_per_match % 2 == 0 or not 1 <= t.games_per_match <= MAX_GAMES_PER_MATCH:
            raise _invalid(
                "games_per_match",
                "T-KO-MATCH",
                gettext("A match has an odd number of games, 1 to %(n)d.") % {"n": MAX_GAMES_PER_MATCH},
            )
        t.rounds = None
    else:
        raise _invalid("format", "T-FORMAT", gettext("The format is swiss or knockout."))
    if not 2 <= t.max_players <= MAX_PLAYERS:
        raise _invalid("max_players", "T-FORMAT-PLAYERS", gettext("2 to %(n)d players.") % {"n": MAX_PLAYERS})
    if t.move_seconds < MIN_MOVE_SECONDS:
        raise _invalid("move_seconds", "T-RHYTHM-CLOCK", gettext("A correspondence move has at least an hour."))
    if t.starts_at is not None and t.starts_at <= now:
        raise _invalid("starts_at", "T-RHYTHM-START", gettext("starts_at is in the future."))
    if t.round_starts:
        times = _times(t.round_starts)
        if t.format == Tournament.Format.SWISS and len(times) != t.rounds:
            raise _invalid(
                "round_starts", "T-RHYTHM-SCHEDULE", gettext("One time per round: %(n)d times.") % {"n": t.rounds}
            )
        if times[0] <= now:
            raise _invalid("round_starts", "T-RHYTHM-SCHEDULE", gettext("The first round starts in the future."))
        if t.starts_at is not None and t.starts_at != times[0]:
            raise _invalid(
                "starts_at", "T-RHYTHM-SCHEDULE", gettext("With a schedule, the first round starts at its first time.")
            )
        t.starts_at = times[0]
        t.rhythm = Tournament.Rhythm.SCHEDULE
        t.round_starts = [time.isoformat() for time in times]


def tournament_create(*, creator: User, now: datetime | None = None, **fields: Any) -> Tournament:
    """A new tournament, open for entries; its creator is its organiser (and plays
    only if they join). ``league_id``: a league's tournament, made by one of its
    admins (or staff); its admins organise it too."""
    now = now or timezone.now()
    league_id = fields.pop("league_id", None)
    tournament = Tournament(created_by=creator, **fields)
    if league_id is not None:
        league = League.objects.filter(pk=league_id).first()
        if league is None:
            raise _invalid("league_id", "T-ORGANISER", gettext("No league has that id."))
        if not (creator.is_staff or league.admins.filter(pk=creator.pk).exists()):
            raise errors.NotAnOrganiser(gettext("Only the league's admins make its tournaments."), rule="T-ORGANISER")
        tournament.league = league
        tournament.variant = league.variant if "variant" not in fields else tournament.variant
    _check(tournament, now)
    tournament.save()
    return tournament


def _open(tournament: Tournament) -> None:
    if tournament.status != Tournament.Status.OPEN:
        raise errors.TournamentClosed(
            gettext("The tournament has started or ended: entries are closed."), status=tournament.status
        )


def _locked(tournament_id: int) -> Tournament:
    tournament = Tournament.objects.select_for_update().filter(pk=tournament_id).first()
    if tournament is None:
        raise errors.TournamentNotFound()
    return tournament


def tournament_join(*, tournament_id: int, user: User, now: datetime | None = None) -> Entry:
    """Enter an open tournament (T-ENTRY-JOIN): anyone for an open one, the invited
    for a private one, while there is room."""
    now = now or timezone.now()
    if getattr(getattr(user, "player", None), "is_suspended", False):
        raise errors.TournamentClosed(gettext("Your account is suspended."), status="suspended")
    with transaction.atomic():
        tournament = _locked(tournament_id)
        _open(tournament)
        entry = Entry.objects.filter(tournament=tournament, user=user).first()
        if entry is not None and entry.status == Entry.Status.ACTIVE:
            raise errors.AlreadyEntered()
        if entry is None and not tournament.public:
            raise errors.InvitationOnly(gettext("Ask an organiser for an invitation."), rule="T-ENTRY-PRIVATE")
        if entry is not None and entry.status == Entry.Status.WITHDRAWN and entry.reason == Entry.Reason.WITHDRAWN:
            # T-WITHDRAW, T-ORGANISER: an organiser's withdrawal is undone by an organiser's invitation only.
            raise errors.InvitationOnly(
                gettext("An organiser withdrew you from this tournament; ask them for an invitation."),
                rule="T-WITHDRAW",
            )
        if tournament.entries.filter(status=Entry.Status.ACTIVE).count() >= tournament.max_players:
            raise errors.TournamentFull(max_players=tournament.max_players)
        if entry is None:
            entry = Entry(tournament=tournament, user=user)
        entry.status, entry.reason, entry.joined_at, entry.left_at = Entry.Status.ACTIVE, "", now, None
        entry.save()
    return entry


def tournament_invite(
    *, tournament_id: int, by: User, usernames: Sequence[str], now: datetime | None = None
) -> list[Entry]:
    """An organiser invites players by username (T-ENTRY-INVITE): each invitation
    is an entry that its player accepts by joining (or declines)."""
    now = now or timezone.now()
    with transaction.atomic():
        tournament = _locked(tournament_id)
        selectors.organiser_check(tournament, by)
        _open(tournament)
        users = list(User.objects.filter(username__in=list(usernames), is_active=True))
        missing = sorted(set(usernames) - {u.username for u in users})
        if missing:
            raise _invalid("usernames", "T-ENTRY-INVITE", gettext("No player named %(names)s.") % {"names": ", ".join(missing)})
        invited = []
        for user in users:
            entry, created = Entry.objects.get_or_create(
                tournament=tournament, user=user, defaults={"status": Entry.Status.INVITED, "joined_at": now}
            )
            # Again after a decline, a departure or an organiser's withdrawal (T-WITHDRAW).
            if created or entry.status == Entry.Status.WITHDRAWN:
                entry.status, entry.reason = Entry.Status.INVITED, ""
                entry.save(update_fields=["status", "reason"])
                invited.append(entry)
                _tell_after_commit(entry)
    return invited


def _tell_after_commit(entry: Entry) -> None:
    """The invitee hears of it once the invitation is stored (a rolled-back one tells nobody)."""
    ids = {"entry_id": entry.pk, "user_id": entry.user_id, "tournament_id": entry.tournament_id}
    transaction.on_commit(lambda: signals.entry_invited.send(sender=Entry, **ids), robust=True)


def tournament_decline(*, tournament_id: int, user: User, now: datetime | None = None) -> None:
    with transaction.atomic():
        tournament = _locked(tournament_id)
        entry = Entry.objects.filter(tournament=tournament, user=user, status=Entry.Status.INVITED).first()
        if entry is None:
            raise errors.NotEntered(gettext("You have no invitation to this tournament."))
        entry.status, entry.reason, entry.left_at = Entry.Status.WITHDRAWN, Entry.Reason.DECLINED, now or timezone.now()
        entry.save(update_fields=["status", "reason", "left_at"])


def _withdraw(entry: Entry, reason: str, now: datetime) -> int:
    """T-WITHDRAW: not paired again; the games still running are resigned (they
    count for the others as any resignation does). Returns how many."""
    entry.status, entry.reason, entry.left_at = Entry.Status.WITHDRAWN, reason, now
    entry.save(update_fields=["status", "reason", "left_at"])
    running = Game.objects.filter(
        tournament_game__table__round__tournament_id=entry.tournament_id,
        status=Game.Status.ACTIVE,
        seats__user_id=entry.user_id,
        seats__resigned=False,
    ).order_by("id")
    resigned = 0
    for game in running:
        game_services.game_resign(game=game, user=entry.user)
        resigned += 1
    return resigned


def _not_ended(tournament: Tournament) -> None:
    """T-WITHDRAW: nobody leaves, nor is withdrawn from, a finished or cancelled
    tournament (its standings are final)."""
    if tournament.status not in (Tournament.Status.OPEN, Tournament.Status.RUNNING):
        raise errors.TournamentClosed(
            gettext("The tournament has ended; its standings are final."), status=tournament.status
        )


def tournament_leave(*, tournament_id: int, user: User, now: datetime | None = None) -> Entry:
    """Leave: before the start the entry goes; after it, the player withdraws
    (T-WITHDRAW) and their running games are resigned."""
    now = now or timezone.now()
    with transaction.atomic():
        tournament = _locked(tournament_id)
        entry = Entry.objects.filter(
            tournament=tournament, user=user, status__in=[Entry.Status.ACTIVE, Entry.Status.INVITED]
        ).first()
        if entry is None:
            raise errors.NotEntered()
        _not_ended(tournament)
        if tournament.status == Tournament.Status.OPEN:
            entry.status, entry.reason, entry.left_at = Entry.Status.WITHDRAWN, Entry.Reason.LEFT, now
            entry.save(update_fields=["status", "reason", "left_at"])
        else:
            _withdraw(entry, Entry.Reason.LEFT, now)
    return entry


def tournament_follow(*, tournament_id: int, user: User, follow: bool = True) -> bool:
    """Follow a public tournament (its round and end events reach the follower), or stop."""
    tournament = selectors.tournament_get_visible(tournament_id=tournament_id, user=user)
    if not follow:
        TournamentFollow.objects.filter(tournament=tournament, user=user).delete()
        return False
    if not tournament.public:
        raise errors.InvitationOnly(gettext("Only a public tournament can be followed."), rule="T-NEWS-FOLLOW")
    TournamentFollow.objects.get_or_create(tournament=tournament, user=user)
    return True


def tournament_start(*, tournament_id: int, by: User | None = None, now: datetime | None = None) -> Tournament:
    """Start the first round (T-RHYTHM-START): by an organiser, or at ``starts_at``
    (``by`` None). Invitations not taken up lapse; ratings are read once, here."""
    now = now or timezone.now()
    with transaction.atomic():
        tournament = _locked(tournament_id)
        if by is not None:
            selectors.organiser_check(tournament, by)
        _open(tournament)
        active = list(tournament.entries.filter(status=Entry.Status.ACTIVE).order_by("id"))
        if len(active) < 2:
            raise errors.TooFewPlayers(
                gettext("A tournament needs two players at least."), players=len(active), needed=2, rule="T-FORMAT-PLAYERS"
            )
        tournament.entries.filter(status=Entry.Status.INVITED).update(status=Entry.Status.WITHDRAWN, left_at=now)
        ratings = dict(
            PlayerRating.objects.filter(user_id__in=[e.user_id for e in active], variant=tournament.variant).values_list(
                "user_id", "rating"
            )
        )
        for entry in active:
            entry.rating = float(ratings.get(entry.user_id, 1500.0))
            entry.save(update_fields=["rating"])
        tournament.status, tournament.started_at = Tournament.Status.RUNNING, now
        tournament.save(update_fields=["status", "started_at"])
        rounds.round_open(tournament, now)
    return tournament


def tournaments_start_due(*, now: datetime | None = None) -> int:
    """Beat's sweep: tournaments whose ``starts_at`` has come start (those with too
    few players are cancelled), and scheduled rounds whose time has come open.
    Returns how many tournaments it moved."""
    now = now or timezone.now()
    moved = 0
    for tournament_id in Tournament.objects.filter(status=Tournament.Status.OPEN, starts_at__lte=now).values_list(
        "pk", flat=True
    ):
        try:
            tournament_start(tournament_id=tournament_id, now=now)
        except errors.TooFewPlayers:
            moved += int(_cancel_if_still_too_few(tournament_id, now))
            continue
        except errors.TournamentClosed:
            continue
        except Exception:  # one tournament's trouble never stops the others' starts
            logger.exception("tournament %s did not start", tournament_id)
            continue
        moved += 1
    for tournament_id in Tournament.objects.filter(
        status=Tournament.Status.RUNNING, rhythm=Tournament.Rhythm.SCHEDULE
    ).values_list("pk", flat=True):
        try:
            moved += int(rounds.tournament_advance(tournament_id=tournament_id, now=now))
        except Exception:
            logger.exception("tournament %s did not move on", tournament_id)
    return moved


def _cancel_if_still_too_few(tournament_id: int, now: datetime) -> bool:
    """T-RHYTHM-START: cancelled at its start time with fewer than two players,
    counted again under the lock (a player who joined meanwhile is counted)."""
    with transaction.atomic():
        tournament = _locked(tournament_id)
        if tournament.status != Tournament.Status.OPEN:
            return False
        if tournament.entries.filter(status=Entry.Status.ACTIVE).count() >= 2:
            return False
        tournament.status, tournament.finished_at = Tournament.Status.CANCELLED, now
        tournament.save(update_fields=["status", "finished_at"])
    return True


# --- the organisers' moderation (the admin; each with its permission) -------------------


def _log(by: User, action: str, entry: Entry, reason: str, now: datetime, **details: Any) -> None:
    moderation_entry_record(
        by_user=by,
        action=action,
        reason=reason,
        target_user_id=entry.user_id,
        details={"tournament_id": entry.tournament_id, "tournament": entry.tournament.name, **details},
        now=now,
    )


def _entry_moderated(entry_id: int, by: User) -> Entry:
    """The entry, its tournament locked, for one of its organisers or a moderator
    (T-ORGANISER); NotEntered for an unknown id."""
    tournament_id = Entry.objects.filter(pk=entry_id).values_list("tournament_id", flat=True).first()
    if tournament_id is None:
        raise errors.NotEntered(gettext("No such entry."))
    tournament = _locked(tournament_id)
    # Read under the lock: another organiser's withdrawal or replacement has committed.
    entry = Entry.objects.get(pk=entry_id)
    entry.tournament = tournament
    if not (selectors.is_organiser(entry.tournament, by) or by.has_perm(selectors.MODERATE_PERMISSION)):
        raise errors.NotAnOrganiser(rule="T-ORGANISER")
    return entry


def entry_withdraw(*, entry_id: int, by: User, reason: str, now: datetime | None = None) -> int:
    """An organiser withdraws a player (T-WITHDRAW), logged; returns the games resigned."""
    now = now or timezone.now()
    with transaction.atomic():
        entry = _entry_moderated(entry_id, by)
        _not_ended(entry.tournament)
        if entry.status not in (Entry.Status.ACTIVE, Entry.Status.INVITED):
            raise errors.NotEntered(gettext("That player is no longer in the tournament."))
        _log(by, ModerationEntry.Action.TOURNAMENT_WITHDRAWN, entry, reason, now)
        return _withdraw(entry, Entry.Reason.WITHDRAWN, now)


def entry_replace(*, entry_id: int, user: User, by: User, reason: str, now: datetime | None = None) -> Entry:
    """T-ADMIN-REPLACE: between rounds, an organiser hands an entry to another
    player, who takes its place in the standings from the next round; logged."""
    now = now or timezone.now()
    with transaction.atomic():
        entry = _entry_moderated(entry_id, by)
        tournament = entry.tournament
        if tournament.status not in (Tournament.Status.OPEN, Tournament.Status.RUNNING):
            raise errors.TournamentClosed(
                gettext("The tournament has ended: its players are no longer replaced."), status=tournament.status
            )
        if getattr(getattr(user, "player", None), "is_suspended", False) or not user.is_active:
            raise errors.TournamentClosed(
                gettext("%(name)s cannot play: their account is suspended or closed.") % {"name": user.username},
                status="suspended",
            )
        if entry.status != Entry.Status.ACTIVE:
            raise errors.NotEntered(gettext("Only a player still in the tournament can be replaced."))
        if Entry.objects.filter(tournament=tournament, user=user).exists():
            raise errors.AlreadyEntered(gettext("%(name)s is already in this tournament.") % {"name": user.username})
        if TournamentGame.objects.filter(
            table__round__tournament=tournament, game__status=Game.Status.ACTIVE, game__seats__user_id=entry.user_id
        ).exists():
            raise errors.NotBetweenRounds(
                gettext("The player has a game of the tournament running: replace them before the next round."),
                rule="T-ADMIN-REPLACE",
            )
        _log(by, ModerationEntry.Action.TOURNAMENT_REPLACED, entry, reason, now, new_user_id=user.pk)
        entry.user = user
        entry.save(update_fields=["user"])
    return entry
