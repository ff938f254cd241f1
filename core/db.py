"""Database helpers the apps share."""

from __future__ import annotations

import functools
import logging
import random
import time
from collections.abc import Callable
from typing import ParamSpec, TypeVar

from django.db import OperationalError, transaction

logger = logging.getLogger(__name__)

P = ParamSpec("P")
R = TypeVar("R")

# SQLite serialises writers; a writer that still finds the database locked after
# the connection's busy timeout is retried here so that no caller ever sees it.
# PostgreSQL ends one of two transactions that wait on each other's row locks
# (deadlock_detected, 40P01: say a deadline sweep locking the players of a game
# while a new game's foreign keys are checked against the same players at its
# commit) and rolls it back whole; PostgreSQL's documentation says to run it again,
# and so does this, as it does for serialization_failure (40001).
LOCK_RETRY_ATTEMPTS = 10
LOCK_RETRY_FIRST_DELAY = 0.05
LOCK_RETRY_MAX_DELAY = 1.0
POSTGRES_RETRY_SQLSTATES = frozenset({"40P01", "40001"})


def _worth_retrying(vendor: str, exc: OperationalError) -> bool:
    if vendor == "sqlite":
        return "locked" in str(exc)
    cause = exc.__cause__
    return getattr(cause, "sqlstate", None) in POSTGRES_RETRY_SQLSTATES


def retry_when_database_locked(fn: Callable[P, R]) -> Callable[P, R]:
    """Run ``fn`` again, with jittered backoff, when SQLite reports a lock or
    PostgreSQL ends its transaction as one side of a deadlock (or a serialization
    failure): either way nothing of it was kept.

    Only the outermost transaction can be retried, so inside an atomic block the
    error is passed up unchanged: whoever opened the block retries it.
    """

    @functools.wraps(fn)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        connection = transaction.get_connection()
        if connection.vendor not in ("sqlite", "postgresql") or connection.in_atomic_block:
            return fn(*args, **kwargs)
        delay = LOCK_RETRY_FIRST_DELAY
        for attempt in range(1, LOCK_RETRY_ATTEMPTS + 1):
            try:
                return fn(*args, **kwargs)
            except OperationalError as exc:
                if not _worth_retrying(connection.vendor, exc) or attempt == LOCK_RETRY_ATTEMPTS:
                    raise
                logger.info("database %s in %s, attempt %d; retrying",
                            "locked" if connection.vendor == "sqlite" else "deadlock", fn.__name__, attempt)  # fmt: skip
                time.sleep(delay * (1 + random.random()))
                delay = min(delay * 2, LOCK_RETRY_MAX_DELAY)
        raise AssertionError("unreachable")  # pragma: no cover

    return wrapper
