"""Reads: what a caller may see of games, their history and their export.

Hidden information leaves the engine only through ``engine.observe``; the stored
state and the seed of an unfinished game never appear in anything returned here
except ``game_rebuild_state``, which is for server-side checks.
"""

from __future__ import annotations

from collections.abc import Collection
from datetime import datetime
from typing import TYPE_CHECKING, Any, NotRequired, TypedDict

import engine
from django.contrib.auth.models import AnonymousUser
from django.conf import settings
from django.db.models import Count, Exists, OuterRef, Prefetch, Q, QuerySet, Subquery, Sum
from django.db.models.functions import Coalesce
from django.utils import timezone

from accounts import selectors as accounts_selectors
from accounts.models import ApiToken
from accounts.selectors import AccountExport
from games import errors, game_rows, turn_reads
from games.extensions import extensions
from games.notes.selectors import WithNotes, notes_text
from games.practice import selectors as practice_selectors
from games.models import (
    Game,
    GameEvent,
    GameEventClaim,
    GamePause,
    ModerationEntry,
    Move,
    Seat,
    Vacation,
    is_public_id,
)
from games.replays import game_rebuild_state
from games.results import GameResult
from games.turn_reads import LegalMoves as LegalMoves

if TYPE_CHECKING:
    from django.contrib.auth.models import User

# What the reads return; the API's serializers render them as they are. These
# are read by the type checker only (nothing inspects their keys at run time).


class SeatSummary(TypedDict):
    seat: int | None  # play order; None until the game starts
    username: str
    display_name: str
    joined: bool
    invited: bool
    resigned: bool
    bank_seconds: int
    consecutive_timeouts: int
    bot: bool  # a bot plays the seat: a moderator handed it over, or a practice game's bot
    bot_name: str | None  # in a practice game or a sandbox: which bot (engine.bots.BOTS)


class TimeControl(TypedDict):
    move_seconds: int
    bank_seconds: int  # each seat's bank at the start
    bank_cap_seconds: int


class TimeoutPolicy(TypedDict):
    forfeit_after: int


class PauseSummary(TypedDict):
    reason: str
    user: str | None  # the player on vacation, or who paused the game
    started_at: datetime
    ends_at: datetime | None


class GameSummary(TypedDict):
    id: str
    kind: str  # real, practice or sandbox
    sandbox_of: str | None  # a sandbox's source game
    variant: str
    status: str
    version: int
    seat_count: int
    open_seats: int
    seats: list[SeatSummary]
    to_move: int | None
    your_seat: int | None
    move_timeout_hours: int | None  # deprecated: time_control.move_seconds, in whole hours only
    time_control: TimeControl
    timeout_policy: TimeoutPolicy
    public: bool
    rated: bool
    vacation_allowed: bool
    pauses_allowed: bool
    deadline_at: datetime | None
    paused: bool
    pauses: list[PauseSummary]
    seed_commitment: str | None
    created_by: str
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None
    result: GameResult | None


class GameView(GameSummary):
    board: engine.BoardView | None  # None before the start
    seed: str | None  # once the game is over


class MoveHistoryEntry(TypedDict):
    ply: int
    seat: int
    move: str
    automatic: bool
    played_by: str
    created_at: datetime
    private_card: NotRequired[str]  # only to the seat that reserved it blind


class PlayerGame(GameSummary, WithNotes):
    """One game in a player's export of their own data."""

    seed: str | None  # once the game is over
    moves: list[MoveHistoryEntry]


class VariantRecord(TypedDict):
    played: int
    won: int


class PlayerExport(TypedDict):
    account: AccountExport
    tokens: QuerySet[ApiToken]
    games: list[PlayerGame]


class PlayerProfile(TypedDict):
    username: str
    display_name: str
    joined_at: datetime
    games: dict[str, VariantRecord]
    # Added by the extensions' player_profile_extra (leagues: ratings).
    ratings: NotRequired[dict[str, dict[str, float]]]


class ExportSeat(TypedDict):
    seat: int | None
    join_position: int | None
    username: str


class ModerationExportEntry(TypedDict):
    at: str
    action: str
    user_id: int
    target_user_id: int | None
    reason: str
    details: dict[str, Any]


