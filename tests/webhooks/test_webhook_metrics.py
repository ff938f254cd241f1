"""Webhook attempts are counted by outcome and timed (splendor_webhook_deliveries_total,
splendor_webhook_delivery_duration_seconds), and endpoints the service disables by
reason (splendor_webhook_endpoints_disabled_total)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from tests.metrics_helpers import value
from tests.webhooks.webhook_helpers import Committed, Transport, new_game, register

from webhooks import tasks

pytestmark = pytest.mark.django_db

START = datetime(2026, 3, 2, 12, 0, tzinfo=UTC)


def _deliveries(outcome: str) -> float:
    return value("splendor_webhook_deliveries_total", outcome=outcome)


def test_attempts_are_counted_by_outcome_and_timed(
    alice: Any, bob: Any, transport: Transport, committed: Committed, time_machine: Any
) -> None:
    time_machine.move_to(START, tick=False)
    register(alice, events=["game_started"])
    before = {outcome: _deliveries(outcome) for outcome in ("delivered", "retry")}
    timed = value("splendor_webhook_delivery_duration_seconds_count", outcome="retry")
    transport.answers = [500]
    new_game(alice, bob, committed)
    time_machine.shift(timedelta(seconds=5))
    assert tasks.deliver_due() == 1
    assert _deliveries("retry") == before["retry"] + 1
    assert _deliveries("delivered") == before["delivered"] + 1
    assert value("splendor_webhook_delivery_duration_seconds_count", outcome="retry") == timed + 1


def test_an_endpoint_disabled_after_its_retries_is_counted(
    alice: Any, bob: Any, transport: Transport, committed: Committed, time_machine: Any, settings: Any
) -> None:
    time_machine.move_to(START, tick=False)
    register(alice, events=["game_started"])
    transport.default = 503
    failed = _deliveries("failed")
    disabled = value("splendor_webhook_endpoints_disabled_total", reason="failing")
    new_game(alice, bob, committed)
    with committed():
        for delay in settings.WEBHOOKS_RETRY_DELAYS_SECONDS:
            time_machine.shift(timedelta(seconds=delay))
            assert tasks.deliver_due() == 1
    assert _deliveries("failed") == failed + 1
    assert value("splendor_webhook_endpoints_disabled_total", reason="failing") == disabled + 1
