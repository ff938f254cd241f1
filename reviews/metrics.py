"""The reviews' metrics (core.metrics names them; docs/operations.md lists them):
each review that ends is counted by its outcome, with its run time from start to
end and its search time summed over its positions. Counted once the end is
committed, by the process that ended it."""

from __future__ import annotations

from datetime import datetime

from core import metrics


def review_ended(*, outcome: str, started_at: datetime, finished_at: datetime, search_seconds: float) -> None:
    metrics.REVIEWS.labels(outcome).inc()
    metrics.REVIEW_DURATION.labels(outcome).observe(max(0.0, (finished_at - started_at).total_seconds()))
    metrics.REVIEW_SEARCH.labels(outcome).observe(max(0.0, search_seconds))