class GameExport(TypedDict):
    id: str
    variant: str
    players: int
    status: str
    seed_commitment: str | None
    seed: str | None
    seat_order: str
    start_state: dict[str, Any] | None
    seats: list[ExportSeat]
    moves: list[str]
    result: GameResult | None
    moderation: list[ModerationExportEntry]


def _seats_with_players() -> Prefetch[str, QuerySet[Seat], str]:
    # One query for the seats with their users and players, not one per table.
    return Prefetch("seats", queryset=Seat.objects.select_related("user__player"))


def game_get(*, game_id: str) -> Game:
    """The game with its creator and its seats' users and players: two queries."""
    if not is_public_id(game_id):
        raise errors.GameNotFound.for_id(game_id)
    if game_rows.supported():  # the same two queries, written once (games.game_rows)
        found = game_rows.game_with_seats(game_id, lock=False)
        if found is None:
            raise errors.GameNotFound.for_id(game_id)
        return found
    try:
        return Game.objects.select_related("created_by").prefetch_related(_seats_with_players()).get(pk=game_id)
    except Game.DoesNotExist:
        raise errors.GameNotFound.for_id(game_id) from None


# --- who may see a game ------------------------------------------------------------
#
# A public game is watched by anyone. A private one is seen only by its seat
# holders (invited or joined), superusers, holders of ``games.moderate_game``, and
# whoever an extension's visibility_q lets in (leagues:
# the admins of the game's league). To anyone else it does not exist: it is left
# out of lists and answered as an unknown id, so that its existence is not told.
# One exception keeps open seats joinable: a private game with an open seat may
# be read as a summary and joined by anyone who has its id (an invitation's link).

MODERATE_PERMISSION = "games.moderate_game"


def _sees_every_game(user: User | AnonymousUser | None) -> bool:
    if user is None or not user.is_authenticated or not user.is_active:
        return False
    return bool(user.is_superuser or user.has_perm(MODERATE_PERMISSION))


def _seat_or_watch_q(user: User | AnonymousUser | None, *, open_seat: bool = False) -> Q:
    """Public games, the user's own, those the extensions let them see,
    and (``open_seat``) open games with a seat anyone may take: no permission
    look-up, so that a player's own game costs no extra query."""
    visible = Q(public=True)
    if user is not None and user.is_authenticated and user.is_active:
        visible |= Q(Exists(Seat.objects.filter(game=OuterRef("pk"), user=user)))
        for extension in extensions():
            visible |= extension.visibility_q(user) or Q()
    if open_seat:
        taken = Seat.objects.filter(game=OuterRef("pk")).order_by().values("game").annotate(n=Count("pk")).values("n")
        visible |= Q(status=Game.Status.OPEN, seat_count__gt=Coalesce(Subquery(taken), 0))
    return visible


def game_visible_q(*, user: User | AnonymousUser | None) -> Q:
    """The games ``user`` may see in full, as a filter on ``Game``."""
    return Q() if _sees_every_game(user) else _seat_or_watch_q(user)


def game_has_open_seat(game: Game) -> bool:
    """An open game with a seat neither taken nor reserved for an invitee."""
    return game.status == Game.Status.OPEN and len(game.seats.all()) < game.seat_count


def game_is_visible(*, game_id: str, user: User | AnonymousUser | None, open_seat: bool = False) -> bool:
    """Whether ``user`` may see game ``game_id``: in full, or (``open_seat``) as the
    summary that lets anyone holding its id join an open seat. One query for a
    public game or the user's own; a moderator's permissions are looked up only
    when that finds nothing."""
    if not is_public_id(game_id):
        return False
    games = Game.objects.filter(pk=game_id)
    if games.filter(_seat_or_watch_q(user, open_seat=open_seat)).exists():
        return True
    return _sees_every_game(user) and games.exists()


def game_check_visible(*, game_id: str, user: User | AnonymousUser | None, open_seat: bool = False) -> None:
    """Raise GameNotFound, as for an id that names no game, unless ``user`` may
    see the game (see ``game_is_visible``)."""
    if not game_is_visible(game_id=game_id, user=user, open_seat=open_seat):
        raise errors.GameNotFound.for_id(game_id)


