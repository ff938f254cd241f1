"""How much one account's practice games slow everybody else's, measured on real processes.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres \\
        python scripts/bench_isolation.py [--code CHECKOUT] [--seconds 120] [--json FILE]

Starts the service as the checkout's docs/deploy.md runs it (``--code``, this
checkout by default): every systemd unit of the guide that runs gunicorn, a Celery
worker or beat becomes one process (a template unit's instance 1; ``Nice=`` as
``nice -n``), with the checkout as its working folder, on a PostgreSQL database of
its own (created, migrated and dropped) and a private redis-server on a free port
as the broker and the cache. Email goes to files; the sweeps of deadlines,
redelivery and ``send_due`` run every --sweep-seconds. The stream's uvicorn and
smtpd are not started: nothing here reads a stream or sends a reply.

Then, for --seconds:

- one abusive account keeps --practice-games practice games against three search
  bots (``ismcts``) each and moves in them as fast as the API lets it (a finished
  one is replaced); before them it asks for one more and records the answer (the
  limit of active practice games refuses it with 409 where there is one; where
  there is none, that game is left alone);
- 8 real games of two players are played at --turns-per-second in all (2): each
  tick, the next game whose last move's "your turn" email has been sent moves, as
  a player who waits for their email would; a tick with no such game is idle.

Prints: the real moves' delay from the move's answer to its "your turn" email
(the notification's ``sent_at``): median, 95th percentile and max, and the moves
whose email had not gone by the end (their age counts as a lower bound); the
deadline sweep's lateness (the worker starting it, from its ``succeeded in`` log
line, against beat's ``Sending due task`` line, in order); every beat task the
workers discarded as expired (``Discarding revoked task``); each queue's length
in the broker (LLEN each second: max and mean); the CPU seconds each class of
process used during the load (utime + stime of its process tree, /proc); the
abusive account's moves and the answer to its extra practice game.

The machine's other work is in the figures: run the codes compared one after the
other, alternated. Not a test and not in CI. docs/benchmarks.md keeps the figures
and the command.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import secrets
import shlex
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import psycopg
import redis
import requests

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.e2e_support.processes import PrivateRedis, descendants, free_port  # noqa: E402

VENV_BIN = Path(sys.executable).parent
GUIDE_VENV_BIN = "/srv/splendor/.venv/bin/"
QUEUES = ("celery", "webhooks", "bots", "beat")
REAL_GAMES = 8
SEARCH_BOTS = ["ismcts", "ismcts", "ismcts"]
CLOCK_TICK = os.sysconf("SC_CLK_TCK")
_UNIT = re.compile(r"`/etc/systemd/system/(splendor-[\w@-]+)\.service`.*?\n```ini\n(.*?)^```", re.DOTALL | re.MULTILINE)
_STAMP = re.compile(r"(\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?:[,.]\d+)?)")
# The environment of this process that the site's processes do not inherit.
_NOT_INHERITED = ("DJANGO_", "CELERY_", "EMAIL_", "DEBUG", "SECRET_KEY", "SECURE_", "VAR_DIR", "PYTEST_", "PROMETHEUS_")


# --- the processes of the guide ------------------------------------------------------------


@dataclass
class Unit:
    """One process of the guide: its unit's name, its class (web, worker, webhooks,
    bots, beat-worker, beat) and its command with this virtual environment's programs."""

    name: str
    kind: str
    command: list[str]
    env: dict[str, str]


