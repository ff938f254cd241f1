"""A real worker with LOG_FORMAT=json: its lines are JSON objects, and a task
queued with a request id in the log context logs that id, its name and its id
(the header through Redis, read back by the worker; splendor_site.celery)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.e2e_support.databases import migrated
from tests.e2e_support.processes import PrivateRedis, Worker, manage, site_env, wait_for

pytestmark = [pytest.mark.e2e]

QUEUE_IN_A_REQUEST = """
from core.log_context import log_context
from core.queue import task_send
with log_context(request_id="e2e-req-7c1d"):
    task_send("games.tasks.consume_events", [])
"""


def json_lines(text: str) -> list[dict[str, object]]:
    # The worker's start-up banner is printed, not logged: every logged line is an object.
    return [json.loads(line) for line in text.splitlines() if line.startswith("{")]


def test_a_worker_logs_json_lines_with_the_request_id_of_the_task_it_runs(tmp_path: Path) -> None:
    redis = PrivateRedis(tmp_path / "redis.log").start()
    env = site_env(tmp_path, database_url=f"sqlite:///{tmp_path / 'db.sqlite3'}", broker_url=redis.url(0),
                   LOG_FORMAT="json")  # fmt: skip
    worker = Worker(env, tmp_path / "worker.log")
    try:
        migrated(env)
        worker.start()
        manage(env, "shell", "-c", QUEUE_IN_A_REQUEST)

        def task_lines() -> list[dict[str, object]]:
            return [line for line in json_lines(worker.output()) if line.get("task_id")]

        wait_for(lambda: any("succeeded" in str(line["message"]) for line in task_lines()), timeout=60,
                 what="the task run and logged", explain=worker.tail)  # fmt: skip
        ready = [line for line in json_lines(worker.output()) if str(line["message"]).endswith(" ready.")]
        assert ready and {"time", "level", "logger", "message"} <= set(ready[0])
        (succeeded,) = [line for line in task_lines() if "succeeded" in str(line["message"])]
        assert succeeded["request_id"] == "e2e-req-7c1d"
        assert succeeded["task"] == "games.tasks.consume_events"
        assert f"[{succeeded['task_id']}] succeeded" in str(succeeded["message"])  # Celery's own words name the id
        assert succeeded["logger"] == "celery.app.trace"
    finally:
        worker.stop()
        redis.stop()