def game_get_visible(*, game_id: str, user: User | AnonymousUser | None, open_seat: bool = False) -> Game:
    """``game_get``, for a caller who may see the game (``game_is_visible``); else
    GameNotFound, as for an unknown id. A public game or the caller's own costs no
    query beyond game_get's (its seats are prefetched)."""
    game = game_get(game_id=game_id)
    if game.public or _seat_of(game, user) is not None or (open_seat and game_has_open_seat(game)):
        return game
    game_check_visible(game_id=game_id, user=user, open_seat=open_seat)
    return game


def game_list(
    *,
    user: User,
    mine: bool = False,
    my_turn: bool = False,
    status: str | None = None,
    kind: str = Game.Kind.REAL,
) -> QuerySet[Game]:
    """Games ``user`` may see (``game_visible_q``), newest first. ``mine``: games
    where the user holds or is invited to a seat; ``my_turn``: active games where
    it is the user's seat to play. ``kind``: real games (the default), or the
    user's own practice games or sandboxes, listed to nobody else."""
    if kind == Game.Kind.REAL:
        games = Game.objects.filter(game_visible_q(user=user), kind=Game.Kind.REAL)
    else:
        games = Game.objects.filter(kind=kind, created_by=user)
    if mine:
        games = games.filter(Exists(Seat.objects.filter(game=OuterRef("pk"), user=user)))
    if my_turn:
        games = games.filter(
            Exists(Seat.objects.filter(game=OuterRef("pk"), user=user, index=OuterRef("to_move"))),
            status=Game.Status.ACTIVE,
        )
    if status:
        games = games.filter(status=status)
    return games.order_by("-created_at", "pk").select_related("created_by").prefetch_related(_seats_with_players())


def _seat_of(game: Game, user: User | AnonymousUser | None) -> Seat | None:
    if user is None or not user.is_authenticated:
        return None
    for seat in game.seats.all():
        if seat.user_id == user.pk:
            return seat
    return None


def _display_name(user: User) -> str:
    player = getattr(user, "player", None)
    name = getattr(player, "display_name", "") if player is not None else ""
    return name or user.get_username()


def _seats_summary(game: Game) -> list[SeatSummary]:
    seats = sorted(
        game.seats.all(),
        key=lambda s: (s.index if s.index is not None else 99, s.join_position if s.join_position is not None else 99, s.pk),
    )
    return [
        {
            "seat": s.index,
            "username": s.user.get_username(),
            "display_name": _display_name(s.user),
            "joined": s.has_joined,
            "invited": s.invited,
            "resigned": s.resigned,
            "bank_seconds": s.bank_seconds,
            "consecutive_timeouts": s.consecutive_timeouts,
            "bot": (s.bot or bool(s.bot_name)) and not s.resigned,
            "bot_name": s.bot_name or None,
        }
        for s in seats
    ]


def _pauses_summary(game: Game) -> list[PauseSummary]:
    if game.clock_remaining is None:
        return []  # not paused: no query
    pauses = GamePause.objects.filter(game=game, ended_at__isnull=True).select_related("user")
    return [
        {
            "reason": pause.reason,
            # The player on vacation; whoever paused for another reason is not named.
            "user": pause.user.get_username()
            if pause.user is not None and pause.reason == GamePause.Reason.VACATION
            else None,
            "started_at": pause.started_at,
            "ends_at": pause.ends_at,
        }
        for pause in pauses
    ]


