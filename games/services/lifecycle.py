"""A game's life before and around play: creating it, taking and declining
seats, starting it (the seeded seat order and deal), resigning, cancelling and
expiring open games.
"""

from __future__ import annotations

import hashlib
import math
import secrets
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

import engine
from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext, ngettext

from core.db import retry_when_database_locked
from core.text import listed
from games import errors, selectors
from games.practice import selectors as practice_selectors
from games.models import Game, GameEvent, Seat
from games.results import ResultReason
from games.services.change import GameWrites, game_change, refresh_from
from games.services.turns import abort, autoplay, joined_seat, seat_leave, settle

if TYPE_CHECKING:
    from django.contrib.auth.models import User


MIN_SEATS = 2


MAX_SEATS = 4


MAX_MOVE_TIMEOUT_HOURS = 24 * 30


MAX_BANK_HOURS = 24 * 60


DEFAULT_FORFEIT_AFTER = 3


DEFAULT_MOVE_TIMEOUT_HOURS = 72


MAX_FORFEIT_AFTER = 10


def seed_commitment_for(seed: int | str) -> str:
    """SHA-256 hex of the seed's canonical text (its decimal digits)."""
    return hashlib.sha256(str(int(seed)).encode("ascii")).hexdigest()


def deal_and_start(writes: GameWrites, now: datetime) -> None:
    """Start the game of ``writes`` with its joined seats: draw the seed, publish its
    commitment, shuffle the seat order with it and deal. Should be called while
    holding the game's row lock (or on a game this transaction created)."""
    game = writes.game
    joined = list(game.seats.filter(joined_at__isnull=False).order_by("join_position"))
    seed = secrets.randbits(256)
    order = list(range(len(joined))) if game.seat_order_joined else engine.seat_permutation(seed, len(joined))
    for seat_index, join_position in enumerate(order):
        joined[join_position].index = seat_index
    for seat in joined:
        seat.bank_seconds = game.bank_start_seconds
    seated = [joined[join_position] for join_position in order]  # by seat index
    Seat.objects.bulk_update(joined, ["index", "bank_seconds"])
    state = engine.new_game(variant=game.variant, players=len(joined), seed=seed)
    game.seed = str(seed)
    game.seed_commitment = seed_commitment_for(seed)
    game.status = Game.Status.ACTIVE
    game.started_at = now
    game.state = engine.to_dict(state)
    writes.change(
        GameEvent.Kind.GAME_STARTED,
        {
            "seed_commitment": game.seed_commitment,
            "seats": [{"seat": s.index, "user_id": s.user_id} for s in seated],
        },
    )
    state = autoplay(writes, state, resigned=())
    settle(writes, state, now, seats=seated, resigned=(), timed_out=())


