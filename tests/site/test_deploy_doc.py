"""docs/deploy.md and its production commands hold: the env file they write
reads the same in systemd and in a shell, and passes `check --deploy`; gunicorn is
run with the shipped config and one worker count; the settings table says which
process reads each setting; Redis examples never give the tests the broker's database."""

from __future__ import annotations

import re
import shlex
import subprocess
from pathlib import Path

import pytest

from tests.site.test_settings_from_environment import run_manage

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = (ROOT / "docs" / "deploy.md").read_text()
README = (ROOT / "README.md").read_text()
TESTING = (ROOT / "docs" / "testing.md").read_text()
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
    assert len(commands) >= 4, commands  # "Running in production", the table, step 6, the systemd unit
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
    # The settings file and the settings modules it imports (logging_settings, ...).
    source = "".join(path.read_text() for path in sorted((ROOT / "splendor_site").glob("*settings.py")))
    read = set(re.findall(r'env_[a-z_]+\("([A-Z0-9_]+)"', source))
    for variable, _ in settings_table(DEPLOY):
        for name in re.findall(r"`([A-Z][A-Z0-9_]+)`", variable):
            assert name in read or name == "REDIS_URL", name
    assert "REDIS_URL" in read


def test_no_example_gives_the_tests_the_brokers_or_the_caches_redis_database() -> None:
    conftest = (ROOT / "tests" / "conftest.py").read_text()
    ci = (ROOT / ".ci" / "run").read_text()
    texts = {
        "README.md": README, "docs/testing.md": TESTING, "docs/deploy.md": DEPLOY, "tests/conftest.py": conftest, ".ci/run": ci,
    }  # fmt: skip
    service_dbs = {
        db for text in texts.values()
        for db in re.findall(r"(?:CELERY_BROKER_URL|CACHE_URL)[=`' |a-z]*redis://[^/\s`]+/(\d+)", text)
    }  # fmt: skip
    assert service_dbs >= {"0", "1"}
    test_dbs = {(name, db) for name, text in texts.items() for db in re.findall(r"REDIS_URL=redis://[^/\s`]+/(\d+)", text)}
    assert {name for name, _ in test_dbs} == set(texts), test_dbs  # every place gives one
    assert not {db for _, db in test_dbs} & service_dbs, test_dbs


def systemctl_units(line: str) -> set[str]:
    """The units a `systemctl <verb> ...` line names (a template's glob as the template)."""
    words = shlex.split(line)
    assert words[0] == "systemctl", line
    return {word.removesuffix("*") for word in words[2:] if not word.startswith("-")}


def test_the_release_the_restore_and_the_first_start_name_every_unit_the_guide_writes() -> None:
    from tests.e2e_support.deploy_guide import units

    written = set(units())
    assert {"splendor-web", "splendor-stream", "splendor-worker@", "splendor-webhooks", "splendor-bots@",
            "splendor-beat-worker", "splendor-beat", "splendor-smtpd"} <= written  # fmt: skip
    lines = [line.strip() for line in DEPLOY.splitlines() if line.strip().startswith("systemctl ")]
    restart = [line for line in lines if line.startswith("systemctl restart ")]
    stop_start = [line for line in lines if line.startswith(("systemctl stop ", "systemctl start "))]
    assert len(restart) == 1 and len(stop_start) == 2, lines
    for line in restart + stop_start:
        assert systemctl_units(line) == written, line
    enables = [set(found.split()) for found in re.findall(r"`systemctl enable --now\s+([^`]+)`", DEPLOY)]
    assert enables, "docs/deploy.md does not say how to start the units"
    assert {re.sub(r"@\d+$", "@", unit) for unit in max(enables, key=len)} == written


def test_the_guides_nginx_passes_the_host_with_its_port_and_answers_metrics_itself() -> None:
    from tests.e2e_support.deploy_guide import nginx_site

    site = nginx_site()
    assert re.search(r"\bserver \{", site) and site.count("{") == site.count("}")
    proxied = re.findall(r"location ([^{]+)\{([^}]*)\}", site)
    assert {where.strip() for where, body in proxied if "proxy_pass" in body} == {
        "= /api/v1/stream/", "~ ^/games/[A-Za-z0-9]+/events/$", "/"
    }
    for where, body in proxied:
        if "proxy_pass" in body:
            assert "proxy_set_header Host $http_host;" in body, where
            assert "proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;" in body, where
    stream = dict((where.strip(), body) for where, body in proxied)["= /api/v1/stream/"]
    assert "proxy_buffering off;" in stream and "proxy_pass http://splendor_stream;" in stream
    page_stream = dict((where.strip(), body) for where, body in proxied)["~ ^/games/[A-Za-z0-9]+/events/$"]
    assert "proxy_buffering off;" in page_stream and "proxy_pass http://splendor_stream;" in page_stream
    metrics = re.search(r"location = /metrics \{\s*return 404;\s*\}", site)
    assert metrics, "nginx does not answer /metrics itself"
    assert "$host;" not in site  # $host drops a port other than 80 or 443
    # TLS stays commented out for a trial over plain http, ready to be turned on.
    assert re.search(r"^\s*# listen 443 ssl;", site, re.MULTILINE)
    assert not re.search(r"^\s*ssl_certificate", site, re.MULTILINE)


def _unit_queues() -> dict[str, str]:
    from tests.e2e_support.deploy_guide import exec_start, units

    found = {}
    for unit in units():
        command = exec_start(unit)
        if "worker" in command and "--queues" in command:
            found[unit] = command[command.index("--queues") + 1]
    return found


def test_the_guide_gives_every_queue_a_worker_unit_of_its_own() -> None:
    from django.conf import settings

    queues = _unit_queues()

    assert sorted(queues.values()) == sorted(
        [settings.DEFAULT_QUEUE, settings.WEBHOOKS_QUEUE, settings.BOTS_QUEUE, settings.BEAT_QUEUE]
    )
    assert queues["splendor-bots@"] == "bots" and queues["splendor-beat-worker"] == "beat"


def test_the_bots_unit_makes_one_move_at_a_time_at_a_lower_priority() -> None:
    from tests.e2e_support.deploy_guide import exec_start, units

    command = exec_start("splendor-bots@")
    assert command[command.index("--concurrency") + 1] == "1"
    assert re.search(r"^Nice=10$", units()["splendor-bots@"], re.MULTILINE)
    assert "Nice=" not in units()["splendor-worker@"]  # game email keeps its priority
