"""/healthz's beat: "late" only once BEAT_STALE_SECONDS have passed since the last
deadline sweep *and* since beat's own last start, so that a release that restarts
beat is not reported late while its first sweep is still to come."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import pytest
import time_machine
from celery.signals import beat_init
from django.utils import timezone

from core import metrics
from games import services
from games.models import PeriodicRun

pytestmark = pytest.mark.django_db

STALE = 180
# The moment beat is restarted in these tests.
RESTART = datetime(2026, 3, 2, 12, 0, tzinfo=timezone.get_fixed_timezone(0))


def beat(client: Any) -> dict[str, Any]:
    body: dict[str, Any] = client.get("/healthz").json()
    return body


@pytest.fixture(autouse=True)
def stale_after_three_minutes(settings: Any) -> None:
    settings.BEAT_STALE_SECONDS = STALE


def test_starting_beat_records_when_it_started() -> None:
    assert not PeriodicRun.objects.filter(job=metrics.BEAT_START).exists()
    with time_machine.travel(RESTART, tick=False):
        beat_init.send(sender=None)
    assert PeriodicRun.objects.get(job=metrics.BEAT_START).last_run_at == RESTART


def test_a_restarted_beat_is_not_late_for_its_first_sweep_however_old_the_last_one(client: Any) -> None:
    services.periodic_run_mark("deadline_sweep", now=RESTART - timedelta(hours=1))  # the run before the release
    with time_machine.travel(RESTART - timedelta(seconds=1), tick=False):
        assert beat(client)["checks"]["beat"]["state"] == "late"  # beat is down: rightly late
    with time_machine.travel(RESTART, tick=False):
        beat_init.send(sender=None)
    with time_machine.travel(RESTART + timedelta(seconds=STALE - 1), tick=False):
        body = beat(client)
    assert body["status"] == "ok"
    assert body["checks"]["beat"] == {
        "state": "up", "required": False, "last_sweep_age_seconds": 3600 + STALE - 1,
        "beat_started_age_seconds": STALE - 1,
    }  # fmt: skip


def test_a_restarted_beat_that_never_sweeps_is_late_once_beat_stale_seconds_have_passed(client: Any) -> None:
    services.periodic_run_mark("deadline_sweep", now=RESTART - timedelta(hours=1))
    with time_machine.travel(RESTART, tick=False):
        beat_init.send(sender=None)
    with time_machine.travel(RESTART + timedelta(seconds=STALE + 1), tick=False):
        body = beat(client)
    assert body["status"] == "degraded"
    assert body["checks"]["beat"]["state"] == "late"
    assert body["checks"]["beat"]["beat_started_age_seconds"] == STALE + 1


def test_the_first_sweep_after_the_start_is_what_counts_from_then_on(client: Any) -> None:
    with time_machine.travel(RESTART, tick=False):
        beat_init.send(sender=None)
    services.periodic_run_mark("deadline_sweep", now=RESTART + timedelta(seconds=60))
    with time_machine.travel(RESTART + timedelta(seconds=60 + STALE - 1), tick=False):
        assert beat(client)["checks"]["beat"]["state"] == "up"
    with time_machine.travel(RESTART + timedelta(seconds=60 + STALE + 1), tick=False):
        assert beat(client)["checks"]["beat"]["state"] == "late"


def test_a_new_site_whose_beat_has_just_started_has_never_swept_and_is_not_degraded(client: Any) -> None:
    assert beat(client)["checks"]["beat"] == {"state": "never", "required": False}
    with time_machine.travel(RESTART, tick=False):
        beat_init.send(sender=None)
    with time_machine.travel(RESTART + timedelta(seconds=30), tick=False):
        body = beat(client)
    assert body["status"] == "ok"
    assert body["checks"]["beat"] == {"state": "never", "required": False, "beat_started_age_seconds": 30}
    with time_machine.travel(RESTART + timedelta(seconds=STALE + 1), tick=False):
        assert beat(client)["checks"]["beat"]["state"] == "late"  # started, and no worker ever swept


def test_the_beats_start_is_not_shown_as_a_beat_job_in_metrics() -> None:
    from tests.metrics_helpers import samples

    services.periodic_run_mark(metrics.BEAT_START)
    jobs = {dict(labels)["beat_job"] for (name, labels) in samples() if name == metrics.BEAT_LAST_RUN}
    assert jobs == set(metrics.BEAT_JOBS)


@pytest.mark.e2e
def test_a_real_beat_records_its_start_in_the_sites_database(tmp_path: Any) -> None:
    import sqlite3

    from tests.e2e_support.databases import migrated
    from tests.e2e_support.processes import Beat, site_env

    database = tmp_path / "db.sqlite3"
    env = site_env(tmp_path, database_url=f"sqlite:///{database}", broker_url=None)
    migrated(env)
    before = timezone.now()
    started = Beat(env, tmp_path / "beat.log").start()
    try:
        with sqlite3.connect(database) as db:
            rows = db.execute("SELECT last_run_at FROM games_periodicrun WHERE job = ?", (metrics.BEAT_START,)).fetchall()
    finally:
        started.stop()
    assert len(rows) == 1, started.tail()
    assert datetime.fromisoformat(rows[0][0]).replace(tzinfo=timezone.get_fixed_timezone(0)) >= before.replace(
        microsecond=0
    ) - timedelta(seconds=1)
