import gc
from collections.abc import Iterator
from typing import Any

import pytest

from tests.streams.stream_helpers import OPENED


@pytest.fixture(autouse=True)
def _quick_stream(settings: Any) -> None:
    # The WSGI iterator polls and beats at once, so that a test reads without waiting.
    settings.STREAM_WSGI_POLL_SECONDS = 0.01
    settings.STREAM_HEARTBEAT_SECONDS = 0.05
    settings.STREAM_POLL_SECONDS = 0.05
    settings.STREAM_REDIS_URL = None


@pytest.fixture(autouse=True)
def _streams_closed_at_the_end() -> Iterator[None]:
    yield
    while OPENED:
        OPENED.pop().close()
    # A view's generator that no close reached (a response whose body was never
    # read: the test client's wrapper closes it only once started) runs its clean-up,
    # a query, when the garbage collector finds it. Left to chance, that is in the
    # middle of a later test's query on the same connection, whose lock the
    # clean-up then waits for forever (on PostgreSQL the next test hung until its
    # timeout). Collected here, it runs between tests, where a query is safe.
    gc.collect()
