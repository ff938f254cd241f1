"""The one-command defaults: an embedded broker with a worker behind it, the
commands `manage.py serve` starts, and how it stops them. (tests/site/test_e2e_serve.py
runs the real thing; these are the fast checks.)"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from splendor_site.management.commands import serve
from tests.site.test_settings_from_environment import run_manage

CELERY_SETTINGS = (
    "from django.conf import settings as s; "
    "print(s.CELERY_BROKER_URL, s.CELERY_TASK_ALWAYS_EAGER, sorted(s.CELERY_BROKER_TRANSPORT_OPTIONS.items()), "
    "s.CELERY_BEAT_SCHEDULE_FILENAME, s.EMAIL_BACKEND)"
)


def celery_settings(**env: str) -> str:
    result = run_manage("shell", "-c", CELERY_SETTINGS, **env)
    assert result.returncode == 0, result.stderr
    return result.stdout.strip().splitlines()[-1]


def test_by_default_tasks_go_through_the_embedded_broker_to_a_worker(tmp_path: Path) -> None:
    shown = celery_settings(CELERY_BROKER_URL="", CELERY_TASK_ALWAYS_EAGER="", EMAIL_BACKEND="", VAR_DIR=str(tmp_path))
    assert shown.startswith("filesystem:// False ")
    assert f"('data_folder_in', '{tmp_path}/broker/queue')" in shown
    assert f"('data_folder_out', '{tmp_path}/broker/queue')" in shown  # one folder both ways
    assert f"{tmp_path}/celerybeat-schedule" in shown
    assert shown.endswith("django.core.mail.backends.console.EmailBackend")
    assert (tmp_path / "broker" / "queue").is_dir()  # made at start-up


def test_redis_as_the_broker_makes_one_connection_attempt_per_message() -> None:
    shown = celery_settings(CELERY_BROKER_URL="redis://127.0.0.1:6379/0", CELERY_TASK_ALWAYS_EAGER="")
    assert shown.startswith("redis://127.0.0.1:6379/0 False ")
    assert "('max_retries', 0)" in shown
    assert "('visibility_timeout', 3600)" in shown


def test_the_in_process_broker_still_runs_tasks_inline() -> None:
    assert celery_settings(CELERY_BROKER_URL="memory://", CELERY_TASK_ALWAYS_EAGER="").startswith("memory:// True ")


def test_the_test_suite_runs_tasks_inline_and_keeps_email_local(settings: Any) -> None:
    from splendor_site.celery import app

    assert app.conf.task_always_eager and app.conf.broker_url == "memory://"
    assert settings.EMAIL_BACKEND == "django.core.mail.backends.locmem.EmailBackend"


def _option(command: list[str], name: str) -> str:
    return command[command.index(name) + 1]


def test_serve_starts_a_worker_for_each_of_the_four_queues(settings: Any) -> None:
    commands = {name: command() for name, (command, _) in serve.WORKERS.items()}
    assert len(commands) == 4
    for command in commands.values():
        assert command[1:6] == ["-m", "celery", "-A", "splendor_site", "worker"]

    queues = sorted(_option(command, "--queues") for command in commands.values())

    assert queues == sorted([settings.DEFAULT_QUEUE, settings.WEBHOOKS_QUEUE, settings.BOTS_QUEUE, settings.BEAT_QUEUE])
    assert len({_option(command, "--hostname") for command in commands.values()}) == 4


def test_serve_embeds_the_one_beat_in_the_worker_of_beats_queue(settings: Any) -> None:
    command = serve.beat_worker_command()
    assert _option(command, "--queues") == "beat"
    assert "--beat" in command and _option(command, "--schedule-filename") == settings.CELERY_BEAT_SCHEDULE_FILENAME
    others = [serve.worker_command(), serve.webhooks_worker_command(), serve.bots_worker_command()]
    assert [_option(other, "--queues") for other in others] == ["celery", "webhooks", "bots"]
    assert not any("--beat" in other for other in others)


def test_serve_runs_the_bots_worker_one_move_at_a_time_at_a_lower_priority() -> None:
    command = serve.bots_worker_command()
    assert _option(command, "--queues") == "bots"
    assert _option(command, "--concurrency") == "1"
    assert serve.WORKERS["bots worker"] == (serve.bots_worker_command, 10)
    assert {nice for name, (_, nice) in serve.WORKERS.items() if name != "bots worker"} == {0}


def test_a_supervised_child_starts_at_its_niceness() -> None:
    supervisor = serve.Supervisor({"bots worker": _sleep_command()}, say=lambda _: None, warn=lambda _: None,
                                  niceness={"bots worker": 10})  # fmt: skip
    mine = os.nice(0)
    try:
        supervisor.start_all()  # Popen returns once the child runs its command: its niceness is set
        stat = Path(f"/proc/{supervisor.children['bots worker'].pid}/stat").read_text()
        assert int(stat.rsplit(")", 1)[1].split()[16]) == min(mine + 10, 19)  # proc(5): field 19, nice
    finally:
        serve._stop_all(supervisor.children)


def test_serve_keeps_the_autoreloader_unless_asked_not_to() -> None:
    assert serve.server_command("127.0.0.1:8000", reload=True)[-2:] == ["runserver", "127.0.0.1:8000"]
    assert serve.server_command("127.0.0.1:8000", reload=False)[-1] == "--noreload"


def _sleeper(seconds: float = 60) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-c", f"import time; time.sleep({seconds})"], start_new_session=True)


def test_stopping_terminates_each_child_and_reaps_it() -> None:
    children = {"web server": _sleeper(), "worker": _sleeper()}
    serve._stop_all(children)
    assert [child.returncode for child in children.values()] == [-signal.SIGTERM, -signal.SIGTERM]


def test_a_child_that_ignores_sigterm_is_killed_after_the_grace_period(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(serve, "STOP_SECONDS", 0.5)
    stubborn = subprocess.Popen(
        [sys.executable, "-c", "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); print('ready', flush=True); time.sleep(60)"],
        start_new_session=True, stdout=subprocess.PIPE,
    )  # fmt: skip
    assert stubborn.stdout is not None and stubborn.stdout.readline() == b"ready\n"
    serve._stop_all({"worker": stubborn})
    assert stubborn.returncode == -signal.SIGKILL


def _sleep_command(seconds: float = 60) -> list[str]:
    return [sys.executable, "-c", f"import time; time.sleep({seconds})"]


def _exits(code: int, after: float = 0.0) -> list[str]:
    return [sys.executable, "-c", f"import sys, time; time.sleep({after}); sys.exit({code})"]


def _supervise_until(supervisor: serve.Supervisor, done: Any, timeout: float = 30) -> int | None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        code = supervisor.step(time.monotonic())
        if code is not None or done():
            return code
        time.sleep(0.02)
    raise AssertionError("the supervisor did not get there in time")


def test_a_worker_that_exits_is_started_again_after_a_wait_that_doubles(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(serve, "RESTART_FIRST_SECONDS", 0.05)
    said: list[str] = []
    supervisor = serve.Supervisor(
        {"web server": _sleep_command(), "worker": _exits(3)}, say=said.append, warn=said.append
    )
    supervisor.start_all()
    try:
        code = _supervise_until(supervisor, lambda: supervisor.restarts.get("worker", 0) >= 3)
        assert code is None  # serving goes on
        assert supervisor.children["web server"].poll() is None
    finally:
        serve._stop_all(supervisor.children)
    waits = [line.rsplit(" in ", 1)[1] for line in said if "starting it again" in line]
    assert waits[:3] == ["0.05 s", "0.1 s", "0.2 s"], said
    assert "serve: the worker exited with 3; starting it again in 0.05 s" in said
    assert sum("started the worker" in line for line in said) >= 3


def test_a_worker_that_ran_a_while_before_exiting_starts_again_from_the_first_wait(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(serve, "RESTART_FIRST_SECONDS", 0.05)
    monkeypatch.setattr(serve, "RESTART_RESET_SECONDS", 0.3)
    said: list[str] = []
    supervisor = serve.Supervisor({"worker": _exits(1, after=0.4)}, say=said.append, warn=said.append)
    supervisor.start_all()
    try:
        _supervise_until(supervisor, lambda: supervisor.restarts.get("worker", 0) >= 2)
    finally:
        serve._stop_all(supervisor.children)
    assert [line.rsplit(" in ", 1)[1] for line in said if "starting it again" in line][:2] == ["0.05 s", "0.05 s"]


def test_when_the_web_server_exits_the_supervisor_says_so_and_returns_its_code() -> None:
    said: list[str] = []
    supervisor = serve.Supervisor({"web server": _exits(4), "worker": _sleep_command()}, say=said.append, warn=said.append)
    supervisor.start_all()
    try:
        code = _supervise_until(supervisor, lambda: False)
    finally:
        serve._stop_all(supervisor.children)
    assert code == 4
    assert supervisor.why == "the web server exited with 4"
    assert supervisor.children["worker"].returncode == -signal.SIGTERM  # stopped with the rest
