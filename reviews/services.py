"""Writing reviews (docs/review.md): asking for a game's review, searching its
positions one task at a time, and the beat's sweep that queues a review whose
task was lost.

A review is one chain of tasks on the `bots` queue: asking for it queues its
first position once the request's transaction commits; each task searches one
position (``review_position_search``), stores it, and queues the next on commit.
So a review holds at most one message in the queue at a time, behind whatever
bots' moves were queued before it: a practice game's next move waits for at
most one position of each review under way, never for a whole review.

A position is stored once: a task that finds its row written, or loses the race
to write it, stores nothing and queues nothing, so a task run twice (acks_late,
the sweep) never forks the chain. The search reads nothing but the state before
the move and a seed made from the game's id and the ply (``review_seed``), never
the deal's seed: a review searched again gives the same numbers.
"""

from __future__ import annotations

import hashlib
import logging
import math
import threading
import time
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.db.models import Sum
from django.utils import timezone
from django.utils.translation import ngettext

from core.db import retry_when_database_locked
from core.queue import task_send
from core.text import moment_words
from engine.review import PositionReview, review_position
from games.models import Move
from games.replays import state_after
from reviews import errors, metrics, selectors
from reviews.models import GameReview, ReviewPosition, ReviewStart

if TYPE_CHECKING:
    from django.contrib.auth.models import User

logger = logging.getLogger(__name__)

REVIEW_POSITION_TASK = "reviews.tasks.bot_review_position"


