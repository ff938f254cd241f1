"""The one-command defaults: an embedded broker with a worker behind it, the
commands `manage.py serve` starts, and how it stops them. (tests/site/test_e2e_serve.py
runs the real thing; these are the fast checks.)"""

from __future__ import annotations

import signal
import subprocess
import sys
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


def test_serve_starts_one_worker_with_beat_on_the_default_queue(settings: Any) -> None:
    command = serve.worker_command()
    assert command[1:6] == ["-m", "celery", "-A", "splendor_site", "worker"]
    assert "--beat" in command and command[command.index("--schedule-filename") + 1] == settings.CELERY_BEAT_SCHEDULE_FILENAME
    assert command[command.index("--queues") + 1] == "celery"


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