def guide_units(code: Path, *, web_port: int) -> list[Unit]:
    """The units of ``code``'s docs/deploy.md that run gunicorn, a worker or beat."""
    found: list[Unit] = []
    for name, text in _UNIT.findall((code / "docs" / "deploy.md").read_text()):
        text = re.sub(r"\\\n\s*", " ", text)
        lines = [line for line in text.splitlines() if "=" in line and not line.startswith(("#", "["))]
        settings = [line.split("=", 1) for line in lines]
        start = next((value for key, value in settings if key == "ExecStart"), "")
        words = [re.sub(r"%([%i])", lambda m: "%" if m.group(1) == "%" else "1", w) for w in shlex.split(start)]
        if not words or not words[0].startswith(GUIDE_VENV_BIN):
            continue
        program = words[0].removeprefix(GUIDE_VENV_BIN)
        args = words[1:]
        if program == "gunicorn":
            args[args.index("--bind") + 1] = f"127.0.0.1:{web_port}"
            kind = "web"
        elif program == "celery" and next(w for w in args if w in ("worker", "beat")) == "beat":
            kind = "beat"
        elif program == "celery":
            queues = args[args.index("--queues") + 1]
            kind = {"celery": "worker", "webhooks": "webhooks", "bots": "bots", "beat": "beat-worker"}.get(queues, queues)
        else:
            continue  # the stream's uvicorn, smtpd
        command = [str(VENV_BIN / program), *args]
        nice = next((value for key, value in settings if key == "Nice"), None)
        if nice is not None:
            command = ["nice", "-n", nice.strip(), *command]
        env = {key: value for key, value in (v.split("=", 1) for k, v in settings if k == "Environment")}
        found.append(Unit(name, kind, command, env))
    return found


