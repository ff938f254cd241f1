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
LOCK_RETRY_ATTEMPTS = 10
LOCK_RETRY_FIRST_DELAY = 0.05
LOCK_RETRY_MAX_DELAY = 1.0


def retry_when_database_locked(fn: Callable[P, R]) -> Callable[P, R]:
    """Run ``fn`` again, with jittered backoff, when SQLite reports a lock.

    Only the outermost transaction can be retried, so inside an atomic block the
    error is passed up unchanged: whoever opened the block retries it.
    """

    @functools.wraps(fn)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        connection = transaction.get_connection()
        if connection.vendor != "sqlite" or connection.in_atomic_block:
            return fn(*args, **kwargs)
        delay = LOCK_RETRY_FIRST_DELAY
        for attempt in range(1, LOCK_RETRY_ATTEMPTS + 1):
            try:
                return fn(*args, **kwargs)
            except OperationalError as exc:
                if "locked" not in str(exc) or attempt == LOCK_RETRY_ATTEMPTS:
                    raise
                logger.info("database locked in %s, attempt %d; retrying", fn.__name__, attempt)
                time.sleep(delay * (1 + random.random()))
                delay = min(delay * 2, LOCK_RETRY_MAX_DELAY)
        raise AssertionError("unreachable")  # pragma: no cover

    return wrapper
