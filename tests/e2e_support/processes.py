"""Private processes for end-to-end tests, and what the tests read from them.

Nothing here touches the machine's shared services: redis-server runs on a free
port of its own, PostgreSQL gets a database of its own (created, migrated and
dropped), and every process's settings come through its environment
(``site_env``), never from the test process's Django settings.
"""

from __future__ import annotations

import email
import email.message
import email.policy
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import urlsplit, urlunsplit

import pytest
import requests

ROOT = Path(__file__).resolve().parents[2]
PYTHON = sys.executable
CELERY = [PYTHON, "-m", "celery"]
# Claims a killed worker held are taken again after their lease: 2 to 10 minutes
# in the service, seconds for the tests that kill workers (settings, like
# GAME_CLOCK_SECONDS for the game clocks). A webhook attempt must end within its
# claim's lease (the settings refuse it otherwise), so it is shortened too.
SHORT_LEASES = {
    "OUTBOX_CLAIM_LEASE_SECONDS": "3",
    "OUTBOX_REDELIVER_AFTER_SECONDS": "3",
    "NOTIFICATION_SEND_LEASE_SECONDS": "3",
    "WEBHOOK_CLAIM_LEASE_SECONDS": "3",
    "WEBHOOKS_ATTEMPT_SECONDS": "2",
}

T = TypeVar("T")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def wait_for(check: Callable[[], T | None], *, timeout: float, what: str, every: float = 0.25,
             explain: Callable[[], str] | None = None) -> T:
    """Call ``check`` until it returns something truthy; fail the test after ``timeout`` s."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            value = check()
        except requests.ConnectionError:
            value = None  # a server restarting (runserver's autoreloader): ask again
        if value:
            return value
        if time.monotonic() > deadline:
            pytest.fail(f"{what}: not within {timeout:.0f} s" + (f"\n{explain()}" if explain else ""))
        time.sleep(every)


# --- environment ------------------------------------------------------------------

# The test process forces eager tasks and local email (tests/conftest.py); the
# processes started here get their settings from site_env only.
_NOT_INHERITED = (
    "DJANGO_", "CELERY_", "EMAIL_", "DEBUG", "SECRET_KEY", "SECURE_", "VAR_DIR", "PYTEST_", "PROMETHEUS_", "METRICS_",
)


def site_env(tmp_path: Path, *, database_url: str, broker_url: str | None, **extra: str) -> dict[str, str]:
    """The environment of a site process: the given database and broker (None:
    the default, the embedded filesystem broker), email as files in
    ``tmp_path/mail``, seconds instead of hours on game clocks, and every sweep
    each second."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(_NOT_INHERITED)}
    env.update(
        DJANGO_SETTINGS_MODULE="splendor_site.settings",
        PYTHONUNBUFFERED="1",
        DEBUG="true",
        DATABASE_URL=database_url,
        VAR_DIR=str(tmp_path / "var"),
        CACHE_URL="locmem://",
        EMAIL_BACKEND="django.core.mail.backends.filebased.EmailBackend",
        EMAIL_FILE_PATH=str(tmp_path / "mail"),
        SITE_URL="http://127.0.0.1:8000",
        GAME_CLOCK_SECONDS="1",
        DEADLINE_SWEEP_SECONDS="1",
        REMINDER_SWEEP_SECONDS="1",
        NOTIFICATION_SEND_DUE_SECONDS="1",
        OUTBOX_REDELIVER_SECONDS="1",
        PAUSE_SWEEP_SECONDS="1",
        # A missed deadline would otherwise take a vacation day and pause the game for a day.
        VACATION_DAYS_PER_YEAR="0",
        WEBHOOKS_SWEEP_SECONDS="1",
        WEBHOOKS_ALLOW_LOOPBACK="1",
        API_THROTTLE_ANON_RATE="100000/minute",
        API_THROTTLE_USER_RATE="100000/minute",
        LOG_LEVEL="INFO",
    )
    if broker_url is not None:
        env["CELERY_BROKER_URL"] = broker_url
        env["CELERY_TASK_ALWAYS_EAGER"] = "false"
    env.update(extra)
    return env


