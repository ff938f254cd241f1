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
