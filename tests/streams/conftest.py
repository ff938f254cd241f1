from typing import Any

import pytest


@pytest.fixture(autouse=True)
def _quick_stream(settings: Any) -> None:
    # The WSGI iterator polls and beats at once, so that a test reads without waiting.
    settings.STREAM_WSGI_POLL_SECONDS = 0.01
    settings.STREAM_HEARTBEAT_SECONDS = 0.05
    settings.STREAM_POLL_SECONDS = 0.05
    settings.STREAM_REDIS_URL = None