def game_summary(*, game: Game, user: User | AnonymousUser | None) -> GameSummary:
    """The public facts of a game, without the board (for lists)."""
    seat = _seat_of(game, user)
    reserved = len(game.seats.all())
    return {
        "id": game.pk,
        "kind": game.kind,
        "sandbox_of": game.sandbox_of_id,
        "variant": game.variant,
        "status": game.status,
        "version": game.version,
        "seat_count": game.seat_count,
        "open_seats": max(game.seat_count - reserved, 0) if game.status == Game.Status.OPEN else 0,
        "seats": _seats_summary(game),
        "to_move": game.to_move,
        "your_seat": seat.index if seat is not None and seat.has_joined else None,
        "move_timeout_hours": game.move_seconds // 3600 if game.move_seconds % 3600 == 0 else None,  # never 90 s as 0
        "time_control": {
            "move_seconds": game.move_seconds,
            "bank_seconds": game.bank_start_seconds,
            "bank_cap_seconds": game.bank_cap_seconds,
        },
        "timeout_policy": {"forfeit_after": game.forfeit_after},
        "public": game.public,
        "rated": game.rated,
        "vacation_allowed": game.vacation_allowed,
        "pauses_allowed": game.pauses_allowed,
        "deadline_at": game.deadline_at,
        "paused": game.clock_remaining is not None,
        "pauses": _pauses_summary(game),
        "seed_commitment": game.seed_commitment or None,
        "created_by": game.created_by.get_username(),
        "created_at": game.created_at,
        "started_at": game.started_at,
        "finished_at": game.finished_at,
        "result": game.result,
    }


def game_get_view(*, game: Game, user: User | AnonymousUser | None) -> GameView:
    """The game as ``user`` may see it: their seat's view if they play in it,
    the spectator view otherwise. ``board`` is None before the start."""
    summary = game_summary(game=game, user=user)
    board: engine.BoardView | None = None
    if game.state is not None:
        state = engine.from_dict(game.state)
        board = engine.observe(state, practice_selectors.viewing_seat(game, user, summary["your_seat"]))
    return {
        **summary,
        "board": board,
        "seed": game.seed if game.is_over and game.seed else None,
    }


def game_legal_moves(*, game_id: str, user: User | AnonymousUser) -> LegalMoves:
    """The caller's legal moves in canonical text (empty unless it is their turn),
    with the game's version, the seat to move and the caller's seat. One query:
    for a seat holder or a public game, games.turn_reads' one statement; else the
    game row with the caller's seat index and who may see it (game_is_visible)."""
    if not is_public_id(game_id):
        raise errors.GameNotFound.for_id(game_id)
    answer = turn_reads.legal_moves_seen_by_statement(game_id=game_id, user=user)
    if answer is not None:
        return answer
    games = Game.objects.only("id", "kind", "created_by_id", "status", "version", "to_move", "state")
    if user.is_authenticated:
        own_seat = Seat.objects.filter(game=OuterRef("pk"), user=user, joined_at__isnull=False).order_by()
        games = games.annotate(your_seat=Subquery(own_seat.values("index")[:1]))
    try:
        game = games.filter(_seat_or_watch_q(user)).get(pk=game_id)
    except Game.DoesNotExist:
        if not _sees_every_game(user):
            raise errors.GameNotFound.for_id(game_id) from None
        try:
            game = games.get(pk=game_id)
        except Game.DoesNotExist:
            raise errors.GameNotFound.for_id(game_id) from None
    your_seat = getattr(game, "your_seat", None)
    # A sandbox's owner plays its hot seats too (one more query, for sandboxes only).
    acting = practice_selectors.viewing_seat(game, user, your_seat) if game.kind == Game.Kind.SANDBOX else your_seat
    moves: list[str] = []
    if game.status == Game.Status.ACTIVE and acting is not None and acting == game.to_move:
        assert game.state is not None  # stored when the game started
        moves = turn_reads.seat_moves(game_id=game.pk, version=game.version, seat=acting, state=game.state)
    return {"version": game.version, "to_move": game.to_move, "your_seat": your_seat, "moves": moves}


def game_moves(*, game: Game, user: User | AnonymousUser | None) -> list[MoveHistoryEntry]:
    """The move history; a blind-reserved card is shown only to its owner."""
    seat = _seat_of(game, user)
    own_index = seat.index if seat is not None else None
    return [_history_entry(move, own_index) for move in Move.objects.filter(game=game).order_by("ply")]


def _history_entry(move: Move, own_index: int | None) -> MoveHistoryEntry:
    entry: MoveHistoryEntry = {
        "ply": move.ply,
        "seat": move.seat,
        "move": move.text,
        "automatic": move.automatic,
        "played_by": move.played_by,
        "created_at": move.created_at,
    }
    if own_index is not None and move.seat == own_index and move.private_card:
        entry["private_card"] = move.private_card
    return entry


