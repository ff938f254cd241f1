"""The games app's metrics (core.metrics names them; docs/operations.md lists them).

What a change did is counted from the outbox events it wrote, once the
transaction has committed (``events_count``, from ``GameWrites.flush``): a move,
a start, a finish, a timeout, whatever door it came through. Refused moves are
counted where they are refused (``move_refused``). The gauges that describe the
database are read when ``/metrics`` is scraped (``scrape``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime, timedelta

from django.conf import settings
from django.db.models import Count, Exists, Min, OuterRef
from django.utils import timezone
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.metrics_core import Metric

from core import metrics
from engine import VARIANTS
from games.extensions import event_consumers
from games.models import Game, GameEvent, GameEventClaim, PeriodicRun

Kind = GameEvent.Kind


def _count_one(variant: str, kind: str, payload: dict[str, object]) -> None:
    if kind == Kind.MOVE_PLAYED:
        played_by = payload.get("played_by")
        if played_by == "player":
            metrics.MOVES.labels("accepted", "ok").inc()
        elif played_by == "bot":
            metrics.BOT_MOVES.labels(str(payload.get("bot_reason") or "timeout")).inc()
    elif kind == Kind.GAME_STARTED:
        metrics.GAMES_STARTED.labels(variant).inc()
    elif kind == Kind.GAME_FINISHED:
        result = payload.get("result")
        reason = result.get("reason") if isinstance(result, dict) else None
        metrics.GAMES_FINISHED.labels(str(reason or "unknown")).inc()
    elif kind == Kind.GAME_ABORTED:
        metrics.GAMES_ABORTED.labels(str(payload.get("reason") or "unknown")).inc()
    elif kind == Kind.TURN_TIMED_OUT:
        forfeit = payload.get("consecutive") == payload.get("forfeit_after")
        metrics.TIMEOUTS.labels("forfeit" if forfeit else "bot").inc()
    elif kind == Kind.CLOCK_PAUSED:
        if payload.get("reason") == "vacation" and payload.get("automatic"):
            metrics.TIMEOUTS.labels("vacation").inc()
    elif kind == Kind.SEAT_RESIGNED:
        metrics.FORFEITS.labels(str(payload.get("reason") or "unknown")).inc()


def events_count(variant: str, events: Sequence[GameEvent]) -> None:
    """Count what one committed change did, from its outbox events."""
    for event in events:
        _count_one(variant, event.kind, event.payload)


def variant_series() -> list[tuple[str]]:
    """``splendor_games_started_total``'s series, one per variant, exported at 0
    before their first count (core.metrics.series_declare)."""
    return [(variant,) for variant in VARIANTS]


def move_refused(code: str) -> None:
    metrics.MOVES.labels("refused", code).inc()


# --- read when scraped ----------------------------------------------------------


def _games() -> Iterable[Metric]:
    now = timezone.now()
    active = GaugeMetricFamily(metrics.ACTIVE_GAMES, "Games being played, by variant.", labels=["variant"])
    rows = Game.objects.filter(status=Game.Status.ACTIVE).values("variant").annotate(n=Count("pk"))
    counts = {row["variant"]: row["n"] for row in rows}
    for variant in sorted({*VARIANTS, *counts}):
        active.add_metric([variant], counts.get(variant, 0))
    yield active
    overdue = GaugeMetricFamily(
        metrics.OVERDUE_GAMES,
        "Active games whose deadline has passed and that no sweep has acted on yet (the beat or the workers are late).",
    )
    overdue.add_metric([], Game.objects.filter(status=Game.Status.ACTIVE, deadline_at__lt=now).count())
    yield overdue


def _outbox() -> Iterable[Metric]:
    now = timezone.now()
    oldest_kept = now - timedelta(hours=settings.OUTBOX_REDELIVER_MAX_HOURS)
    unclaimed = GaugeMetricFamily(
        metrics.OUTBOX_UNCLAIMED,
        "Outbox events a consumer has not finished (within OUTBOX_REDELIVER_MAX_HOURS), by consumer.",
        labels=["consumer"],
    )
    age = GaugeMetricFamily(
        metrics.OUTBOX_OLDEST_AGE,
        "Age of the oldest outbox event a consumer has not finished (0 when none), by consumer.",
        labels=["consumer"],
    )
    recent = GameEvent.objects.filter(created_at__gte=oldest_kept)
    for consumer in sorted(extension.name for extension in event_consumers()):
        done = GameEventClaim.objects.filter(event=OuterRef("pk"), consumer=consumer, done_at__isnull=False)
        row = recent.exclude(Exists(done)).aggregate(n=Count("pk"), oldest=Min("created_at"))
        unclaimed.add_metric([consumer], row["n"])
        oldest: datetime | None = row["oldest"]
        age.add_metric([consumer], max(0.0, (now - oldest).total_seconds()) if oldest else 0.0)
    yield unclaimed
    yield age


def _beat() -> Iterable[Metric]:
    family = GaugeMetricFamily(
        metrics.BEAT_LAST_RUN,
        "When each beat job (beat_job: deadline_sweep, reminders, redelivery) last ran, in Unix time. "
        "0 until it first runs.",
        labels=["beat_job"],
    )
    runs = periodic_runs()
    for job in metrics.BEAT_JOBS:
        at = runs.get(job)
        family.add_metric([job], at.timestamp() if at is not None else 0.0)
    yield family


def scrape() -> Iterable[Metric]:
    yield from _games()
    yield from _outbox()
    yield from _beat()


def periodic_runs() -> dict[str, datetime]:
    return dict(PeriodicRun.objects.values_list("job", "last_run_at"))
