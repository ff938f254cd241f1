"""The workers of docs/deploy.md, each started from its unit's ExecStart line, with
the one beat: each class of work is done by its own queue's worker. The periodic
tasks beat sends (here every second) are run by the `beat` queue's worker, and by
no other, while the workers of the other queues are up beside it.

SQLite and a private redis-server; no web process: beat's tasks need none.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e_support.databases import migrated
from tests.e2e_support.deploy_guide import exec_start, runnable
from tests.e2e_support.processes import PrivateRedis, Process, site_env, stop_all, wait_for

pytestmark = [pytest.mark.e2e]

WORKER_UNITS = ("splendor-worker@", "splendor-webhooks", "splendor-bots@", "splendor-beat-worker")


def _ran(process: Process, task_name: str) -> bool:
    # Celery's own line for each task it ran (its banner lists every task by name).
    return any(f"Task {task_name}[" in line and " succeeded in " in line for line in process.output().splitlines())


def test_beats_periodic_tasks_are_run_by_the_beat_queues_worker_alone(tmp_path: Path) -> None:
    redis = PrivateRedis(tmp_path / "redis.log")
    env = site_env(tmp_path, database_url=f"sqlite:///{tmp_path / 'db.sqlite3'}", broker_url=redis.url(0))
    Path(env["VAR_DIR"]).mkdir(parents=True)  # the beat unit's StateDirectory=
    processes = {unit: Process(unit, runnable(exec_start(unit)), env, tmp_path / f"{unit}.log") for unit in WORKER_UNITS}
    processes["splendor-beat"] = Process("beat", runnable(exec_start("splendor-beat")), env, tmp_path / "beat.log")
    try:
        redis.start()
        migrated(env)
        for process in processes.values():
            process.start()
        for unit in WORKER_UNITS:
            worker = processes[unit]
            wait_for(lambda w=worker: " ready." in w.output() or not w.alive(), timeout=90, what=f"{unit} ready",
                     explain=worker.tail)  # fmt: skip
            assert worker.alive(), worker.tail()
        beat_worker = processes["splendor-beat-worker"]

        for task_name in ("games.tasks.sweep_deadlines", "notifications.tasks.send_due", "games.tasks.redeliver_events"):
            wait_for(lambda name=task_name: _ran(beat_worker, name), timeout=60, what=f"{task_name} run by the beat worker",
                     explain=lambda: beat_worker.tail() + processes["splendor-beat"].tail())  # fmt: skip
        # The webhook retries are attempts: the webhooks worker runs their sweep.
        wait_for(lambda: _ran(processes["splendor-webhooks"], "webhooks.tasks.deliver_due"), timeout=60,
                 what="the webhook retries' sweep on the webhooks worker", explain=processes["splendor-webhooks"].tail)  # fmt: skip
    finally:
        stop_all(processes.values())
        redis.stop()

    for unit in ("splendor-worker@", "splendor-bots@", "splendor-webhooks"):
        output = processes[unit].output()
        assert " ready." in output  # it was up all along, and took none of beat's work
        assert "Task games.tasks.sweep_deadlines[" not in output, unit
        assert "Task notifications.tasks.send_due[" not in output, unit
