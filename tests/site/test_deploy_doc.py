"""docs/deploy.md and the README's production commands hold: the env file they write
reads the same in systemd and in a shell, and passes `check --deploy`; gunicorn is
run with the shipped config and one worker count; the settings table says which
process reads each setting; Redis examples never give the tests the broker's database."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from tests.site.test_settings_from_environment import run_manage

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = (ROOT / "docs" / "deploy.md").read_text()
README = (ROOT / "README.md").read_text()
PROCESSES = {"web", "worker", "beat", "smtpd", "none"}

# A line both readers take the same way: KEY=value, the value bare (no character a
# shell or systemd treats specially) or in double quotes (no quote, $, ` or \ inside).
ENV_LINE = re.compile(r'^[A-Z][A-Z0-9_]*=(?:"[^"$`\\\']*"|[^\s"\'$`\\<>&;|()#]*)$')


def code_blocks(text: str, language: str = "sh") -> list[str]:
    return re.findall(rf"^```{language}\n(.*?)^```", text, re.MULTILINE | re.DOTALL)


def systemd_environment_file(text: str) -> dict[str, str]:
    """The variables systemd's EnvironmentFile= reads from ``text``, for the lines
    ENV_LINE allows (comments and blank lines skipped, one pair of quotes removed)."""
    found = {}
    for line in text.splitlines():
        if not line.strip() or line.lstrip().startswith(("#", ";")):
            continue
        key, _, value = line.partition("=")
        if len(value) >= 2 and value[0] == value[-1] == '"':
            value = value[1:-1]
        found[key.strip()] = value
    return found


@pytest.fixture
def env_file(tmp_path: Path) -> Path:
    """The env file, written by running deploy.md's step that writes it."""
    step = next(block for block in code_blocks(DEPLOY) if "cat > /etc/splendor/env <<EOF" in block)
    subprocess.run(["sh", "-e", "-c", step.replace("/etc/splendor", str(tmp_path))], check=True, timeout=60)
    return tmp_path / "env"


def test_the_documented_env_file_reads_the_same_in_systemd_and_in_a_shell(env_file: Path) -> None:
    text = env_file.read_text()
    lines = [line for line in text.splitlines() if line.strip() and not line.startswith("#")]
    assert lines and all(ENV_LINE.match(line) for line in lines), [l for l in lines if not ENV_LINE.match(l)]
    shell = subprocess.run(
        ["sh", "-c", f'set -a; . "{env_file}"; set +a; env -0'], capture_output=True, text=True, check=True,
        env={"PATH": "/usr/bin:/bin"},
    )  # fmt: skip
    from_shell = dict(item.split("=", 1) for item in shell.stdout.split("\0") if "=" in item)
    from_systemd = systemd_environment_file(text)
    assert {key: from_shell.get(key) for key in from_systemd} == from_systemd
    assert from_systemd["DEFAULT_FROM_EMAIL"] == "Splendor by post <splendor@splendor.example>"
    assert len(from_systemd["SECRET_KEY"]) >= 50


def test_the_documented_env_file_passes_the_deployment_checks(env_file: Path) -> None:
    settings = systemd_environment_file(env_file.read_text())
    result = run_manage("check", "--deploy", "--fail-level", "WARNING", **settings)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def gunicorn_commands(text: str) -> list[str]:
    """Every command line (continuations joined) that starts gunicorn."""
    joined = re.sub(r"\\\n\s*", " ", text)
    return [line for line in joined.splitlines() if re.search(r"(^|[\s/`|])gunicorn (-|splendor_site)", line)]


def test_gunicorn_is_started_with_the_shipped_config_and_its_worker_count_everywhere() -> None:
    commands = gunicorn_commands(README) + gunicorn_commands(DEPLOY)
    assert len(commands) >= 4, commands  # README, the table, step 6, the systemd unit
    for command in commands:
        assert "-c splendor_site/gunicorn_conf.py" in command, command
        assert "--workers" not in command.split("#")[0], command  # the count lives in the config
    config: dict[str, object] = {}
    exec((ROOT / "splendor_site" / "gunicorn_conf.py").read_text(), config)
    assert config["forwarded_allow_ips"] == ""
    assert config["worker_class"] == "api.gunicorn_workers.ProblemJsonSyncWorker"
    counts = set(re.findall(r"\b(\d+) (?:sync )?workers\b", README + DEPLOY))
    assert counts == {str(config["workers"])}, counts


def settings_table(text: str) -> list[tuple[str, str]]:
    section = text[text.index("## Settings"):]
    section = section[: section.index("\n## ", 1)]
    rows = [line for line in section.splitlines() if line.startswith("| `")]
    return [(cells[0].lstrip("| "), cells[1]) for cells in (row.split(" | ") for row in rows)]


def test_each_setting_in_the_deploy_table_says_which_processes_read_it() -> None:
    rows = settings_table(DEPLOY)
    assert len(rows) > 20
    for variable, read_by in rows:
        named = set(re.findall(r"\b[a-z]+\b", read_by.split("(")[0]))
        assert named and named <= PROCESSES, f"{variable}: {read_by!r}"
    by_name = {variable: read_by for variable, read_by in rows}
    loopback = next(read_by for variable, read_by in by_name.items() if "`WEBHOOKS_ALLOW_LOOPBACK`" in variable)
    assert "web" in loopback and "worker" in loopback


def test_each_variable_in_the_deploy_table_is_a_setting() -> None:
    source = (ROOT / "splendor_site" / "settings.py").read_text()
    read = set(re.findall(r'env_[a-z_]+\("([A-Z0-9_]+)"', source))
    for variable, _ in settings_table(DEPLOY):
        for name in re.findall(r"`([A-Z][A-Z0-9_]+)`", variable):
            assert name in read or name == "REDIS_URL", name
    assert "REDIS_URL" in read


def test_no_example_gives_the_tests_the_brokers_or_the_caches_redis_database() -> None:
    conftest = (ROOT / "tests" / "conftest.py").read_text()
    ci = (ROOT / ".ci" / "run").read_text()
    texts = {"README.md": README, "docs/deploy.md": DEPLOY, "tests/conftest.py": conftest, ".ci/run": ci}
    service_dbs = {
        db for text in texts.values()
        for db in re.findall(r"(?:CELERY_BROKER_URL|CACHE_URL)[=`' |a-z]*redis://[^/\s`]+/(\d+)", text)
    }  # fmt: skip
    assert service_dbs >= {"0", "1"}
    test_dbs = {(name, db) for name, text in texts.items() for db in re.findall(r"REDIS_URL=redis://[^/\s`]+/(\d+)", text)}
    assert {name for name, _ in test_dbs} == set(texts), test_dbs  # every place gives one
    assert not {db for _, db in test_dbs} & service_dbs, test_dbs
