"""The Celery app runs the periodic work the design gives to workers: the deadline sweep.

Personas: alice creates a two-seat game and bob joins it, which starts it with
a deadline for whoever moves first.
"""

from datetime import timedelta
from typing import Any

import pytest
import time_machine

from games.models import Game
from games.tasks import sweep_deadlines
from splendor_site.celery import app
from tests.site.test_settings_from_environment import run_manage

pytestmark = pytest.mark.django_db


@pytest.fixture
def active_game_options(settings: Any) -> dict[str, Any]:
    # active_game (tests/conftest.py) with a 24-hour clock whose first missed deadline
    # forfeits, with no vacation day to take instead.
    settings.VACATION_DAYS_PER_YEAR = 0
    return {"move_timeout_hours": 24, "forfeit_after": 1}


def test_every_beat_entry_names_a_task_a_worker_finds_on_its_own():
    # In a fresh process, so that nothing this test module imported counts.
    code = (
        "from django.conf import settings; from splendor_site.celery import app; "
        "app.loader.import_default_modules(); "
        "print(sorted(e['task'] for e in settings.CELERY_BEAT_SCHEDULE.values() if e['task'] not in app.tasks))"
    )
    result = run_manage("shell", "-c", code)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().splitlines()[-1] == "[]"


def beat_entry(**env: str) -> str:
    code = "from django.conf import settings; print(settings.CELERY_BEAT_SCHEDULE['games-sweep-deadlines'])"
    result = run_manage("shell", "-c", code, **env)
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_the_deadline_sweep_is_on_the_beat_schedule_every_minute_by_default():
    entry = beat_entry(DEADLINE_SWEEP_SECONDS="")
    assert "'task': 'games.tasks.sweep_deadlines'" in entry
    assert "'schedule': 60.0" in entry


def test_the_deadline_sweep_interval_comes_from_the_environment():
    assert "'schedule': 300.0" in beat_entry(DEADLINE_SWEEP_SECONDS="300")
    refused = run_manage("check", DEADLINE_SWEEP_SECONDS="0")
    assert refused.returncode != 0
    assert "DEADLINE_SWEEP_SECONDS='0' must be at least 1" in refused.stderr


def test_the_sweep_runs_eagerly_and_times_out_an_overdue_game(active_game):
    assert app.conf.task_always_eager  # the default in-process broker
    to_move = active_game.to_move
    with time_machine.travel(active_game.deadline_at + timedelta(seconds=1)):
        timed_out = sweep_deadlines.delay().get()
    assert timed_out == 1
    active_game.refresh_from_db()
    assert active_game.status == Game.Status.FINISHED
    assert active_game.result["reason"] == "timeout"
    assert active_game.result["winners"] == [1 - to_move]


def test_the_sweep_leaves_a_game_alone_before_its_deadline(active_game):
    with time_machine.travel(active_game.deadline_at - timedelta(seconds=1)):
        assert sweep_deadlines.delay().get() == 0
    active_game.refresh_from_db()
    assert active_game.status == Game.Status.ACTIVE


def test_running_the_sweep_twice_times_a_game_out_once(active_game):
    with time_machine.travel(active_game.deadline_at + timedelta(seconds=1)):
        assert sweep_deadlines.delay().get() == 1
        version = Game.objects.get(pk=active_game.pk).version
        assert sweep_deadlines.delay().get() == 0
    assert Game.objects.get(pk=active_game.pk).version == version