def manage(env: dict[str, str], *args: str, timeout: float = 120) -> str:
    done = subprocess.run(
        [PYTHON, "manage.py", *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout
    )
    assert done.returncode == 0, f"manage.py {' '.join(args)} failed:\n{done.stdout}\n{done.stderr}"
    return done.stdout


def player_token(env: dict[str, str], username: str) -> str:
    """A verified player with a read+play token, made by `manage.py player_create`."""
    import json

    out = manage(env, "player_create", username, "--email", f"{username}@example.com")
    return str(json.loads(out.strip().splitlines()[-1])["token"])


# `player_create` for each name given on the command line, in one process.
_PLAYERS_CREATE = """
import io, sys
import django
django.setup()
from django.core.management import call_command
for name in sys.argv[1:]:
    out = io.StringIO()
    call_command("player_create", name, "--email", name + "@example.com", stdout=out)
    print(out.getvalue().strip().splitlines()[-1])
"""


def player_tokens(env: dict[str, str], usernames: Iterable[str]) -> dict[str, str]:
    """``player_token`` for several players, with one start of Django (about 2 s of
    CPU each) instead of one for each."""
    import json

    names = list(usernames)
    if not names:
        return {}
    done = subprocess.run(
        [PYTHON, "-c", _PLAYERS_CREATE, *names], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, f"player_create {names} failed:\n{done.stdout}\n{done.stderr}"
    made = [json.loads(line) for line in done.stdout.strip().splitlines()[-len(names):]]
    assert [player["username"] for player in made] == names, made
    return {player["username"]: str(player["token"]) for player in made}


# --- processes ----------------------------------------------------------------------


def children(pid: int) -> set[int]:
    found: set[int] = set()
    try:
        tasks = list(Path(f"/proc/{pid}/task").iterdir())
    except OSError:
        return found
    for task in tasks:
        try:
            found.update(int(child) for child in (task / "children").read_text().split())
        except OSError:
            continue
    return found


def descendants(pid: int) -> set[int]:
    seen: set[int] = set()
    todo = [pid]
    while todo:
        for child in children(todo.pop()):
            if child not in seen:
                seen.add(child)
                todo.append(child)
    return seen


def pid_alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


class Process:
    """A command in a session (process group) of its own, its output in a log file."""

    def __init__(self, name: str, command: list[str], env: dict[str, str], log: Path) -> None:
        self.name = name
        self.command = command
        self.env = env
        self.log = log
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> Process:
        self.log.parent.mkdir(parents=True, exist_ok=True)
        with self.log.open("ab") as out:
            self.process = subprocess.Popen(
                self.command, cwd=ROOT, env=self.env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
            )
        return self

    @property
    def pid(self) -> int:
        assert self.process is not None
        return self.process.pid

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def output(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    def tail(self, lines: int = 60) -> str:
        return f"--- {self.name} ({self.log}) ---\n" + "\n".join(self.output().splitlines()[-lines:])

    def kill(self, sig: int = signal.SIGKILL) -> None:
        """Signal the whole group (the process and whatever it started)."""
        if self.process is None:
            return
        try:
            os.killpg(self.process.pid, sig)
        except ProcessLookupError:
            pass
        if sig == signal.SIGKILL:
            self.process.wait(timeout=10)

    def terminate(self) -> None:
        """SIGTERM to the main process only, as systemd's ``KillMode=mixed`` in
        docs/deploy.md: a Celery worker then warm-shuts down, its pool children
        finishing the task at hand, instead of each child being killed mid-task."""
        if self.process is None:
            return
        try:
            os.kill(self.process.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass

    def stop(self, timeout: float = 20, *, terminate: bool = True) -> None:
        """SIGTERM to the main process (unless ``terminate`` is False: already
        sent), up to ``timeout`` s for it to end, then SIGKILL to whatever is left
        of its group."""
        if self.process is None:
            return
        if self.process.poll() is None:
            if terminate:
                self.terminate()
            try:
                self.process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                pass
        self.kill(signal.SIGKILL)  # anything left in the group
        self.process.wait(timeout=10)


def stop_all(processes: Iterable[Process], timeout: float = 20) -> None:
    """``Process.stop`` for several at once: SIGTERM to all, then one shared wait,
    so that stopping N processes takes the longest of their shutdowns, not the sum.
    The private redis-servers go last, once the rest have ended: a Celery worker in
    its warm shutdown still talks to its broker, and with the broker gone it waits
    out its timeouts (20 s, then SIGKILL) instead of ending at once."""
    processes = list(processes)
    servers = [process for process in processes if isinstance(process, PrivateRedis)]
    clients = [process for process in processes if not isinstance(process, PrivateRedis)]
    if servers and clients:
        stop_all(clients, timeout)
        stop_all(servers, timeout)
        return
    for process in processes:
        if process.alive():
            process.terminate()
    deadline = time.monotonic() + timeout
    for process in processes:
        try:
            process.stop(timeout=max(0.0, deadline - time.monotonic()), terminate=False)
        except Exception:  # stop the rest whatever happens to one
            pass


class PrivateRedis(Process):
    """redis-server on a port of its own (never the shared 6379), no persistence.
    ``stop`` and ``start`` again keep the port: a restarted broker."""

    def __init__(self, log: Path, port: int | None = None) -> None:
        binary = shutil.which("redis-server")
        assert binary, "redis-server is needed for this test (apt-get install redis-server)"
        self.port = port or free_port()
        super().__init__(
            "redis-server",
            [binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
            dict(os.environ),
            log,
        )

    def url(self, db: int = 0) -> str:
        return f"redis://127.0.0.1:{self.port}/{db}"

    def start(self) -> PrivateRedis:
        super().start()

        def answers() -> bool:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2) as conn:
                    conn.sendall(b"PING\r\n")
                    return conn.recv(16).startswith(b"+PONG")
            except OSError:
                return False

        wait_for(answers, timeout=10, what="the private redis-server answering", every=0.05, explain=self.tail)
        return self


class SilentListener:
    """Accepts connections on ``port`` and never answers: a hung Redis (or any
    server that took the connection and stopped). ``close`` drops them all."""

    def __init__(self, port: int | None = None) -> None:
        self.server = socket.socket()
        self.server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.server.bind(("127.0.0.1", port or 0))
        self.server.listen(64)
        self.port = int(self.server.getsockname()[1])
        self.held: list[socket.socket] = []
        self.running = True
        self.thread = threading.Thread(target=self._accept, daemon=True)
        self.thread.start()

    def url(self, db: int = 0) -> str:
        return f"redis://127.0.0.1:{self.port}/{db}"

    def _accept(self) -> None:
        self.server.settimeout(0.1)
        while self.running:
            try:
                conn, _ = self.server.accept()
                self.held.append(conn)
            except OSError:
                continue

    def close(self) -> None:
        self.running = False
        self.thread.join(timeout=5)
        for conn in self.held:
            conn.close()
        self.server.close()


GUNICORN_CONFIG = "splendor_site/gunicorn_conf.py"


class Web(Process):
    """gunicorn with the site as docs/deploy.md runs it (the shipped config), two
    workers, on a free loopback port."""

    def __init__(self, env: dict[str, str], log: Path, workers: int = 2) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        super().__init__(
            "gunicorn",
            [
                PYTHON, "-m", "gunicorn", "-c", GUNICORN_CONFIG, "--bind", f"127.0.0.1:{self.port}",
                "--workers", str(workers), "--no-control-socket",
                "--graceful-timeout", "5", "--log-level", "info",
            ],
            env,
            log,
        )  # fmt: skip

    def start(self) -> Web:
        super().start()
        wait_for(lambda: _healthz(self.url), timeout=45, what="gunicorn answering /healthz", explain=self.tail)
        return self


def _healthz(url: str) -> bool:
    try:
        return requests.get(url + "/healthz", timeout=2).status_code == 200
    except requests.RequestException:
        return False


# A light worker for the tests: one task at a time, no chatter between workers.
LIGHT_WORKER = ["--pool", "solo", "--without-gossip", "--without-mingle"]
# Every queue docs/deploy.md's workers consume between them (settings.*_QUEUE): a
# test's worker on all of them does every class of work, as a trial on one machine.
ALL_QUEUES = "celery,webhooks,bots,beat"


class Worker(Process):
    """`celery -A splendor_site worker` on ``queues`` (by default every queue:
    ALL_QUEUES). ``options`` are LIGHT_WORKER unless given: a test of what deploy.md
    runs passes its own (prefork, gossip and mingle on)."""

    def __init__(self, env: dict[str, str], log: Path, name: str = "w1", queues: str = ALL_QUEUES,
                 options: list[str] | None = None) -> None:
        self.hostname = name
        super().__init__(
            f"worker {name}",
            [
                *CELERY, "-A", "splendor_site", "worker", "--queues", queues, "--hostname", f"{name}@%h",
                *(LIGHT_WORKER if options is None else options), "--loglevel", "INFO",
            ],
            env,
            log,
        )  # fmt: skip

    def start(self) -> Worker:
        super().start()
        wait_for(lambda: " ready." in self.output() or not self.alive(), timeout=60,
                 what=f"{self.name} ready", explain=self.tail)
        assert self.alive(), self.tail()
        return self


class Beat(Process):
    """`celery -A splendor_site beat` (exactly one), its schedule file in the tmp dir."""

    def __init__(self, env: dict[str, str], log: Path) -> None:
        schedule = Path(env["VAR_DIR"]) / "celerybeat-schedule"
        schedule.parent.mkdir(parents=True, exist_ok=True)
        super().__init__(
            "beat",
            [*CELERY, "-A", "splendor_site", "beat", "--schedule", str(schedule), "--loglevel", "INFO"],
            env,
            log,
        )

    def start(self) -> Beat:
        super().start()
        wait_for(lambda: "Sending due task" in self.output() or not self.alive(), timeout=60,
                 what="beat sending its first task", explain=self.tail)
        assert self.alive(), self.tail()
        return self


# --- PostgreSQL -----------------------------------------------------------------------


def database_url_for(server_url: str, name: str) -> str:
    return urlunsplit(urlsplit(server_url)._replace(path=f"/{name}"))


@dataclass
class PrivateDatabase:
    """A PostgreSQL database of the test's own on DATABASE_URL's server."""

    server_url: str
    name: str = field(default_factory=lambda: f"splendor_e2e_{secrets.token_hex(4)}")

    @property
    def url(self) -> str:
        return database_url_for(self.server_url, self.name)

    def _admin(self, sql: str) -> None:
        import psycopg

        with psycopg.connect(database_url_for(self.server_url, "postgres"), autocommit=True) as conn:
            conn.execute(sql)

    def create(self, env: dict[str, str]) -> PrivateDatabase:
        """Created and migrated: a copy of the run's migrated template (databases.py)."""
        from tests.e2e_support.databases import migrated

        migrated({**env, "DATABASE_URL": self.url}, create=True)
        return self

    def drop(self) -> None:
        self._admin(f'DROP DATABASE IF EXISTS "{self.name}" WITH (FORCE)')

    def rows(self, sql: str, *params: Any) -> list[tuple[Any, ...]]:
        import psycopg

        with psycopg.connect(self.url, autocommit=True) as conn:
            return list(conn.execute(sql, params).fetchall())


# --- the API ------------------------------------------------------------------------------


@dataclass
class Api:
    url: str
    tokens: dict[str, str]

    def call(self, who: str, method: str, path: str, body: Any = None, expect: Iterable[int] = (200, 201)) -> Any:
        answer = requests.request(
            method, self.url + path, json=body, timeout=30, headers={"Authorization": f"Bearer {self.tokens[who]}"}
        )
        assert answer.status_code in tuple(expect), f"{method} {path} as {who}: {answer.status_code} {answer.text}"
        return answer.json() if answer.content else None

    def new_game(self, creator: str, invited: list[str], **options: Any) -> str:
        game = self.call(creator, "POST", "/api/v1/games/", {"seats": len(invited) + 1, "invited": invited, **options})
        for name in invited:
            self.call(name, "POST", f"/api/v1/games/{game['id']}/join/")
        return str(game["id"])

    def game(self, who: str, game_id: str) -> Any:
        return self.call(who, "GET", f"/api/v1/games/{game_id}/")

    def to_move(self, game_id: str) -> str:
        """The name of the player whose turn it is (asked as any player in it)."""
        for who in self.tokens:
            legal = requests.get(
                f"{self.url}/api/v1/games/{game_id}/legal-moves/", timeout=30,
                headers={"Authorization": f"Bearer {self.tokens[who]}"},
            )  # fmt: skip
            if legal.status_code == 200 and legal.json().get("moves"):
                return who
        raise AssertionError(f"nobody has a legal move in game {game_id}")

    def play(self, game_id: str, who: str | None = None) -> tuple[str, Any]:
        """The player to move plays their first legal move; returns (who, answer)."""
        who = who or self.to_move(game_id)
        legal = self.call(who, "GET", f"/api/v1/games/{game_id}/legal-moves/")
        answer = self.call(
            who, "POST", f"/api/v1/games/{game_id}/moves/",
            {"move": legal["moves"][0], "expected_version": legal["version"]},
        )  # fmt: skip
        return who, answer


# --- email written by django.core.mail.backends.filebased ------------------------------

_SEPARATOR = "\n" + "-" * 79 + "\n"


def emails(mail_dir: Path) -> list[email.message.EmailMessage]:
    """Every message the file backend wrote (one file per connection, messages
    separated by a line of 79 dashes)."""
    found: list[email.message.EmailMessage] = []
    if not mail_dir.exists():
        return found
    for path in sorted(mail_dir.iterdir()):
        for chunk in path.read_text(errors="replace").split(_SEPARATOR):
            if chunk.strip():
                message = email.message_from_string(chunk.lstrip("\n"), policy=email.policy.default)
                found.append(message)  # type: ignore[arg-type]
    return found


def message_id_of(message: Any) -> str:
    """The Message-ID header without the folding whitespace a long one gets."""
    return "".join(str(message["Message-ID"]).split())


def text_of(message: email.message.EmailMessage) -> str:
    part = message.get_body(preferencelist=("plain",))
    return part.get_content() if part is not None else ""


def headline_of(message: email.message.EmailMessage) -> str:
    """What an email says happened: the first line of its text (an email about a
    game has the game's subject, which never changes; docs/email.md)."""
    return next((line.strip() for line in text_of(message).splitlines() if line.strip()), "")


# --- a whole site: PostgreSQL, a private Redis, gunicorn, workers and one beat ------------


@dataclass
class Stack:
    """A private database, a private redis-server as the broker, gunicorn, N
    workers and one beat, all with the same environment."""

    tmp: Path
    db: PrivateDatabase
    redis: PrivateRedis
    env: dict[str, str]
    web: Web
    api: Api
    workers: list[Worker] = field(default_factory=list)
    beat: Beat | None = None

    @property
    def mail_dir(self) -> Path:
        return self.tmp / "mail"

    def processes(self) -> list[Process]:
        return [*self.workers, *([self.beat] if self.beat else []), self.web, self.redis]

    def explain(self) -> str:
        return "\n".join(process.tail(40) for process in self.processes())

    def stop(self) -> None:
        """Every process asked to stop at once (each finishes its work in its own
        time), then each waited for and killed if it has not; then the database."""
        stop_all(self.processes())
        self.db.drop()


def start_stack(tmp_path: Path, *, players: Iterable[str] = ("alice", "bob"), workers: int = 2, beat: bool = True,
                worker_queues: str = ALL_QUEUES, worker_options: list[str] | None = None,
                webhook_workers: int = 0, **extra_env: str) -> Stack:
    """Everything started and ready; the caller must call ``stop()`` (fixtures do).
    ``workers`` consume ``worker_queues``; ``webhook_workers`` more consume only
    the `webhooks` queue, as docs/deploy.md's dedicated webhooks worker."""
    redis = PrivateRedis(tmp_path / "redis.log")
    db = PrivateDatabase(os.environ["DATABASE_URL"])
    env = site_env(tmp_path, database_url=db.url, broker_url=redis.url(0), REDIS_URL=redis.url(0), **extra_env)
    web = Web(env, tmp_path / "gunicorn.log")
    stack = Stack(tmp_path, db, redis, env, web, Api(web.url, {}))
    try:
        redis.start()
        db.create(env)
        stack.api.tokens.update(player_tokens(env, players))
        web.start()
        for n in range(1, workers + 1):
            stack.workers.append(
                Worker(env, tmp_path / f"worker{n}.log", name=f"w{n}", queues=worker_queues, options=worker_options)
            )
            stack.workers[-1].start()
        for n in range(1, webhook_workers + 1):
            stack.workers.append(Worker(env, tmp_path / f"webhooks{n}.log", name=f"webhooks{n}", queues="webhooks"))
            stack.workers[-1].start()
        if beat:
            stack.beat = Beat(env, tmp_path / "beat.log")
            stack.beat.start()
    except BaseException:
        stack.stop()
        raise
    return stack


def settled(stack: Stack) -> bool:
    """Every outbox event handled by every consumer, and no email still queued."""
    pending_claims = stack.db.rows(
        "SELECT count(*) FROM games_gameevent e WHERE NOT EXISTS (SELECT 1 FROM games_gameeventclaim c "
        "WHERE c.event_id = e.id AND c.consumer = 'email' AND c.done_at IS NOT NULL)"
    )[0][0]
    queued = stack.db.rows("SELECT count(*) FROM notifications_notification WHERE status = 'queued'")[0][0]
    return pending_claims == 0 and queued == 0


def sent_notifications(stack: Stack) -> list[tuple[str, str, str]]:
    """(key, kind, message_id) of every notification sent."""
    return [
        (str(key), str(kind), str(message_id))
        for key, kind, message_id in stack.db.rows(
            "SELECT key, kind, message_id FROM notifications_notification WHERE status = 'sent' ORDER BY id"
        )
    ]


def last_move_announced(stack: Stack, game_id: str) -> bool:
    """The player to move after the game's last move was sent their turn email.
    (Earlier moves' turn emails are skipped when a later move is already there
    by the time their event is handled: the later one tells the next player.)"""
    last = stack.db.rows(
        "SELECT id FROM games_gameevent WHERE game_id = %s AND kind = 'move_played' ORDER BY id DESC LIMIT 1", game_id
    )
    if not last:
        return False
    return bool(stack.db.rows(
        "SELECT 1 FROM notifications_notification WHERE key LIKE %s AND status = 'sent'",
        f"event:{last[0][0]}:your_turn:%",
    ))  # fmt: skip
