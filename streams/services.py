"""Writing each account's stream: the events of a game change as each account in it
may see them, and ``your_turn`` for the seat to move; opening and reading a stream.

``stream_events_write`` runs inside the change's transaction (this app's
extension, streams.extension), so the stream holds exactly the
changes that were stored, in their order. Ids are assigned under each account's
``StreamCursor`` row lock (taken in user id order, the last thing the change does),
so one account's events become visible in id order.
"""

from __future__ import annotations

import logging
import secrets
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone

import engine
from games import turn_reads
from games.audience import event_audience
from games.engine_states import state_of_game
from games.models import Game, GameEvent, Seat
from streams import bus, selectors
from streams.models import StreamConnection, StreamCursor, StreamEvent
from streams.selectors import Frame

logger = logging.getLogger(__name__)

# A change with one of these may have made it someone's turn (docs/stream.md).
_TURN_KINDS = frozenset(
    {"game_started", "move_played", "seat_resigned", "seat_replaced", "turn_timed_out", "game_adjudicated"}
)
# Events read from the database at once while replaying or catching up.
READ_BATCH = 200


def _your_turn(game: Game, seats: list[tuple[int, int | None, bool, bool]]) -> tuple[int, dict[str, Any]] | None:
    """The account to move and its ``your_turn`` data, when a person is to move."""
    if game.status != Game.Status.ACTIVE or game.to_move is None or game.state is None:
        return None
    for user_id, index, bot, resigned in seats:
        if index == game.to_move and not bot and not resigned:
            state = state_of_game(game)
            moves = tuple(sorted(engine.format_move(move) for move in engine.legal_moves(state)))
            # The seat's next GET legal-moves may come to this process: its answer is
            # kept, once this change has committed (a version rolled back is never kept).
            key = (game.pk, game.version, index)
            transaction.on_commit(lambda: turn_reads.legal_moves_keep(key, moves))
            return user_id, {
                "game_id": game.pk,
                "version": game.version,
                "variant": game.variant,
                "seat": index,
                # What this seat may see: its own reserve, the others' blind reserves hidden.
                "view": engine.observe(state, index),
                "legal_moves": list(moves),
            }
    return None


def stream_events_write(game: Game, events: list[GameEvent]) -> None:
    """Write one change's events into the streams of the accounts who hear of them
    (games.audience), and the ``your_turn`` of the account to move; wake their
    streams once it commits. Practice games and sandboxes never come here
    (games.extensions.hears)."""
    if not events:
        return
    seats = _seats(game, events)
    seated = {user_id for user_id, *_ in seats}
    rows: dict[int, list[tuple[str, dict[str, Any]]]] = {}
    for event in events:
        for user_id in event_audience(event, seated=seated):
            rows.setdefault(user_id, []).append((event.kind, event.public_data()))
    if any(event.kind in _TURN_KINDS for event in events):
        turn = _your_turn(game, seats)
        if turn is not None:
            rows.setdefault(turn[0], []).append(("your_turn", turn[1]))
    if not rows:
        return  # a chat line nobody hears of (the author alone, or everyone muted it)
    now = timezone.now()
    if connection.vendor == "postgresql":
        _ids_take_and_write(rows, now)
    else:
        stored: list[StreamEvent] = []
        lasts = _ids_take({user_id: len(kinds) for user_id, kinds in rows.items()})
        for user_id, kinds in rows.items():
            first = lasts[user_id] - len(kinds) + 1
            stored += [
                StreamEvent(user_id=user_id, seq=first + n, kind=kind, data=data, created_at=now)
                for n, (kind, data) in enumerate(kinds)
            ]
        StreamEvent.objects.bulk_create(stored)
    woken = sorted(rows)
    transaction.on_commit(lambda: bus.publish(woken), robust=True)


# Changes that may have changed seats after the change loaded them.
_SEAT_KINDS = frozenset(
    {"seat_joined", "seat_resigned", "seat_replaced", "seat_declined", "seat_left", "game_started", "turn_timed_out"}
)


def _seats(game: Game, events: list[GameEvent]) -> list[tuple[int, int | None, bool, bool]]:
    """(user id, index, bot, resigned) of the seats that have a player: the seats the
    change loaded with the game when no seat changed since (a move), else one query."""
    cached = getattr(game, "_prefetched_objects_cache", {}).get("seats")
    if cached is not None and not any(event.kind in _SEAT_KINDS for event in events):
        return [(seat.user_id, seat.index, seat.bot, seat.resigned) for seat in cached if seat.user_id is not None]
    return list(Seat.objects.filter(game=game, user__isnull=False).values_list("user_id", "index", "bot", "resigned"))


def _ids_take(counts: dict[int, int]) -> dict[int, int]:
    """Reserve ``counts[user_id]`` ids of each account's sequence; the last of each.

    One upsert for all the accounts, in user id order (one order for every change,
    so that no two changes wait on each other); each cursor row stays locked until
    the change commits, so an account's events become visible in id order."""
    order = sorted(counts)
    values = ", ".join(["(%s, %s)"] * len(order))
    params: list[int] = [value for user_id in order for value in (user_id, counts[user_id])]
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO streams_streamcursor (user_id, last_id) VALUES {values} "  # noqa: S608 (placeholders only)
            "ON CONFLICT (user_id) DO UPDATE SET last_id = streams_streamcursor.last_id + excluded.last_id "
            "RETURNING user_id, last_id",
            params,
        )
        return {int(user_id): int(last_id) for user_id, last_id in cursor.fetchall()}