def _seed_if_revealed(game: Game) -> str | None:
    """The seed once a game that started is over; None before (and for a game
    aborted before its start, which never had one)."""
    return game.seed if game.is_over and game.started_at is not None and game.seed else None


def player_games_export(*, user: User) -> list[PlayerGame]:
    """Every game where ``user`` holds or held a seat (or an invitation), oldest
    first, as they may see it: the public facts, the seed only once the game is
    over, the move history with only their own blind-reserved cards, and their
    own private notes (games.notes). Three queries, however many games."""
    games = (
        Game.objects.filter(Exists(Seat.objects.filter(game=OuterRef("pk"), user=user)))
        .order_by("created_at", "pk")
        .select_related("created_by")
        .prefetch_related(_seats_with_players(), Prefetch("moves", queryset=Move.objects.order_by("ply")))
    )
    exported: list[PlayerGame] = []
    for game in games:
        summary = game_summary(game=game, user=user)
        seat = _seat_of(game, user)
        own_index = seat.index if seat is not None else None
        moves = [_history_entry(move, own_index) for move in game.moves.all()]
        exported.append({**summary, "seed": _seed_if_revealed(game), "moves": moves, "notes": notes_text(seat)})
    return exported


def player_export(*, user: User) -> PlayerExport:
    """Everything the service keeps about ``user`` that they may see, for their
    own export: the account, their tokens (never the secrets) and their games."""
    return {
        "account": accounts_selectors.account_export(user=user),
        "tokens": accounts_selectors.token_list(user=user),
        "games": player_games_export(user=user),
    }


def player_profile(*, username: str) -> PlayerProfile:
    """What anyone with a token may see of a player: names, the day they joined
    and their record. Unknown, unverified, disabled and erased accounts are
    ``accounts.errors.PlayerNotFoundError``."""
    player = accounts_selectors.player_get_public(username=username)
    profile: PlayerProfile = {
        "username": player.user.get_username(),
        "display_name": player.display_name,
        "joined_at": player.user.date_joined,
        "games": player_game_record(user=player.user),
    }
    # Apps above games add to the profile through their extensions (games imports none).
    for extension in extensions():
        profile.update(extension.player_profile_extra(player.user.pk))  # type: ignore[typeddict-item]
    return profile


def player_game_record(*, user: User) -> dict[str, VariantRecord]:
    """Finished games ``user`` played in, and those they won (a shared first place
    counts), by variant: every variant, with zeros where they have none."""
    record: dict[str, VariantRecord] = {variant: {"played": 0, "won": 0} for variant in Game.Variant.values}
    # Practice games and sandboxes are no one's record.
    seats = Seat.objects.filter(
        user=user, joined_at__isnull=False, index__isnull=False, game__status=Game.Status.FINISHED, game__kind="real"
    ).values_list("index", "game__variant", "game__result")
    for index, variant, result in seats:
        counts = record.setdefault(variant, {"played": 0, "won": 0})
        counts["played"] += 1
        if isinstance(result, dict) and index in result.get("winners", []):
            counts["won"] += 1
    return record


def game_export(*, game: Game) -> GameExport:
    """Everything needed to replay the game with ``engine.replay``; the seed once it is over,
    to check against the commitment, and the seat order (``engine.seat_permutation``)."""
    joined = (s for s in game.seats.all() if s.has_joined)
    seats = sorted(joined, key=lambda s: (s.index if s.index is not None else 99, s.join_position))
    revealed = game.is_over and game.started_at is not None
    return {
        "id": game.pk,
        "variant": game.variant,
        "players": game.seat_count,
        "status": game.status,
        "seed_commitment": game.seed_commitment or None,
        "seed": game.seed if revealed else None,
        "seat_order": "joined" if game.seat_order_joined else "drawn",
        "start_state": game.start_state if revealed else None,  # a sandbox's deal: its seed, shown as one is
        "seats": [
            {"seat": s.index, "join_position": s.join_position, "username": s.user.get_username()} for s in seats
        ],
        "moves": list(Move.objects.filter(game=game).order_by("ply").values_list("text", flat=True)),
        "result": game.result,
        "moderation": game_moderation_log(game_id=game.pk),
    }


