"""LOG_FORMAT=json, for every process docs/deploy.md runs: gunicorn, uvicorn, the
Celery workers of each queue, beat and smtpd, each started from its unit's ExecStart line,
write nothing but JSON lines on stdout and stderr, from their first line (no
banner) to their last (how they stopped)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import requests

from tests.e2e_support.databases import migrated
from tests.e2e_support.deploy_guide import exec_start, port_open, runnable
from tests.e2e_support.processes import PrivateRedis, Process, free_port, site_env, stop_all, wait_for

pytestmark = [pytest.mark.e2e]


def not_json(output: str) -> list[str]:
    """The lines of ``output`` that are not a JSON object with a time, a level, a
    logger and a message."""
    bad = []
    for line in output.splitlines():
        try:
            parsed = json.loads(line)
        except json.JSONDecodeError:
            bad.append(line)
            continue
        if not isinstance(parsed, dict) or not {"time", "level", "logger", "message"} <= set(parsed):
            bad.append(line)
    return bad


def messages(output: str) -> list[str]:
    return [str(json.loads(line)["message"]) for line in output.splitlines() if line.startswith("{")]


def test_with_log_format_json_every_process_of_the_guide_writes_only_json_lines(tmp_path: Path) -> None:
    redis = PrivateRedis(tmp_path / "redis.log")
    env = site_env(tmp_path, database_url=f"sqlite:///{tmp_path / 'db.sqlite3'}", broker_url=redis.url(0),
                   LOG_FORMAT="json", EMAIL_REPLY_DOMAIN="reply.splendor.test")  # fmt: skip
    Path(env["VAR_DIR"]).mkdir(parents=True)  # the beat unit's StateDirectory=
    web_port, stream_port, smtpd_port = free_port(), free_port(), free_port()
    commands = {
        "splendor-web": runnable(exec_start("splendor-web"), bind=f"127.0.0.1:{web_port}"),
        "splendor-stream": runnable(exec_start("splendor-stream"), port=str(stream_port)),
        "splendor-worker@": runnable(exec_start("splendor-worker@")),
        "splendor-webhooks": runnable(exec_start("splendor-webhooks")),
        "splendor-bots@": runnable(exec_start("splendor-bots@")),
        "splendor-beat-worker": runnable(exec_start("splendor-beat-worker")),
        "splendor-beat": runnable(exec_start("splendor-beat")),
        "splendor-smtpd": runnable(exec_start("splendor-smtpd"), host="127.0.0.1", port=str(smtpd_port)),
    }
    # What each writes once it is up, logged (a line each would otherwise print, or log in its own format).
    ready = {
        "splendor-web": "Listening at: ",
        "splendor-stream": "Application startup complete.",
        "splendor-worker@": " ready.",
        "splendor-webhooks": " ready.",
        "splendor-bots@": " ready.",
        "splendor-beat-worker": " ready.",
        "splendor-beat": "beat: Starting...",
        "splendor-smtpd": "smtpd listening on ",
    }
    processes = {unit: Process(unit, command, env, tmp_path / f"{unit}.log") for unit, command in commands.items()}
    try:
        redis.start()
        migrated(env)
        for process in processes.values():
            process.start()
        for unit, process in processes.items():
            wait_for(lambda: any(ready[unit] in m for m in messages(process.output())) or not process.alive(),
                     timeout=90, what=f"{unit} up", explain=process.tail)  # fmt: skip
            assert process.alive(), process.tail()
        # A request each to gunicorn and uvicorn, answered 404: the site's own warning line.
        assert port_open(stream_port)
        for port in (web_port, stream_port):
            assert requests.get(f"http://127.0.0.1:{port}/no-such-page/", timeout=10).status_code == 404
        wait_for(lambda: any("Not Found: /no-such-page/" in m for m in messages(processes["splendor-web"].output())),
                 timeout=10, what="gunicorn's worker logging the 404")  # fmt: skip
    finally:
        stop_all(processes.values())
        redis.stop()
    for unit, process in processes.items():
        output = process.output()
        assert output.strip(), f"{unit} wrote nothing"
        assert not_json(output) == [], process.tail()
    # Each logged how it stopped, as JSON too.
    assert any("Shutting down: Master" in m for m in messages(processes["splendor-web"].output()))
    assert any("Warm shutdown" in m for m in messages(processes["splendor-worker@"].output()))
    assert any(m == "smtpd stopped" for m in messages(processes["splendor-smtpd"].output()))
