"""Play by email: the reply domain and the limits the tests rely on (the
personas, the fixed clock and ``commit`` come from tests/notifications)."""

from __future__ import annotations

from typing import Any

import pytest
from tests.notifications.inbound.sender_helpers import AUTHSERV_ID, FakeZone


@pytest.fixture(autouse=True)
def _inbound_settings(settings: Any) -> None:
    # The mail host whose Authentication-Results are believed (mail_helpers adds its header).
    settings.INBOUND_AUTHSERV_ID = AUTHSERV_ID
    settings.INBOUND_REQUIRE_AUTHENTICATION = True
    settings.INBOUND_TRUSTED_RELAYS = []
    settings.INBOUND_ERROR_REPLIES_PER_HOUR = 5
    settings.INBOUND_REPLIES_PER_HOUR = 1000
    settings.INBOUND_CHALLENGES_PER_HOUR = 5
    settings.INBOUND_MAX_MESSAGE_BYTES = 1_000_000
    settings.INVITATIONS_PER_DAY = 20


@pytest.fixture(autouse=True)
def _offline_dns(monkeypatch: Any) -> None:
    """No test looks anything up on the network: where a test gives no zone of its
    own, the receiver's resolver is an empty one (every name unknown)."""
    monkeypatch.setattr("notifications.inbound.receive.SystemResolver", FakeZone)