def game_moderation_log(*, game_id: str) -> list[ModerationExportEntry]:
    """What moderators did to the game, oldest first; people by user id. Looking
    at the board as a seat is logged too but is not something done to the game,
    so it is left out here."""
    entries = ModerationEntry.objects.filter(game_id=game_id).exclude(action=ModerationEntry.Action.BOARD_VIEWED)
    return [
        {
            "at": entry.at.isoformat(),
            "action": entry.action,
            "user_id": entry.user_id,
            "target_user_id": entry.target_user_id,
            "reason": entry.reason,
            "details": entry.details,
        }
        for entry in entries.order_by("at", "id")
    ]


def game_events_pending(
    *,
    consumer: str,
    created_before: datetime,
    claimed_before: datetime,
    created_after: datetime | None = None,
    limit: int = 500,
) -> list[int]:
    """Ids of outbox events, oldest first, written between ``created_after`` and
    ``created_before`` that ``consumer`` has not finished: never claimed, or
    claimed before ``claimed_before`` and still not done. (The window keeps
    each scan short, on the index on ``created_at``.)"""
    finished_or_held = GameEventClaim.objects.filter(event=OuterRef("pk"), consumer=consumer).filter(
        Q(done_at__isnull=False) | Q(claimed_at__gt=claimed_before)
    )
    events = GameEvent.objects.filter(created_at__lte=created_before)
    if created_after is not None:
        events = events.filter(created_at__gte=created_after)
    return list(
        events.exclude(Exists(finished_or_held))
        .order_by("id")
        .values_list("pk", flat=True)[:limit]
    )


def game_version_for_player(*, game_id: str, user: User) -> int:
    """The version of a game ``user`` may play in now. Refuses as ``move_submit``
    does, in the same order, before any version is compared: GameNotFound,
    NotAPlayer, GameNotActive."""
    game = game_get(game_id=game_id)
    seat = _seat_of(game, user)
    if seat is None or not seat.has_joined:
        raise errors.NotAPlayer()  # its default message
    if game.status != Game.Status.ACTIVE:
        raise errors.GameNotActive.for_move(game.status)
    return game.version


def game_open_ids(*, created_before: datetime) -> list[str]:
    """Open games created before ``created_before``, oldest first."""
    return list(
        Game.objects.filter(status=Game.Status.OPEN, created_at__lt=created_before)
        .order_by("created_at")
        .values_list("pk", flat=True)
    )


def game_ids_with_seat(*, user_id: int) -> list[str]:
    """Open and active games where the user holds, or is invited to, a seat."""
    return list(
        Game.objects.filter(seats__user_id=user_id, status__in=(Game.Status.OPEN, Game.Status.ACTIVE))
        .order_by("created_at")
        .values_list("pk", flat=True)
    )


def game_overdue_ids(
    *, now: datetime | None = None, limit: int | None = None, exclude: Collection[str] = ()
) -> list[str]:
    """Active games whose player to move has run out of time, oldest deadline
    first (on the index on ``deadline_at``), at most ``limit``, leaving out ``exclude``."""
    now = now or timezone.now()
    games = Game.objects.filter(status=Game.Status.ACTIVE, deadline_at__lte=now)
    if exclude:
        games = games.exclude(pk__in=list(exclude))
    ids = games.order_by("deadline_at", "pk").values_list("pk", flat=True)
    return list(ids[:limit] if limit is not None else ids)


def game_active_ids() -> list[str]:
    return list(Game.objects.filter(status=Game.Status.ACTIVE).order_by("pk").values_list("pk", flat=True))


def game_ids_paused_for(*, reason: str) -> list[str]:
    """Games with a pause for ``reason`` that has not ended."""
    return list(
        GamePause.objects.filter(reason=reason, ended_at__isnull=True)
        .order_by("game_id")
        .values_list("game_id", flat=True)
        .distinct()
    )


def game_ids_with_due_pauses(*, now: datetime) -> list[str]:
    """Games with a pause whose ``ends_at`` has passed but which has not ended."""
    return list(
        GamePause.objects.filter(ended_at__isnull=True, ends_at__lte=now)
        .order_by("game_id")
        .values_list("game_id", flat=True)
        .distinct()
    )


