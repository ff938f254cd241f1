"""Play by email: the reply domain and the limits the tests rely on (the
personas, the fixed clock and ``commit`` come from tests/notifications)."""

from __future__ import annotations

from typing import Any

import pytest


@pytest.fixture(autouse=True)
def _inbound_settings(settings: Any) -> None:
    settings.INBOUND_ERROR_REPLIES_PER_HOUR = 5
    settings.INBOUND_MAX_MESSAGE_BYTES = 1_000_000
    settings.INVITATIONS_PER_DAY = 20
