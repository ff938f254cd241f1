"""The outbox: queueing each consumer's task for new events, the consumers'
claims on events, and redelivering what no consumer finished.

The consumers are the registered extensions that handle events
(games.extensions: each app registers its own, so this app imports none of them);
one task (``games.tasks.consume_events``) runs them all on the events of a change.
"""

from __future__ import annotations

import logging
import secrets
import time
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta

from celery import current_app
from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import F, Q
from django.utils import timezone
from kombu.exceptions import OperationalError

from core.log_context import log_context
from core.queue import task_send
from games import selectors
from games.extensions import GameExtension, event_consumers, extensions, hears
from games.models import Game, GameEvent, GameEventClaim
from games.services.periodic import periodic_run_mark

logger = logging.getLogger(__name__)


# A consumer that claimed an event and did not finish it within this time is
# taken to have died: the event may be claimed again (at-least-once delivery).
def _event_claim_lease() -> timedelta:
    return timedelta(seconds=settings.OUTBOX_CLAIM_LEASE_SECONDS)


# After a message the broker did not take, this process queues nothing for so long:
# the broker is down or hung, and each try would cost a request up to
# BROKER_TIMEOUT_SECONDS. The outbox keeps the events; redelivery queues them.
PUBLISH_PAUSE_SECONDS = 5.0


_publish_failed_at: float | None = None


# The one task that runs every consumer for the events of one change (games.tasks).
CONSUME_TASK = "games.tasks.consume_events"


def game_events_dispatch(*, event_ids: Sequence[int]) -> None:
    """Queue the consumers' work for the events of one change: one message, for
    the task that runs every consumer (games.extensions.event_consumers) on each
    event in turn (``game_events_consume_all``), rather than one per consumer and
    event: the request that made the change pays for one publish.

    Runs after commit, in the request (or task) that made the change, so it
    costs that request one failed publish at most: it waits on the broker for
    BROKER_TIMEOUT_SECONDS at most (the Celery app's publishing connections), no
    more than the request has left of its Redis budget and not at all while a Redis
    broker's circuit is open (core.redis_budget), and for PUBLISH_PAUSE_SECONDS
    after a failure this process does not try at all, whatever the broker. A
    broker that cannot take the message loses nothing: the events stay unclaimed
    and ``game_events_redeliver`` queues them again.
    """
    global _publish_failed_at
    if not event_ids or not event_consumers():
        return
    paused = _publish_failed_at is not None and time.monotonic() - _publish_failed_at < PUBLISH_PAUSE_SECONDS
    if paused and not current_app.conf.task_always_eager:  # eager tasks run here: no broker to spare
        logger.info("outbox events %s not queued (the broker failed just now); they will be redelivered", list(event_ids))
        return
    try:
        task_send(CONSUME_TASK, list(event_ids))
    except Exception as exc:
        if _broker_failed(exc):
            _publish_failed_at = time.monotonic()
        logger.warning(
            "could not queue outbox events %s; they will be redelivered", list(event_ids), exc_info=True
        )
        return
    _publish_failed_at = None


def game_events_write_beside(*, game: Game, events: list[GameEvent]) -> None:
    """Have each extension write its rows beside one change's stored events
    (``GameWrites.store`` and ``flush``): inside the change's transaction, once
    the events are stored (``game`` holds the new state; within ``game_change``
    its row is saved by then), so that what it writes
    commits or rolls back with the change. A practice game's or a sandbox's changes reach
    only the extensions that hear them (games.extensions.hears)."""
    for extension in extensions():
        if hears(extension, game):
            extension.write_beside_events(game, events)


def _extension_run(extension: GameExtension, event: GameEvent) -> None:
    """One consumer on one event: a practice game's or a sandbox's event is done
    at once for a consumer that does not hear them."""
    if hears(extension, event.game):
        extension.handle_event(event)


def game_events_consume_all(*, event_ids: Sequence[int]) -> None:
    """Run every consumer (the extensions that handle events) on each event of
    one change, in order, in this process. Each still claims each event for
    itself, so one that fails leaves only its own claims to expire and be
    redelivered, and the others go on; but the claims are taken and recorded
    done together, in a few statements for the whole change (``_claims_take``),
    and each event is read once."""
    consumers = event_consumers()
    if not consumers:
        return
    events = {event.pk: event for event in GameEvent.objects.select_related("game").filter(pk__in=event_ids)}
    ours = _claims_take(event_ids=list(events), consumers=[consumer.name for consumer in consumers])
    done: list[tuple[int, str]] = []
    try:
        for event_id in event_ids:
            event = events.get(event_id)
            if event is None:
                continue
            # The consumers' log lines name the event and its game (core.log_context).
            with log_context(event_id=event_id, game_id=event.game_id):
                for consumer in consumers:
                    if (event_id, consumer.name) not in ours:
                        continue  # another worker holds it, or it is done
                    try:
                        _extension_run(consumer, event)
                        done.append((event_id, consumer.name))
                    except Exception:
                        logger.exception(
                            "outbox event %s: consumer %s failed; its claim expires and it will be redelivered",
                            event_id, consumer.name,
                        )
    finally:
        _claims_done(done)


