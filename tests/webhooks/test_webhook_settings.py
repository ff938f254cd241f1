"""The webhooks' settings refuse bad values at start-up, saying what is wrong."""

from __future__ import annotations

import pytest
from django.core.exceptions import ImproperlyConfigured

from games.extensions import event_consumers
from splendor_site import environment, settings as site_settings


def test_retry_delays_are_read_as_whole_seconds(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WEBHOOKS_RETRY_DELAYS_SECONDS", "5, 60,3600")

    assert environment.env_delays("WEBHOOKS_RETRY_DELAYS_SECONDS", [1]) == [5, 60, 3600]


@pytest.mark.parametrize("value", ["5,soon", "5,0", "1.5"])
def test_a_retry_delay_that_is_not_a_positive_whole_number_stops_start_up(
    monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    monkeypatch.setenv("WEBHOOKS_RETRY_DELAYS_SECONDS", value)

    with pytest.raises(ImproperlyConfigured, match="WEBHOOKS_RETRY_DELAYS_SECONDS"):
        environment.env_delays("WEBHOOKS_RETRY_DELAYS_SECONDS", [1])


def test_the_beat_sweeps_due_deliveries_and_the_outbox_has_the_webhooks_consumer() -> None:
    assert site_settings.CELERY_BEAT_SCHEDULE["webhooks-deliver-due"]["task"] == "webhooks.tasks.deliver_due"
    assert "webhooks" in [consumer.name for consumer in event_consumers()]