def review_seed(*, game_id: str, ply: int) -> int:
    """The search's seed for one position: from the game's id and the ply, so that
    the review of a game is the same however often it is searched, and nothing
    about the deal goes into it."""
    digest = hashlib.sha256(f"review:{game_id}:{ply}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


# --- asking for a review ------------------------------------------------------------


def _rate_check(*, user: User, now: datetime) -> None:
    """At most REVIEWS_PER_DAY reviews started by ``user`` in the last 24 hours
    (called while holding the account's row lock, so that two requests at once
    cannot both take the last one)."""
    limit: int = settings.REVIEWS_PER_DAY
    started = selectors.reviews_started_since(user_id=user.pk, since=now - timedelta(days=1))
    if len(started) < limit:
        return
    free_at = started[len(started) - limit] + timedelta(days=1)
    raise errors.TooManyReviews(
        ngettext(
            "You can start at most %(limit)s review a day; you can start the next from %(at)s.",
            "You can start at most %(limit)s reviews a day; you can start the next from %(at)s.",
            limit,
        )
        % {"limit": limit, "at": moment_words(free_at, getattr(getattr(user, "player", None), "time_zone", "") or "UTC")},
        retry_after=math.ceil((free_at - now).total_seconds()),
        next_review_at=free_at.isoformat(timespec="seconds"),
    )


@retry_when_database_locked
def review_request(*, game_id: str, user: User) -> GameReview:
    """The review of game ``game_id`` for ``user``, who may see the game once it is
    over (GameNotFound, GameNotOver otherwise). One review per game, shared by all
    who ask: a review done or under way is returned as it is and costs nothing. A
    new one (or a failed one started again) counts against the account's
    REVIEWS_PER_DAY (TooManyReviews past it) and its first position missing is
    queued once this commits."""
    game = selectors.review_game_for_reading(game_id=game_id, user=user)
    now = timezone.now()
    with transaction.atomic():
        # One account's requests one after the other: the count below stays true.
        get_user_model().objects.select_for_update().filter(pk=user.pk).first()
        review = GameReview.objects.select_for_update().filter(game=game).first()
        if review is not None and review.status != GameReview.Status.FAILED:
            return review
        _rate_check(user=user, now=now)
        if review is None:
            total = Move.objects.filter(game=game).count()
            try:
                with transaction.atomic():
                    review = GameReview.objects.create(
                        game=game, requested_by=user, started_at=now, progressed_at=now,
                        playouts=settings.REVIEW_PLAYOUTS, positions_total=total,
                    )
            except IntegrityError:
                # Someone else asked at the same moment: theirs is the review, and costs this account nothing.
                return GameReview.objects.get(game=game)
        else:
            review.status = GameReview.Status.PENDING
            review.requested_by = user
            review.started_at = review.progressed_at = now
            review.finished_at = None
            review.failure = ""
            review.save(update_fields=["status", "requested_by", "started_at", "progressed_at", "finished_at", "failure"])
        ReviewStart.objects.create(review=review, user=user, started_at=now)
        _continue(review)
    return review


# --- one position per task -------------------------------------------------------------

# Tasks queued while a task runs inline (CELERY_TASK_ALWAYS_EAGER: the tests, a
# site on the in-process broker) are sent after it returns rather than inside it,
# so that a review's chain is a loop there, not a recursion as deep as the game.
_sending = threading.local()


def _send(review_id: int, ply: int) -> None:
    waiting: list[tuple[int, int]] | None = getattr(_sending, "waiting", None)
    if waiting is not None:
        waiting.append((review_id, ply))
        return
    _sending.waiting = waiting = [(review_id, ply)]
    try:
        while waiting:
            review, position = waiting.pop(0)
            try:
                task_send(REVIEW_POSITION_TASK, review, position)
            except Exception:
                # The broker refused: the beat's sweep (reviews_requeue) queues it again.
                logger.warning("could not queue position %s of review %s", position, review, exc_info=True)
    finally:
        _sending.waiting = None


def _continue(review: GameReview) -> None:
    """Queue the review's first missing position once this transaction commits, or
    end the review when none is missing. Called while holding the review's row lock."""
    missing = selectors.review_missing_plies(review)
    if missing:
        review_id, ply = review.pk, missing[0]
        transaction.on_commit(lambda: _send(review_id, ply), robust=True)
        return
    _end(review, status=GameReview.Status.DONE)


def _end(review: GameReview, *, status: str, failure: str = "") -> None:
    """End the review (done or failed) and count it once this commits. Called while
    holding its row lock."""
    now = timezone.now()
    review.status = status
    review.finished_at = now
    review.failure = failure[:200]
    review.save(update_fields=["status", "finished_at", "failure"])
    searched = ReviewPosition.objects.filter(review=review).aggregate(total=Sum("seconds"))["total"] or 0.0
    started_at = review.started_at
    transaction.on_commit(
        lambda: metrics.review_ended(outcome=status, started_at=started_at, finished_at=now, search_seconds=searched),
        robust=True,
    )


def _search(review: GameReview, ply: int) -> tuple[Move, PositionReview, float] | None:
    """The search's verdict on move ``ply``, outside any transaction (it takes a
    while), with its time; None when the game has no such move."""
    moves = list(Move.objects.filter(game_id=review.game_id).order_by("ply"))
    if ply >= len(moves):
        return None
    state = state_after(review.game, [move.text for move in moves[:ply]])
    if state is None:
        return None
    started = time.perf_counter()
    verdict = review_position(
        state, moves[ply].text, playouts=review.playouts, seed=review_seed(game_id=review.game_id, ply=ply)
    )
    return moves[ply], verdict, time.perf_counter() - started


@retry_when_database_locked
def _store(review_id: int, ply: int, move: Move, verdict: PositionReview, seconds: float) -> bool:
    """Store one position and queue the next (or end the review), under the review's
    lock. False when the review is no longer pending or the position was stored by
    another run: then nothing is queued."""
    with transaction.atomic():
        review = GameReview.objects.select_for_update().filter(pk=review_id).first()
        if review is None or review.status != GameReview.Status.PENDING:
            return False
        try:
            with transaction.atomic():
                ReviewPosition.objects.create(
                    review=review, ply=ply, seat=move.seat, move=move.text,
                    before=list(verdict.before), after=list(verdict.after),
                    best=verdict.best or "", drop=verdict.drop, seconds=seconds,
                )
        except IntegrityError:
            return False
        review.progressed_at = timezone.now()
        review.save(update_fields=["progressed_at"])
        _continue(review)
    return True


@retry_when_database_locked
def _fail(review_id: int, failure: str) -> None:
    with transaction.atomic():
        review = GameReview.objects.select_for_update().filter(pk=review_id).first()
        if review is not None and review.status == GameReview.Status.PENDING:
            _end(review, status=GameReview.Status.FAILED, failure=failure)


def review_position_search(*, review_id: int, ply: int) -> bool:
    """Search position ``ply`` of review ``review_id`` (the state before move
    ``ply``, from its mover's information set), store it and queue the next.
    Safe to run twice or at once: a position stored already is not searched
    again, and only the run that stores it queues the next. A search that raises
    fails the review (its reason kept for the operators, counted in the metrics).
    True when this run stored the position."""
    review = GameReview.objects.select_related("game").filter(pk=review_id).first()
    if review is None or review.status != GameReview.Status.PENDING:
        return False
    if ReviewPosition.objects.filter(review=review, ply=ply).exists():
        return False
    try:
        searched = _search(review, ply)
    except Exception as exc:
        logger.exception("review %s failed at ply %s", review_id, ply)
        _fail(review_id, f"{type(exc).__name__} at ply {ply}")
        return False
    if searched is None:
        _fail(review_id, f"no move at ply {ply}")
        return False
    move, verdict, seconds = searched
    return _store(review_id, ply, move, verdict, seconds)


# --- the beat's safety net -----------------------------------------------------------------


def reviews_requeue(*, now: datetime | None = None) -> int:
    """Queue again every pending review that has stored no position for
    REVIEW_STALE_SECONDS (its task was lost: the broker or the worker went away),
    from its first missing position; one whose positions are all stored is ended.
    Each is claimed with a conditional UPDATE of its progress time, so two sweeps
    at once queue it once. Returns how many were queued or ended."""
    now = now or timezone.now()
    stale_before = now - timedelta(seconds=settings.REVIEW_STALE_SECONDS)
    found = 0
    stale = GameReview.objects.filter(status=GameReview.Status.PENDING, progressed_at__lt=stale_before)
    for review_id, progressed_at in stale.values_list("pk", "progressed_at")[:100]:
        with transaction.atomic():
            claimed = GameReview.objects.filter(
                pk=review_id, status=GameReview.Status.PENDING, progressed_at=progressed_at
            ).update(progressed_at=now)
            review = GameReview.objects.select_for_update().filter(pk=review_id).first() if claimed else None
            if review is None:
                continue
            logger.info("review %s had stopped moving on: queued again", review_id)
            _continue(review)
            found += 1
    return found