def _claims_take(*, event_ids: list[int], consumers: list[str]) -> set[tuple[int, str]]:
    """Claim every (event, consumer) pair at once: insert the claims nobody holds,
    retake those whose lease ran out, and return the pairs this call holds (each
    marked with a token of its own, so that a worker racing for the same events
    holds only what it inserted or retook)."""
    if not event_ids:
        return set()
    now = timezone.now()
    token = secrets.token_hex(8)
    GameEventClaim.objects.bulk_create(
        [
            GameEventClaim(event_id=event_id, consumer=consumer, claimed_at=now, claimed_by=token)
            for event_id in event_ids
            for consumer in consumers
        ],
        ignore_conflicts=True,
    )
    GameEventClaim.objects.filter(
        event_id__in=event_ids, consumer__in=consumers, done_at__isnull=True, claimed_at__lte=now - _event_claim_lease()
    ).exclude(claimed_by=token).update(claimed_at=now, claimed_by=token, attempts=F("attempts") + 1)
    held = GameEventClaim.objects.filter(event_id__in=event_ids, claimed_by=token, done_at__isnull=True)
    return set(held.values_list("event_id", "consumer"))


def _claims_done(done: list[tuple[int, str]]) -> None:
    if not done:
        return
    pairs = Q()
    for event_id, consumer in done:
        pairs |= Q(event_id=event_id, consumer=consumer)
    GameEventClaim.objects.filter(pairs).update(done_at=timezone.now())


def _broker_failed(exc: Exception) -> bool:
    """Whether the broker did not take a message (down, hung, refusing), rather
    than a task run inline failing: with eager tasks there is no broker."""
    return not current_app.conf.task_always_eager and isinstance(exc, OperationalError | OSError)


def game_event_claim(*, event_id: int, consumer: str, now: datetime | None = None) -> bool:
    """Claim one outbox event for one consumer. True for exactly one caller while
    the claim holds, however many workers try at once: the claim is a row unique
    per (event, consumer). A claim not finished within OUTBOX_CLAIM_LEASE_SECONDS is taken
    to belong to a worker that died and can be claimed again."""
    now = now or timezone.now()
    try:
        with transaction.atomic():
            GameEventClaim.objects.create(event_id=event_id, consumer=consumer, claimed_at=now)
        return True
    except IntegrityError:
        pass
    retaken = GameEventClaim.objects.filter(
        event_id=event_id, consumer=consumer, done_at__isnull=True, claimed_at__lte=now - _event_claim_lease()
    ).update(claimed_at=now, attempts=F("attempts") + 1)
    return retaken == 1


def game_event_done(*, event_id: int, consumer: str) -> None:
    """Record that ``consumer`` has handled the event: it is never offered again."""
    GameEventClaim.objects.filter(event_id=event_id, consumer=consumer).update(done_at=timezone.now())


def game_event_consume(*, event_id: int, consumer: str, handle: Callable[[GameEvent], None]) -> bool:
    """Claim the event for ``consumer``, run ``handle`` on it and record it done.

    Returns False when another worker holds or has finished the claim. When
    ``handle`` raises, the claim is left to expire and the event is offered
    again: at-least-once delivery, so ``handle`` must tolerate a repeat.
    """
    if not game_event_claim(event_id=event_id, consumer=consumer):
        return False
    handle(GameEvent.objects.select_related("game").get(pk=event_id))
    game_event_done(event_id=event_id, consumer=consumer)
    return True


def game_event_consume_by(*, event_id: int, consumer: str) -> bool:
    """Run the registered consumer named ``consumer`` on one event, under its claim
    (``game_event_consume``): what a consumer's own task does with a message
    queued for it by name. False when no consumer has that name here, or the
    claim is another's or done."""
    for extension in event_consumers():
        if extension.name == consumer:
            return game_event_consume(
                event_id=event_id, consumer=consumer, handle=lambda event: _extension_run(extension, event)
            )
    logger.warning("outbox event %s: no consumer named %s is registered", event_id, consumer)
    return False


def game_events_redeliver(*, older_than: timedelta | None = None, limit: int = 500) -> int:
    """Queue again the events some consumer has not finished: never claimed (the
    broker or the worker was down when they were written) or claimed by a worker
    that died. Each goes to the task that runs every consumer, in messages of up
    to REDELIVER_BATCH events; the consumers that finished an event skip it.
    Events older than OUTBOX_REDELIVER_MAX_HOURS are news no more and are left
    alone: a consumer added later is not sent the whole history. Returns how many
    events were queued."""
    consumers = [consumer.name for consumer in event_consumers()]
    now = timezone.now()
    oldest = now - timedelta(hours=settings.OUTBOX_REDELIVER_MAX_HOURS)
    pending: set[int] = set()
    for consumer in consumers:
        pending.update(
            selectors.game_events_pending(
                consumer=consumer,
                created_before=now - (older_than or timedelta(seconds=settings.OUTBOX_REDELIVER_AFTER_SECONDS)),
                created_after=oldest,
                claimed_before=now - _event_claim_lease(),
                limit=limit,
            )
        )
    ordered = sorted(pending)
    queued = 0
    for start in range(0, len(ordered), REDELIVER_BATCH):
        batch = ordered[start : start + REDELIVER_BATCH]
        try:
            task_send(CONSUME_TASK, batch)
            queued += len(batch)
        except Exception:
            logger.warning("could not queue outbox events %s", batch, exc_info=True)
    periodic_run_mark("redelivery")
    return queued


# Events per message when redelivering: a backlog becomes a few tasks, each short.
REDELIVER_BATCH = 50