class Proc:
    """A command in a session of its own, run in the checkout, its output in a log file."""

    def __init__(self, unit: Unit, code: Path, env: dict[str, str], log: Path) -> None:
        self.unit = unit
        self.log = log
        with log.open("ab") as out:
            self.popen = subprocess.Popen(
                unit.command, cwd=code, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
            )

    def output(self) -> str:
        return self.log.read_text(errors="replace")

    def cpu_seconds(self) -> float:
        """utime + stime of the process and its descendants, and of the children they reaped."""
        total = 0.0
        for pid in {self.popen.pid, *descendants(self.popen.pid)}:
            try:
                fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            total += sum(int(value) for value in fields[11:15]) / CLOCK_TICK
        return total

    def stop(self) -> None:
        try:
            os.killpg(self.popen.pid, signal.SIGTERM)
            self.popen.wait(timeout=20)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            pass
        try:
            os.killpg(self.popen.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.popen.wait(timeout=10)


def wait_until(check: Any, *, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise SystemExit(f"{what}: not within {timeout:.0f} s")
        time.sleep(0.25)


def database_url(server: str, name: str) -> str:
    return server.rsplit("/", 1)[0] + "/" + name


def manage(code: Path, env: dict[str, str], *args: str) -> str:
    done = subprocess.run([sys.executable, "manage.py", *args], cwd=code, env=env, capture_output=True, text=True,
                          timeout=600, check=False)  # fmt: skip
    if done.returncode != 0:
        raise SystemExit(f"manage.py {' '.join(args)} failed:\n{done.stdout}\n{done.stderr}")
    return done.stdout


_PLAYERS = """
import io, json
from django.core.management import call_command
for name in {names!r}:
    out = io.StringIO()
    call_command("player_create", name, "--email", name + "@example.com", stdout=out)
    print(out.getvalue().strip().splitlines()[-1])
"""


def players(code: Path, env: dict[str, str], names: list[str]) -> dict[str, str]:
    """Verified players with read+play tokens (``manage.py player_create``, in one process)."""
    out = manage(code, env, "shell", "-c", _PLAYERS.format(names=names))
    made = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    return {row["username"]: row["token"] for row in made}


# --- what the bench does through the API ----------------------------------------------------


@dataclass
class Client:
    url: str
    tokens: dict[str, str]
    session: requests.Session = field(default_factory=requests.Session)

    def call(self, who: str, method: str, path: str, body: Any = None) -> requests.Response:
        return self.session.request(method, self.url + path, json=body, timeout=60,
                                    headers={"Authorization": f"Bearer {self.tokens[who]}"})  # fmt: skip


def db_rows(url: str, sql: str, *params: Any) -> list[tuple[Any, ...]]:
    with psycopg.connect(url, autocommit=True) as conn:
        return list(conn.execute(sql, params).fetchall())


def db_admin(url: str, sql: str) -> None:
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(sql)


@dataclass
class RealMove:
    game: str
    ply: int
    answered: float  # time.time() when the 201 came back
    emailed: float | None = None


@dataclass
class Figures:
    real_moves: list[RealMove] = field(default_factory=list)
    idle_ticks: int = 0
    ticks: int = 0
    real_errors: list[str] = field(default_factory=list)
    abuse_moves: int = 0
    abuse_throttled: int = 0
    abuse_errors: list[str] = field(default_factory=list)
    practice_created: int = 0
    extra_practice: str = ""
    queue_lengths: dict[str, list[int]] = field(default_factory=lambda: {q: [] for q in QUEUES})
    due_bot_turns: list[int] = field(default_factory=list)


def real_games(client: Client, db: str, pairs: list[tuple[str, str]]) -> dict[str, tuple[str, str]]:
    games: dict[str, tuple[str, str]] = {}
    for first, second in pairs:
        created = client.call(first, "POST", "/api/v1/games/", {"seats": 2, "invited": [second]})
        assert created.status_code == 201, created.text
        game = str(created.json()["id"])
        joined = client.call(second, "POST", f"/api/v1/games/{game}/join/")
        assert joined.status_code in (200, 201), joined.text
        games[game] = (first, second)
    return games


def to_move(db: str, game: str) -> tuple[str, int | None, int, str] | None:
    """(status, the seat to move, version, that seat's username) of a game."""
    rows = db_rows(db, "SELECT g.status, g.to_move, g.version, u.username FROM games_game g "
                       "LEFT JOIN games_seat s ON s.game_id = g.id AND s.index = g.to_move "
                       "LEFT JOIN auth_user u ON u.id = s.user_id WHERE g.id = %s", game)  # fmt: skip
    return (str(rows[0][0]), rows[0][1], int(rows[0][2]), str(rows[0][3])) if rows else None


def play_one(client: Client, who: str, game: str, rng: random.Random) -> requests.Response | None:
    """``who`` plays a random legal move; None when they have none (not their turn)."""
    legal = client.call(who, "GET", f"/api/v1/games/{game}/legal-moves/")
    if legal.status_code != 200:
        return legal
    body = legal.json()
    if not body.get("moves"):
        return None
    return client.call(who, "POST", f"/api/v1/games/{game}/moves/",
                       {"move": rng.choice(body["moves"]), "expected_version": body["version"]})  # fmt: skip


def drive_real(client: Client, db: str, games: dict[str, tuple[str, str]], figures: Figures, *, until: float,
               rate: float, stop: threading.Event) -> None:
    """Each tick, the next game (round robin) whose last move was announced by email moves."""
    rng = random.Random(1)
    waiting: dict[str, RealMove] = {}
    order = list(games)
    turn = 0
    tick = time.time()
    while time.time() < until and not stop.is_set():
        tick += 1 / rate
        time.sleep(max(0.0, tick - time.time()))
        figures.ticks += 1
        if waiting:
            sent = db_rows(db, "SELECT n.game_id::text, (e.payload->>'ply')::int, n.sent_at FROM notifications_notification n "
                               "JOIN games_gameevent e ON e.id = n.event_id WHERE n.kind = 'your_turn' "
                               "AND n.status = 'sent' AND n.game_id::text = ANY(%s)", list(waiting))  # fmt: skip
            for game, ply, sent_at in sent:
                move = waiting.get(game)
                if move is not None and ply == move.ply:
                    move.emailed = sent_at.timestamp()
                    del waiting[game]
        ready = [g for g in order[turn:] + order[:turn] if g not in waiting]
        if not ready:
            figures.idle_ticks += 1
            continue
        game = ready[0]
        turn = (order.index(game) + 1) % len(order)
        state = to_move(db, game)
        if state is None or state[0] != "active":
            order.remove(game)  # over: the others play on
            turn = 0
            if not order:
                return
            continue
        answer = play_one(client, state[3], game, rng)
        if answer is None or answer.status_code != 201:
            figures.real_errors.append(f"{game}: {None if answer is None else (answer.status_code, answer.text[:200])}")
            continue
        ply = db_rows(db, "SELECT max(ply) FROM games_move WHERE game_id::text = %s", game)[0][0]
        move = RealMove(game, int(ply), time.time())
        figures.real_moves.append(move)
        after = to_move(db, game)
        if after is not None and after[0] == "active":
            waiting[game] = move
        else:
            order.remove(game)
            if not order:
                return


def settle_emails(db: str, figures: Figures) -> None:
    rows = db_rows(db, "SELECT n.game_id::text, (e.payload->>'ply')::int, n.sent_at FROM notifications_notification n "
                       "JOIN games_gameevent e ON e.id = n.event_id WHERE n.kind = 'your_turn' AND n.status = 'sent'")  # fmt: skip
    sent = {(game, ply): at.timestamp() for game, ply, at in rows}
    for move in figures.real_moves:
        if move.emailed is None and (move.game, move.ply) in sent:
            move.emailed = sent[(move.game, move.ply)]


def practice_game(client: Client, who: str) -> requests.Response:
    return client.call(who, "POST", "/api/v1/games/", {"variant": "base", "bots": SEARCH_BOTS})


def drive_abuse(client: Client, db: str, who: str, games: list[str], figures: Figures, *, until: float,
                stop: threading.Event) -> None:
    """Move in every practice game as soon as it is the person's turn; replace a finished one."""
    rng = random.Random(2)
    while time.time() < until and not stop.is_set():
        moved = False
        for index, game in enumerate(list(games)):
            if time.time() >= until or stop.is_set():
                return
            state = to_move(db, game)
            if state is None:
                continue
            if state[0] != "active":
                created = practice_game(client, who)
                if created.status_code == 201:
                    figures.practice_created += 1
                    games[index] = str(created.json()["id"])
                else:
                    figures.abuse_errors.append(f"new practice game: {created.status_code} {created.text[:200]}")
                continue
            if state[3] != who:
                continue
            answer = play_one(client, who, game, rng)
            if answer is None:
                continue
            if answer.status_code == 429:
                figures.abuse_throttled += 1
                time.sleep(float(answer.headers.get("Retry-After") or 1))
            elif answer.status_code == 201:
                figures.abuse_moves += 1
                moved = True
            elif answer.status_code != 409:  # 409: a bot moved in between
                figures.abuse_errors.append(f"{answer.status_code} {answer.text[:200]}")
        if not moved:
            time.sleep(0.1)


def sample_queues(broker: redis.Redis, db: str, figures: Figures, *, until: float, stop: threading.Event) -> None:
    """Each second: every queue's length in the broker, and where bot turns are rows
    (games_botturn), how many are due and not being played."""
    rows = bool(db_rows(db, "SELECT to_regclass('games_botturn') IS NOT NULL")[0][0])
    while time.time() < until and not stop.is_set():
        for queue in QUEUES:
            figures.queue_lengths[queue].append(int(broker.llen(queue)))
        if rows:
            try:
                due = db_rows(db, "SELECT count(*) FROM games_botturn WHERE due_at <= now() "
                                  "AND (claimed_until IS NULL OR claimed_until < now())")
                figures.due_bot_turns.append(int(due[0][0]))
            except psycopg.Error:
                rows = False  # another shape of the table: not sampled
        time.sleep(1)


# --- reading the logs --------------------------------------------------------------------


def stamp(line: str) -> float | None:
    found = _STAMP.search(line)
    if found is None:
        return None
    return datetime.fromisoformat(found.group(1).replace(",", ".")).timestamp()


@dataclass
class Beat:
    sweeps_sent: int = 0
    sweeps_started: list[float] = field(default_factory=list)  # lateness of each, in order
    sweeps_not_run: int = 0
    discarded: dict[str, int] = field(default_factory=dict)  # periodic task -> discarded as expired
    sent: dict[str, int] = field(default_factory=dict)


def read_beat(beat_log: str, worker_logs: list[str], *, since: float, until: float) -> Beat:
    """Beat's sends and what the workers did with them, between ``since`` and ``until``."""
    out = Beat()
    periodic: set[str] = set()
    sends: list[float] = []
    for line in beat_log.splitlines():
        found = re.search(r"Sending due task \S+ \(([\w.]+)\)", line)
        when = stamp(line)
        if found and when is not None:
            periodic.add(found.group(1))
            if since <= when <= until:
                out.sent[found.group(1)] = out.sent.get(found.group(1), 0) + 1
                if found.group(1) == "games.tasks.sweep_deadlines":
                    sends.append(when)
    out.sweeps_sent = len(sends)
    runs: list[tuple[float, str, float | None]] = []  # (received, id, started)
    received: dict[str, float] = {}
    for text in worker_logs:
        for line in text.splitlines():
            when = stamp(line)
            if when is None:
                continue
            got = re.search(r"Task ([\w.]+)\[([\w-]+)\] received", line)
            if got and got.group(1) == "games.tasks.sweep_deadlines":
                received[got.group(2)] = when
            done = re.search(r"Task ([\w.]+)\[([\w-]+)\] succeeded in ([\d.e-]+)s", line)
            if done and done.group(1) == "games.tasks.sweep_deadlines":
                runs.append((received.get(done.group(2), when), done.group(2), when - float(done.group(3))))
            dropped = re.search(r"Discarding revoked task: ([\w.]+)\[([\w-]+)\]", line)
            if dropped and dropped.group(1) in periodic and since <= when <= until + 120:
                out.discarded[dropped.group(1)] = out.discarded.get(dropped.group(1), 0) + 1
                if dropped.group(1) == "games.tasks.sweep_deadlines":
                    runs.append((received.get(dropped.group(2), when), dropped.group(2), None))
    # A queue hands tasks out in order: the k-th sweep taken is the k-th sent.
    runs = sorted(r for r in runs if r[0] >= (sends[0] if sends else since))
    for sent_at, (_, _, started) in zip(sends, runs):
        if started is not None:
            out.sweeps_started.append(max(0.0, started - sent_at))
    out.sweeps_not_run = max(0, len(sends) - len(runs))
    return out


# --- the run -----------------------------------------------------------------------------------


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def run(options: argparse.Namespace) -> dict[str, Any]:
    code = Path(options.code).resolve()
    server = os.environ.get("DATABASE_URL", "")
    if not server.startswith("postgres"):
        raise SystemExit("Set DATABASE_URL to a PostgreSQL server (postgres://postgres@127.0.0.1:5432/postgres).")
    folder = Path(tempfile.mkdtemp(prefix="bench_isolation_"))
    redis_server = PrivateRedis(folder / "redis.log")
    name = f"splendor_bench_{secrets.token_hex(4)}"
    db = database_url(server, name)
    web_port = free_port()
    period = str(options.sweep_seconds)
    env = {k: v for k, v in os.environ.items() if not k.startswith(_NOT_INHERITED)}
    env.update(
        DJANGO_SETTINGS_MODULE="splendor_site.settings", PYTHONUNBUFFERED="1", DEBUG="false",
        SECRET_KEY=secrets.token_urlsafe(50), DATABASE_URL=db, SITE_URL=f"http://127.0.0.1:{web_port}",
        ALLOWED_HOSTS="127.0.0.1,localhost", CELERY_BROKER_URL=redis_server.url(0), CACHE_URL=redis_server.url(1),
        VAR_DIR=str(folder / "var"), EMAIL_BACKEND="django.core.mail.backends.filebased.EmailBackend",
        EMAIL_FILE_PATH=str(folder / "mail"), LOG_LEVEL="INFO", DEADLINE_SWEEP_SECONDS=period,
        NOTIFICATION_SEND_DUE_SECONDS=period, OUTBOX_REDELIVER_SECONDS=period,
        PRACTICE_GAMES_ACTIVE_PER_ACCOUNT=str(options.practice_games),
    )  # fmt: skip
    (folder / "var").mkdir()
    processes: list[Proc] = []
    figures = Figures()
    stop = threading.Event()
    try:
        redis_server.start()
        db_admin(server, f'CREATE DATABASE "{name}"')
        manage(code, env, "migrate", "--verbosity", "0")
        names = ["abuser"] + [f"player{n}" for n in range(1, 2 * REAL_GAMES + 1)]
        tokens = players(code, env, names)
        units = guide_units(code, web_port=web_port)
        for unit in units:
            processes.append(Proc(unit, code, {**env, **unit.env, "VAR_DIR": env["VAR_DIR"]},
                                  folder / f"{unit.name.rstrip('@')}.log"))  # fmt: skip
        client = Client(f"http://127.0.0.1:{web_port}", tokens)

        def up() -> bool:
            try:
                return requests.get(client.url + "/healthz", timeout=2).status_code in (200, 503)
            except requests.RequestException:
                return False

        wait_until(up, timeout=60, what="gunicorn answering /healthz")
        for proc in processes:
            if proc.unit.kind != "web":
                ready = " ready." if proc.unit.kind != "beat" else "Sending due task"
                wait_until(lambda p=proc, r=ready: r in p.output() or p.popen.poll() is not None,
                           timeout=90, what=f"{proc.unit.name} ready")  # fmt: skip
                if proc.popen.poll() is not None:
                    raise SystemExit(f"{proc.unit.name} exited:\n{proc.output()[-3000:]}")
        pairs = [(f"player{2 * n - 1}", f"player{2 * n}") for n in range(1, REAL_GAMES + 1)]
        games = real_games(client, db, pairs)
        practice: list[str] = []
        for _ in range(options.practice_games):
            created = practice_game(client, "abuser")
            assert created.status_code == 201, created.text
            practice.append(str(created.json()["id"]))
        extra = practice_game(client, "abuser")
        figures.extra_practice = f"{extra.status_code} " + str(
            (extra.json() if extra.content else {}).get("code") or ("created" if extra.status_code == 201 else "")
        )
        broker = redis.Redis.from_url(redis_server.url(0))
        cpu_start = {id(p): p.cpu_seconds() for p in processes}
        since = time.time()
        until = since + options.seconds
        threads = [
            threading.Thread(target=drive_real, args=(Client(client.url, tokens), db, games, figures),
                             kwargs={"until": until, "rate": options.turns_per_second, "stop": stop}),
            threading.Thread(target=drive_abuse, args=(Client(client.url, tokens), db, "abuser", practice, figures),
                             kwargs={"until": until, "stop": stop}),
            threading.Thread(target=sample_queues, args=(broker, db, figures), kwargs={"until": until, "stop": stop}),
        ]  # fmt: skip
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        cpu = {p.unit.kind: 0.0 for p in processes}
        for p in processes:
            cpu[p.unit.kind] += p.cpu_seconds() - cpu_start[id(p)]
        ended = time.time()
        time.sleep(options.grace)  # the last moves' emails, and the last sweeps' lines in the logs
        settle_emails(db, figures)
        beat_log = "".join(p.output() for p in processes if p.unit.kind == "beat")
        worker_logs = [p.output() for p in processes if p.unit.kind not in ("web", "beat")]
        beat = read_beat(beat_log, worker_logs, since=since, until=ended)
        bot_moves = db_rows(db, "SELECT count(*) FROM games_move m JOIN games_game g ON g.id = m.game_id "
                                "WHERE g.kind <> 'real' AND m.created_at >= to_timestamp(%s)", since)[0][0]  # fmt: skip
    finally:
        stop.set()
        for proc in reversed(processes):
            proc.stop()
        redis_server.stop()
        db_admin(server, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    delays = [(m.emailed if m.emailed is not None else ended + options.grace) - m.answered for m in figures.real_moves]
    missing = [m for m in figures.real_moves if m.emailed is None]
    commit = subprocess.run(["git", "-C", str(code), "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                            check=False).stdout.strip()  # fmt: skip
    return {
        "code": str(code),
        "commit": commit,
        "processes": [f"{p.unit.kind}: {shlex.join(p.unit.command)}" for p in processes],
        "seconds": options.seconds,
        "real_moves": len(figures.real_moves),
        "ticks": figures.ticks,
        "idle_ticks": figures.idle_ticks,
        "real_errors": figures.real_errors[:5],
        "email_delay": {
            "p50": statistics.median(delays) if delays else None,
            "p95": percentile(delays, 0.95) if delays else None,
            "max": max(delays) if delays else None,
            "not_sent_by_end": len(missing),
        },
        "sweeps": {
            "sent": beat.sweeps_sent,
            "lateness_p50": statistics.median(beat.sweeps_started) if beat.sweeps_started else None,
            "lateness_max": max(beat.sweeps_started) if beat.sweeps_started else None,
            "not_run": beat.sweeps_not_run,
        },
        "beat_sent": beat.sent,
        "beat_discarded": beat.discarded,
        "queues": {
            q: {"max": max(v), "mean": statistics.mean(v)} for q, v in figures.queue_lengths.items() if v
        },
        "due_bot_turns": {"max": max(figures.due_bot_turns), "mean": statistics.mean(figures.due_bot_turns)}
        if figures.due_bot_turns else None,
        "cpu_seconds": cpu,
        "abuse": {
            "practice_games": options.practice_games,
            "extra_practice_game": figures.extra_practice,
            "moves": figures.abuse_moves,
            "bot_moves": bot_moves,
            "throttled": figures.abuse_throttled,
            "replaced": figures.practice_created,
            "errors": figures.abuse_errors[:5],
        },
        "logs": str(folder),
    }


def report(result: dict[str, Any]) -> None:
    def s(value: float | None) -> str:
        return "-" if value is None else f"{value:.2f} s"

    print(f"code: {result['code']} ({result['commit']}), {result['seconds']} s of load")
    for line in result["processes"]:
        print(f"  {line}")
    delay = result["email_delay"]
    print(f"real moves: {result['real_moves']} in {result['ticks']} ticks ({result['idle_ticks']} idle: "
          f"every game waiting for its email)")  # fmt: skip
    print(f"move -> 'your turn' email: median {s(delay['p50'])}, p95 {s(delay['p95'])}, max {s(delay['max'])}; "
          f"not sent by the end: {delay['not_sent_by_end']}")  # fmt: skip
    sweeps = result["sweeps"]
    print(f"deadline sweeps sent: {sweeps['sent']}; lateness median {s(sweeps['lateness_p50'])}, "
          f"max {s(sweeps['lateness_max'])}; not run: {sweeps['not_run']}")  # fmt: skip
    discarded = sum(result["beat_discarded"].values())
    print(f"beat tasks discarded as expired: {discarded} {result['beat_discarded'] or ''} "
          f"(of {sum(result['beat_sent'].values())} sent)")  # fmt: skip
    for queue, length in result["queues"].items():
        print(f"queue {queue:9} length: max {length['max']}, mean {length['mean']:.1f}")
    if result["due_bot_turns"]:
        due = result["due_bot_turns"]
        print(f"due bot turns not being played (games_botturn rows): max {due['max']}, mean {due['mean']:.1f}")
    print("CPU seconds during the load: " + ", ".join(f"{k} {v:.1f}" for k, v in result["cpu_seconds"].items()))
    abuse = result["abuse"]
    print(f"abusive account: {abuse['practice_games']} practice games of 3 search bots; one more answered "
          f"{abuse['extra_practice_game']}; {abuse['moves']} moves of its own, {abuse['bot_moves']} bot moves, "
          f"{abuse['throttled']} throttled (429), {abuse['replaced']} finished games replaced")  # fmt: skip
    for line in result["real_errors"] + abuse["errors"]:
        print(f"  error: {line}")
    print(f"logs: {result['logs']}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--code", default=str(ROOT), help="the checkout whose service runs (default: this one)")
    parser.add_argument("--seconds", type=float, default=120)
    parser.add_argument("--practice-games", type=int, default=5,
                        help="the abusive account's practice games (PRACTICE_GAMES_ACTIVE_PER_ACCOUNT)")  # fmt: skip
    parser.add_argument("--turns-per-second", type=float, default=2.0, help="the real games' moves, in all")
    parser.add_argument("--sweep-seconds", type=int, default=10,
                        help="DEADLINE_SWEEP_SECONDS, NOTIFICATION_SEND_DUE_SECONDS, OUTBOX_REDELIVER_SECONDS")  # fmt: skip
    parser.add_argument("--grace", type=float, default=15, help="seconds after the load for the last emails")
    parser.add_argument("--json", help="also write the figures to this file")
    options = parser.parse_args()
    result = run(options)
    report(result)
    if options.json:
        Path(options.json).write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
