"""gunicorn's control socket is off in the shipped config (splendor_site/gunicorn_conf.py):
gunicorn's default puts one socket per user (``~/.gunicorn/gunicorn.ctl``, or under
``$XDG_RUNTIME_DIR``), which every gunicorn of that user on the machine would share."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
import requests
from gunicorn.config import Config

from tests.e2e_support.databases import migrated
from tests.e2e_support.processes import GUNICORN_CONFIG, PYTHON, ROOT, free_port, site_env, wait_for


def _answers(port: int) -> bool:
    try:
        return requests.get(f"http://127.0.0.1:{port}/healthz", timeout=5).status_code == 200
    except requests.RequestException:
        return False  # still starting


def _shipped_config() -> Config:
    config = Config()
    settings: dict[str, object] = {}
    exec((ROOT / GUNICORN_CONFIG).read_text(), settings)
    for name, value in settings.items():
        if name in config.settings:
            config.set(name, value)
    return config


def test_gunicorns_own_default_would_share_one_control_socket_per_user() -> None:
    assert Config().control_socket.endswith("gunicorn.ctl")
    assert Config().control_socket_disable is False


def test_the_shipped_config_turns_the_control_socket_off() -> None:
    assert _shipped_config().control_socket_disable is True


@pytest.mark.e2e
def test_two_gunicorns_of_one_user_start_and_neither_makes_a_control_socket(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    env = site_env(tmp_path, database_url=f"sqlite:///{tmp_path / 'db.sqlite3'}", broker_url=None, HOME=str(home))
    env.pop("XDG_RUNTIME_DIR", None)
    migrated(env)
    ports = [free_port(), free_port()]
    started = [
        subprocess.Popen(
            [PYTHON, "-m", "gunicorn", "-c", GUNICORN_CONFIG, "--bind", f"127.0.0.1:{port}", "--workers", "1"],
            cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=(tmp_path / f"gunicorn-{port}.log").open("w"),
        )
        for port in ports
    ]  # fmt: skip
    try:
        for port in ports:
            wait_for(lambda: _answers(port), timeout=60, what=f"gunicorn on {port}")  # noqa: B023
        assert all(process.poll() is None for process in started)
        assert not (home / ".gunicorn").exists()
        assert not list(tmp_path.rglob("*.ctl"))
    finally:
        for process in started:
            process.terminate()
        for process in started:
            process.wait(timeout=30)
    logs = "".join(log.read_text() for log in tmp_path.glob("gunicorn-*.log"))
    assert "Booting worker" in logs, logs
    assert "ontrol socket" not in logs and os.path.exists(home)
