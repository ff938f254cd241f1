"""The outbox: queueing each consumer's task for new events, the consumers'
claims on events, and redelivering what no consumer finished.

Consumers are named in ``settings.GAME_EVENT_CONSUMERS`` and queued by task
name, so this app imports none of them.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta

from celery import current_app
from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone
from kombu.exceptions import OperationalError

from core.queue import task_send
from games import selectors
from games.models import GameEvent, GameEventClaim

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


def game_events_dispatch(*, event_ids: Sequence[int]) -> None:
    """Queue each outbox consumer's task for these events, by task name.

    Runs after commit, in the request (or task) that made the change, so it
    costs that request one failed publish at most: each waits on the broker for
    BROKER_TIMEOUT_SECONDS at most (the Celery app's publishing connections), the
    first that fails ends the dispatch, and for PUBLISH_PAUSE_SECONDS after it this
    process does not try at all. A broker that cannot take the message loses
    nothing: the events stay unclaimed and ``game_events_redeliver`` queues them again.
    """
    global _publish_failed_at
    paused = _publish_failed_at is not None and time.monotonic() - _publish_failed_at < PUBLISH_PAUSE_SECONDS
    if paused and not current_app.conf.task_always_eager:  # eager tasks run here: no broker to spare
        logger.info("outbox events %s not queued (the broker failed just now); they will be redelivered", list(event_ids))
        return
    consumers: dict[str, str] = settings.GAME_EVENT_CONSUMERS
    for consumer, task_name in consumers.items():
        for event_id in event_ids:
            try:
                task_send(task_name, event_id)
            except Exception as exc:
                if not _broker_failed(exc):
                    logger.warning(
                        "could not queue outbox event %s for consumer %s; it will be redelivered",
                        event_id, consumer, exc_info=True,
                    )
                    continue
                _publish_failed_at = time.monotonic()
                logger.warning(
                    "could not queue outbox event %s for consumer %s (the broker did not take it); "
                    "it and the rest of %s will be redelivered",
                    event_id, consumer, list(event_ids), exc_info=True,
                )
                return
    _publish_failed_at = None


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
    event = GameEvent.objects.select_related("game").get(pk=event_id)
    handle(event)
    game_event_done(event_id=event_id, consumer=consumer)
    return True


def game_events_redeliver(*, older_than: timedelta | None = None, limit: int = 500) -> int:
    """Queue again, for each consumer, the events it has not finished: never
    claimed (the broker or the worker was down when they were written) or
    claimed by a worker that died. Events older than OUTBOX_REDELIVER_MAX_HOURS
    are news no more and are left alone: a consumer added later is not sent the
    whole history. Returns how many were queued."""
    consumers: dict[str, str] = settings.GAME_EVENT_CONSUMERS
    queued = 0
    now = timezone.now()
    oldest = now - timedelta(hours=settings.OUTBOX_REDELIVER_MAX_HOURS)
    for consumer, task_name in consumers.items():
        event_ids = selectors.game_events_pending(
            consumer=consumer,
            created_before=now - (older_than or timedelta(seconds=settings.OUTBOX_REDELIVER_AFTER_SECONDS)),
            created_after=oldest,
            claimed_before=now - _event_claim_lease(),
            limit=limit,
        )
        for event_id in event_ids:
            try:
                task_send(task_name, event_id)
                queued += 1
            except Exception:
                logger.warning("could not queue outbox event %s for %s", event_id, consumer, exc_info=True)
    return queued