def _duration(seconds: int) -> str:
    if seconds % 3600 == 0:
        return ngettext("%(n)s hour", "%(n)s hours", seconds // 3600) % {"n": seconds // 3600}
    return ngettext("%(n)s second", "%(n)s seconds", seconds) % {"n": seconds}


def _check_time_control(move_seconds: int, bank_seconds: int, bank_cap_seconds: int, forfeit_after: int) -> None:
    if not 1 <= move_seconds <= MAX_MOVE_TIMEOUT_HOURS * 3600:
        raise errors.InvalidGameSetup(
            gettext("The time per move must be between 1 second and %(most)s hours; you asked for %(asked)s.")
            % {"most": MAX_MOVE_TIMEOUT_HOURS, "asked": _duration(move_seconds)}
        )
    if not 0 <= bank_seconds <= MAX_BANK_HOURS * 3600:
        raise errors.InvalidGameSetup(
            gettext("The time bank at the start must be between 0 and %(most)s hours; you asked for %(asked)s.")
            % {"most": MAX_BANK_HOURS, "asked": _duration(bank_seconds)}
        )
    if not bank_seconds <= bank_cap_seconds <= MAX_BANK_HOURS * 3600:
        raise errors.InvalidGameSetup(
            gettext(
                "The time bank's cap must be at least the bank at the start (%(start)s) and at most "
                "%(most)s hours; you asked for %(asked)s."
            )
            % {"start": _duration(bank_seconds), "most": MAX_BANK_HOURS, "asked": _duration(bank_cap_seconds)}
        )
    if not 1 <= forfeit_after <= MAX_FORFEIT_AFTER:
        raise errors.InvalidGameSetup(
            gettext(
                "forfeit_after is the timeout in a row that forfeits a seat: from 1 (the first) to "
                "%(most)s; you asked for %(asked)s."
            )
            % {"most": MAX_FORFEIT_AFTER, "asked": forfeit_after}
        )


def _check_invitations_per_day(creator: User, inviting: int, now: datetime) -> None:
    """At most INVITATIONS_PER_DAY invited seats in the games ``creator`` made in
    the last 24 hours, these included; beyond it, say when the next one is possible."""
    limit: int = settings.INVITATIONS_PER_DAY
    since = now - timedelta(days=1)
    sent = selectors.invitations_sent_since(user_id=creator.pk, since=since)  # oldest first
    over = len(sent) + inviting - limit
    if over <= 0:
        return
    if inviting > limit:
        raise errors.TooManyInvitations(
            ngettext(
                "You can invite at most %(limit)s player a day; this game invites %(inviting)s.",
                "You can invite at most %(limit)s players a day; this game invites %(inviting)s.",
                limit,
            )
            % {"limit": limit, "inviting": inviting}
        )
    free_at = sent[over - 1] + timedelta(days=1)
    wait = max(1, math.ceil((free_at - now).total_seconds()))
    raise errors.TooManyInvitations(
        ngettext(
            "You can invite at most %(limit)s player a day and have invited %(sent)s in the last 24 hours; "
            "you can invite %(more)s from %(at)s.",
            "You can invite at most %(limit)s players a day and have invited %(sent)s in the last 24 hours; "
            "you can invite %(more)s from %(at)s.",
            limit,
        )
        % {
            "limit": limit,
            "sent": len(sent),
            "more": ngettext("%(n)s more player", "%(n)s more players", inviting) % {"n": inviting},
            "at": free_at.isoformat(timespec="seconds"),
        },
        retry_after=wait,
        next_invitation_at=free_at.isoformat(timespec="seconds"),
    )


@retry_when_database_locked
def game_create(
    *,
    creator: User,
    variant: str = "base",
    seats: int = 2,
    invited: Sequence[User] = (),
    open_seats: int | None = None,
    move_timeout_hours: int = 72,
    move_seconds: int | None = None,
    bank_seconds: int = 0,
    bank_cap_seconds: int | None = None,
    forfeit_after: int = DEFAULT_FORFEIT_AFTER,
    public: bool = False,
    rated: bool = False,
    vacation_allowed: bool = True,
    pauses_allowed: bool = True,
    seat_order_joined: bool = False,
) -> Game:
    """Create a game with the creator in the first seat.

    Invited users get a reserved seat that they take with ``seat_join``; the
    remaining seats are open to anyone. The game starts when every seat is taken.
    The time control: ``move_seconds`` per move (by default
    ``move_timeout_hours``), each seat's bank at the start (``bank_seconds``) and
    the most it can hold (``bank_cap_seconds``, by default the start), and the
    timeout in a row that forfeits a seat (``forfeit_after``). The rules a
    league sets: ``vacation_allowed`` (False: a vacation never pauses the game)
    and ``pauses_allowed`` (False: no moderator's pause). ``seat_order_joined``:
    the play order is the join order, not drawn (a knockout match's games, which
    alternate who moves first). Invitations count
    against INVITATIONS_PER_DAY (TooManyInvitations).
    """
    if variant not in engine.VARIANTS:
        raise errors.InvalidGameSetup(
            gettext("Unknown variant %(variant)s; choose one of: %(variants)s.")
            % {"variant": repr(variant), "variants": ", ".join(engine.VARIANTS)}
        )
    if not MIN_SEATS <= seats <= MAX_SEATS:
        raise errors.InvalidGameSetup(
            gettext("A game has %(least)s to %(most)s seats; you asked for %(asked)s.")
            % {"least": MIN_SEATS, "most": MAX_SEATS, "asked": seats}
        )
    if move_seconds is None:
        if not 1 <= move_timeout_hours <= MAX_MOVE_TIMEOUT_HOURS:
            raise errors.InvalidGameSetup(
                gettext("The time per move must be between 1 and %(most)s hours; you asked for %(asked)s.")
                % {"most": MAX_MOVE_TIMEOUT_HOURS, "asked": move_timeout_hours}
            )
        move_seconds = move_timeout_hours * 3600
    if bank_cap_seconds is None:
        bank_cap_seconds = bank_seconds
    _check_time_control(move_seconds, bank_seconds, bank_cap_seconds, forfeit_after)
    invited = list(invited)
    if len({user.pk for user in invited}) != len(invited):
        names = [user.get_username() for user in invited]
        twice = sorted({name for name in names if names.count(name) > 1})
        raise errors.InvalidGameSetup(
            gettext("You invited %(names)s more than once; invite each player once.") % {"names": listed(twice)}
        )
    if any(user.pk == creator.pk for user in invited):
        raise errors.InvalidGameSetup(gettext("You take a seat in the games you create; do not invite yourself."))
    computed_open = seats - 1 - len(invited)
    if computed_open < 0:
        raise errors.InvalidGameSetup(
            ngettext(
                "You invited %(invited)s but there is only %(n)s seat besides yours.",
                "You invited %(invited)s but there are only %(n)s seats besides yours.",
                seats - 1,
            )
            % {
                "invited": ngettext("%(n)s player", "%(n)s players", len(invited)) % {"n": len(invited)},
                "n": seats - 1,
            }
        )
    if open_seats is not None and open_seats != computed_open:
        raise errors.InvalidGameSetup(
            ngettext(
                "%(seats)s with %(invited)s leaves %(n)s open seat, not %(asked)s.",
                "%(seats)s with %(invited)s leave %(n)s open seats, not %(asked)s.",
                computed_open,
            )
            % {
                "seats": ngettext("%(n)s seat", "%(n)s seats", seats) % {"n": seats},
                "invited": ngettext("%(n)s invited player", "%(n)s invited players", len(invited))
                % {"n": len(invited)},
                "n": computed_open,
                "asked": open_seats,
            }
        )
    now = timezone.now()
    with transaction.atomic():
        if invited:
            _check_invitations_per_day(creator, len(invited), now)
        game = Game.objects.create(
            variant=variant,
            seat_count=seats,
            created_by=creator,
            move_timeout_hours=move_seconds // 3600,
            move_seconds=move_seconds,
            bank_start_seconds=bank_seconds,
            bank_cap_seconds=bank_cap_seconds,
            forfeit_after=forfeit_after,
            invite_only=bool(invited) and computed_open == 0,
            public=public,
            rated=rated,
            vacation_allowed=vacation_allowed,
            pauses_allowed=pauses_allowed,
            seat_order_joined=seat_order_joined,
        )
        Seat.objects.bulk_create(
            [
                Seat(game=game, user=creator, joined_at=now, join_position=0),
                *(Seat(game=game, user=user, invited=True) for user in invited),
            ]
        )
        writes = GameWrites(game)
        writes.change(
            GameEvent.Kind.GAME_CREATED,
            {
                "variant": variant,
                "seats": seats,
                "public": public,
                "rated": rated,
                "creator_id": creator.pk,
                "invited_ids": [user.pk for user in invited],
            },
        )
        writes.flush()
        game.save()
    return game


def _check_expected_version(game: Game, expected_version: int | None) -> None:
    """StaleVersion unless the caller named no version or the game's own. Should
    be called while holding the game's row lock (``game_lock``), before any write."""
    if expected_version is not None and expected_version != game.version:
        raise errors.StaleVersion(
            gettext("You expected version %(expected)s but the game is at version %(version)s; read it again and retry.")
            % {"expected": expected_version, "version": game.version},
            current_version=game.version,
        )


@retry_when_database_locked
def seat_join(*, game: Game, user: User, expected_version: int | None = None) -> Seat:
    """Take an invited or open seat. The join that fills the last seat starts the game."""
    now = timezone.now()
    with game_change(game.pk) as writes:
        locked = writes.game
        if locked.status != Game.Status.OPEN:
            raise errors.SeatUnavailable(
                gettext("This game has already started or ended, so there is no seat left to take.")
            )
        _check_expected_version(locked, expected_version)
        seat = locked.seats.filter(user=user).first()
        if seat is not None and seat.has_joined:
            raise errors.SeatUnavailable(gettext("You already have a seat in this game."))
        joined_count = locked.seats.filter(joined_at__isnull=False).count()
        if seat is None:
            if locked.seats.count() >= locked.seat_count:
                raise errors.SeatUnavailable(
                    gettext("Every seat in this game is taken or reserved for an invited player.")
                )
            seat = Seat(game=locked, user=user)
        seat.joined_at = now
        seat.join_position = joined_count
        seat.save()
        writes.change(GameEvent.Kind.SEAT_JOINED, {"user_id": user.pk, "invited": seat.invited})
        if joined_count + 1 == locked.seat_count:
            deal_and_start(writes, now)
    refresh_from(game, locked)
    return seat


@retry_when_database_locked
def game_start(*, game: Game) -> Game:
    """Start a game whose seats are all taken (``seat_join`` does this by itself)."""
    now = timezone.now()
    with game_change(game.pk) as writes:
        locked = writes.game
        if locked.status != Game.Status.OPEN:
            raise errors.GameNotActive(gettext("This game has already started or ended."))
        joined = locked.seats.filter(joined_at__isnull=False).count()
        if joined != locked.seat_count:
            raise errors.SeatUnavailable(
                ngettext(
                    "The game starts when all %(seats)s seats are taken; %(n)s is so far.",
                    "The game starts when all %(seats)s seats are taken; %(n)s are so far.",
                    joined,
                )
                % {"seats": locked.seat_count, "n": joined}
            )
        deal_and_start(writes, now)
    refresh_from(game, locked)
    return game


@retry_when_database_locked
def game_resign(*, game: Game, user: User, expected_version: int | None = None) -> Game:
    """Resign the caller's seat; with ``expected_version``, only while the game
    is at that version (StaleVersion otherwise, and nothing changes).

    With two seats the other player wins at once. With more, the game goes on:
    the server plays the resigned seat's turns with a quiet move, the seat ranks
    last, and when one player is left standing that player wins.
    """
    now = timezone.now()
    with game_change(game.pk) as writes:
        locked = writes.game
        seat = joined_seat(locked, user)
        # Before the status: a resignation that ended the game is still yours.
        if seat.resigned:
            raise errors.AlreadyResigned(
                gettext("You have already resigned from this game; the others play on without you.")
                if locked.status == Game.Status.ACTIVE
                else gettext("You have already resigned from this game.")
            )
        if locked.status != Game.Status.ACTIVE:
            raise errors.GameNotActive(
                gettext("This game is %(status)s; you can resign only while it is active.")
                % {"status": errors.status_words(locked.status)},
                game_status=locked.status,
            )
        _check_expected_version(locked, expected_version)
        seat_leave(writes, seat, reason=ResultReason.RESIGNATION, now=now)
    refresh_from(game, locked)
    return game


@retry_when_database_locked
def game_cancel(*, game_id: str, user: User, expected_version: int | None = None) -> Game:
    """The creator calls off a game that has not started: it becomes aborted and
    everyone invited is told (a ``game_aborted`` event, reason ``cancelled``).
    With ``expected_version``, only while the game is at that version."""
    now = timezone.now()
    with game_change(game_id) as writes:
        game = writes.game
        if game.created_by_id != user.pk:
            raise errors.NotTheCreator(gettext("Only the player who created this game can cancel it."))
        if game.status != Game.Status.OPEN:
            raise errors.GameNotOpen(
                gettext(
                    "This game is %(status)s; only a game that has not started can be cancelled "
                    "(an active game can be resigned)."
                )
                % {"status": errors.status_words(game.status)},
                game_status=game.status,
            )
        _check_expected_version(game, expected_version)
        abort(writes, reason="cancelled", now=now, by_user_id=user.pk)
    return game


@retry_when_database_locked
def seat_decline(*, game_id: str, user: User, expected_version: int | None = None) -> Game:
    """An invitee turns the invitation down. Their reserved seat becomes open to
    anyone, unless the creator reserved every other seat for invitees
    (``invite_only``): then the game is aborted (reason ``declined``). With
    ``expected_version``, only while the game is at that version."""
    now = timezone.now()
    with game_change(game_id) as writes:
        game = writes.game
        if game.status != Game.Status.OPEN:
            raise errors.GameNotOpen(
                gettext("This game is %(status)s; an invitation can be declined only before the game starts.")
                % {"status": errors.status_words(game.status)},
                game_status=game.status,
            )
        seat = game.seats.filter(user=user, invited=True, joined_at__isnull=True).first()
        if seat is None:
            raise errors.NotInvited(
                gettext("You have no open invitation to this game, so there is nothing to decline.")
            )
        _check_expected_version(game, expected_version)
        seat.delete()
        writes.change(GameEvent.Kind.SEAT_DECLINED, {"user_id": user.pk})
        if game.invite_only:
            abort(writes, reason="declined", now=now, by_user_id=user.pk)
    return game


def game_expire_open(*, now: datetime | None = None) -> int:
    """Abort open games nobody has joined for OPEN_GAME_EXPIRY_DAYS, and practice
    games and sandboxes nobody has moved in for as long (reason ``expired``).
    Each game has its own transaction; returns how many."""
    now = now or timezone.now()
    cutoff = now - timedelta(days=settings.OPEN_GAME_EXPIRY_DAYS)
    expired = 0
    for game_id in selectors.game_open_ids(created_before=cutoff):
        expired += _expire_one(game_id=game_id, cutoff=cutoff, now=now)
    for game_id in practice_selectors.practice_game_ids_untouched(since=cutoff):
        expired += _expire_untouched_practice(game_id=game_id, cutoff=cutoff, now=now)
    return expired


@retry_when_database_locked
def _expire_one(*, game_id: str, cutoff: datetime, now: datetime) -> bool:
    with game_change(game_id) as writes:
        game = writes.game
        if game.status != Game.Status.OPEN or game.created_at > cutoff:
            return False
        abort(writes, reason="expired", now=now)
    return True


@retry_when_database_locked
def _expire_untouched_practice(*, game_id: str, cutoff: datetime, now: datetime) -> bool:
    with game_change(game_id) as writes:
        # Checked again under the lock: a move may have come since the list was read.
        game = writes.game
        if not game.is_practice or game.status != Game.Status.ACTIVE or game.moves.filter(created_at__gte=cutoff).exists():
            return False
        abort(writes, reason="expired", now=now)
    return True