def game_ids_playing(*, user_id: int) -> list[str]:
    """Active games where the user still plays (seated, not resigned), oldest first."""
    return list(
        Game.objects.filter(
            status=Game.Status.ACTIVE,
            kind=Game.Kind.REAL,  # practice games have no clock to stop
            seats__user_id=user_id,
            seats__joined_at__isnull=False,
            seats__resigned=False,
        )
        .order_by("started_at", "pk")
        .values_list("pk", flat=True)
    )


def invitations_sent_since(*, user_id: int, since: datetime) -> list[datetime]:
    """When each invited seat of the games the user created since ``since`` was
    made (its game's creation), oldest first: what INVITATIONS_PER_DAY counts."""
    return list(
        Seat.objects.filter(invited=True, game__created_by_id=user_id, game__created_at__gte=since)
        .order_by("game__created_at")
        .values_list("game__created_at", flat=True)
    )


# --- vacation -----------------------------------------------------------------------


class VacationPeriod(TypedDict):
    starts_at: datetime
    ends_at: datetime
    days: int
    automatic: bool


class VacationSummary(TypedDict):
    year: int
    days_per_year: int
    days_used: int
    days_left: int
    current: VacationPeriod | None
    planned: list[VacationPeriod]


def vacation_days_used(*, user_id: int, year: int) -> int:
    """Vacation days counted in calendar ``year`` (UTC): those of vacations that start in it."""
    total = Vacation.objects.filter(user_id=user_id, starts_at__year=year).aggregate(total=Sum("days"))["total"]
    return int(total or 0)


def vacation_current(*, user_id: int, now: datetime) -> Vacation | None:
    """The vacation the user is on at ``now`` (the one that ends last, when they follow on)."""
    vacations = Vacation.objects.filter(user_id=user_id, starts_at__lte=now, ends_at__gt=now)
    latest = vacations.order_by("-ends_at").first()
    if latest is None:
        return None
    # Days taken during a vacation follow on from it: the whole run counts as current.
    following = Vacation.objects.filter(user_id=user_id, starts_at__gte=latest.ends_at).order_by("-ends_at").first()
    return following or latest


def _period(vacation: Vacation) -> VacationPeriod:
    return {
        "starts_at": vacation.starts_at,
        "ends_at": vacation.ends_at,
        "days": vacation.days,
        "automatic": vacation.automatic,
    }


def vacation_summary(*, user: User, now: datetime | None = None) -> VacationSummary:
    """The user's vacation this calendar year (UTC): days used and left, the
    vacation they are on now and those still to come."""
    now = now or timezone.now()
    used = vacation_days_used(user_id=user.pk, year=now.year)
    allowed: int = settings.VACATION_DAYS_PER_YEAR
    current = Vacation.objects.filter(user=user, starts_at__lte=now, ends_at__gt=now).order_by("starts_at").first()
    planned = Vacation.objects.filter(user=user, starts_at__gt=now).order_by("starts_at")
    return {
        "year": now.year,
        "days_per_year": allowed,
        "days_used": used,
        "days_left": max(0, allowed - used),
        "current": _period(current) if current is not None else None,
        "planned": [_period(vacation) for vacation in planned],
    }


__all__ = [
    "game_get",
    "game_list",
    "game_summary",
    "game_get_view",
    "game_legal_moves",
    "game_moves",
    "game_export",
    "player_export",
    "player_games_export",
    "player_profile",
    "player_game_record",
    "game_rebuild_state",
    "game_events_pending",
    "game_version_for_player",
    "game_overdue_ids",
    "vacation_summary",
]


class AdminCounts(TypedDict):
    active: int
    overdue: int
    moves_today: int


def admin_dashboard_counts(*, now: datetime | None = None) -> AdminCounts:
    """The operator's counts for the admin's front page: active games, those of
    them past their deadline, and the moves played since midnight (server time)."""
    now = now or timezone.now()
    midnight = timezone.localtime(now).replace(hour=0, minute=0, second=0, microsecond=0)
    active = Game.objects.filter(status=Game.Status.ACTIVE)
    return {
        "active": active.count(),
        "overdue": active.filter(deadline_at__lt=now).count(),
        "moves_today": Move.objects.filter(created_at__gte=midnight).count(),
    }
