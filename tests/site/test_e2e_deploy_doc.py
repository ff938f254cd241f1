"""docs/deploy.md's beat, run as step 6 runs it, outside systemd: its schedule file
goes in VAR_DIR, made by the step's `mkdir -p`, and its log has the line the
document says to watch for."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from tests.e2e_support.processes import CELERY, PrivateRedis, Process, site_env, wait_for

pytestmark = [pytest.mark.e2e]

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = (ROOT / "docs" / "deploy.md").read_text()


def documented_beat_command() -> list[str]:
    """Step 6's beat line, without the virtual environment's path and the redirection."""
    line = next(line for line in DEPLOY.splitlines() if line.startswith(".venv/bin/celery -A splendor_site beat"))
    words = shlex.split(line.split(">")[0])
    assert words[:2] == [".venv/bin/celery", "-A"], words
    return [*CELERY, *words[1:]]


def test_beat_started_as_documented_logs_the_line_the_document_says_to_watch_for(tmp_path: Path) -> None:
    watched = re.search(r"watch its log for\s+`([^`]+)`", DEPLOY)
    assert watched, "docs/deploy.md names no beat log line to watch for"
    command = documented_beat_command()
    assert "--schedule" not in command  # the schedule file is VAR_DIR's, as outside systemd
    redis = PrivateRedis(tmp_path / "redis.log").start()
    env = site_env(tmp_path, database_url=f"sqlite:///{tmp_path / 'db.sqlite3'}", broker_url=redis.url(0))
    var_dir = Path(env["VAR_DIR"])
    assert not var_dir.exists()
    var_dir.mkdir(parents=True)  # step 6's `mkdir -p var`, here for the test's own VAR_DIR
    beat = Process("beat", command, env, tmp_path / "beat.log").start()
    try:
        wait_for(lambda: watched.group(1) in beat.output() or not beat.alive(), timeout=60,
                 what=f"beat logging {watched.group(1)!r}", explain=beat.tail)  # fmt: skip
        assert beat.alive(), beat.tail()
        assert any(var_dir.glob("celerybeat-schedule*")), sorted(var_dir.iterdir())
    finally:
        beat.stop()
        redis.stop()