def _ids_take_and_write(rows: dict[int, list[tuple[str, dict[str, Any]]]], now: Any) -> None:
    """``_ids_take`` and the events' insert in one statement (PostgreSQL): the
    cursors' upsert, in user id order as ``_ids_take`` takes them, hands each
    account's last id to the insert of its events, numbered up to it in order."""
    order = sorted(rows)
    params: list[Any] = []
    for user_id in order:
        params += [user_id, len(rows[user_id])]
    data_field = StreamEvent._meta.get_field("data")
    created_at = StreamEvent._meta.get_field("created_at").get_db_prep_save(now, connection)
    values = []
    for user_id in order:
        kinds = rows[user_id]
        for n, (kind, data) in enumerate(kinds):
            # seq = the account's last id - how many of its events come after this one.
            values.append("(%s::bigint, %s::bigint, %s::integer, %s::varchar, %s::jsonb, %s::timestamptz)")
            params += [len(values), user_id, len(kinds) - 1 - n, kind, data_field.get_db_prep_save(data, connection), created_at]
    with connection.cursor() as cursor:
        cursor.execute(
            "WITH c AS (INSERT INTO streams_streamcursor (user_id, last_id) VALUES "  # noqa: S608 (placeholders only)
            + ", ".join(["(%s, %s)"] * len(order))
            + " ON CONFLICT (user_id) DO UPDATE SET last_id = streams_streamcursor.last_id + excluded.last_id "
            "RETURNING user_id, last_id) "
            "INSERT INTO streams_streamevent (user_id, seq, kind, data, created_at) "
            "SELECT v.user_id, c.last_id - v.later, v.kind, v.data, v.created_at FROM (VALUES "
            + ", ".join(values)
            + ") AS v (n, user_id, later, kind, data, created_at) JOIN c ON c.user_id = v.user_id ORDER BY v.n",
            params,
        )


@dataclass(frozen=True)
class OpenStream:
    user_id: int
    token_id: int
    connection: str
    # What the stream sends first: a replay of what was missed, or one snapshot.
    first: list[Frame]
    # The id the stream has sent up to (the replay may continue past ``first``).
    after: int


def stream_open(*, user_id: int, token_id: int, last_event_id: int | None) -> OpenStream:
    """Make this the token's one open stream (an older one is told ``closed``), and
    work out where it starts: after ``last_event_id`` when every event since is
    still kept, otherwise with a ``snapshot`` (docs/stream.md)."""
    connection_id = secrets.token_hex(8)
    StreamConnection.objects.update_or_create(
        token_id=token_id, defaults={"connection": connection_id, "opened_at": timezone.now()}
    )
    last_id = selectors.stream_last_id(user_id=user_id)
    if last_event_id is not None and selectors.stream_can_resume(user_id=user_id, after=last_event_id, last_id=last_id):
        first = selectors.stream_events_after(user_id=user_id, after=last_event_id, limit=READ_BATCH)
        after = first[-1]["id"] if first else last_event_id
    else:
        # Read after the id: a change that commits in between is sent again after it, never lost.
        first = [{"id": last_id, "event": "snapshot", "data": selectors.stream_snapshot(user_id=user_id)}]
        after = last_id
    # Wakes the stream this one replaces, wherever it is served.
    transaction.on_commit(lambda: bus.publish([user_id]), robust=True)
    logger.info("stream %s opened for user %s after id %s", connection_id, user_id, after)
    return OpenStream(user_id=user_id, token_id=token_id, connection=connection_id, first=first, after=after)


@dataclass(frozen=True)
class News:
    events: list[Frame]
    # Why the stream ends now: "replaced" (another stream of the same token was
    # opened) or "revoked" (the token was revoked, the account disabled or suspended).
    ended: str | None


def stream_read(*, stream: OpenStream, after: int) -> News:
    """What happened since ``after``, unless the stream must end."""
    ended = selectors.stream_end_reason(token_id=stream.token_id, connection=stream.connection)
    if ended is not None:
        return News(events=[], ended=ended)
    return News(events=selectors.stream_events_after(user_id=stream.user_id, after=after, limit=READ_BATCH), ended=None)


def stream_close(*, stream: OpenStream) -> None:
    """Forget the connection when it ends, unless another has replaced it."""
    StreamConnection.objects.filter(token_id=stream.token_id, connection=stream.connection).delete()


def stream_forget_account(*, user_id: int) -> None:
    """An erased account's stream goes with it (streams.receivers)."""
    StreamEvent.objects.filter(user_id=user_id).delete()
    StreamCursor.objects.filter(user_id=user_id).delete()
    StreamConnection.objects.filter(token__user_id=user_id).delete()


def stream_events_prune(*, now: Any = None) -> int:
    """Delete what is older than STREAM_REPLAY_HOURS; the count deleted."""
    cutoff = (now or timezone.now()) - timedelta(hours=settings.STREAM_REPLAY_HOURS)
    deleted, _ = StreamEvent.objects.filter(created_at__lt=cutoff).delete()
    return deleted
