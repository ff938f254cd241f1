"""What the event stream costs a server, and how soon a move reaches the opponent's stream.

    python scripts/bench_stream.py                      # 1,000 streams, 50 turns/s, 60 s windows
    python scripts/bench_stream.py --streams 50 --rate 5 --seconds 10      # a short run
    python scripts/bench_stream.py --embedded           # also idle streams on SQLite, no Redis

Starts, on 127.0.0.1 only: a private redis-server on a free port (the broker, the
cache, and so STREAM_REDIS_URL), a PostgreSQL database of its own (--database,
created, migrated and dropped at the end), one uvicorn process serving the ASGI
application (``splendor_site.asgi:application``: the stream path is served by
streams.asgi), and later gunicorn with the shipped config (WSGI) for the API. No
Celery worker and no beat: the messages a move queues wait in the private Redis,
which goes away with the run.

1. Idle streams: --streams accounts with one token each, one NDJSON stream per token
   opened from this process (asyncio, raw sockets), each waiting for its snapshot.
   The uvicorn process's RSS (VmRSS) and threads are read from /proc after it
   started, after a warm-up (a few streams opened and closed) and with every stream
   open; its CPU (utime + stime), the CPU of PostgreSQL's backends of the database
   and redis-server's over --seconds of idling (a heartbeat every 15 s a stream).
2. Moves: --games two-player games among those accounts (both players' streams are
   among the open ones). An open-loop generator offers --rate moves a second in all:
   at each tick it sends the move of a game that is ready (its last move answered
   and its player's ``your_turn`` event arrived, whose first ``take`` it plays), or
   counts the tick as missed when none is. For every accepted move: the time from
   the 201's arrival here to the ``move_played`` event's arrival on the opponent's
   stream (both clocks this process's), and the request's own latency. Measured
   for --seconds after --warmup seconds of play.

With --embedded, part 1 runs again with the embedded default: a SQLite file, the
filesystem broker, no Redis, so the hub polls the database every STREAM_POLL_SECONDS.

Not a test and not in CI. docs/benchmarks.md ("The event stream") keeps the figures.
Everything it starts is stopped and its database dropped when it ends, on Ctrl-C too.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import resource
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
PYTHON = sys.executable
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
STREAM_PATH = "/api/v1/stream/"
# Settings of the test process that must not reach the servers: theirs are set here.
NOT_INHERITED = (
    "DJANGO_", "CELERY_", "EMAIL_", "DEBUG", "SECRET_KEY", "SECURE_", "VAR_DIR", "PYTEST_", "PROMETHEUS_",
    "METRICS_", "STREAM_", "DATABASE_", "CACHE_URL", "REDIS_URL",
)  # fmt: skip


# --- processes and /proc ---------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def proc_status(pid: int) -> dict[str, str]:
    fields = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        fields[key] = value.strip()
    return fields


def rss_mib(pid: int) -> float:
    return int(proc_status(pid)["VmRSS"].split()[0]) / 1024


def threads(pid: int) -> int:
    return int(proc_status(pid)["Threads"])


def cpu_seconds(pid: int) -> float:
    """utime + stime of a process (its threads included), 0 once it is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


def group_pids(pgid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if int(Path(f"/proc/{entry.name}/stat").read_text().rpartition(")")[2].split()[2]) == pgid:
                    found.append(int(entry.name))
            except (OSError, IndexError, ValueError):
                continue
    return found


class Process:
    """A command in a process group of its own, its output in a log file."""

    def __init__(self, name: str, command: list[str], env: dict[str, str], log: Path) -> None:
        self.name, self.log = name, log
        with log.open("ab") as out:
            self.popen = subprocess.Popen(
                command, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
            )

    @property
    def pid(self) -> int:
        return self.popen.pid

    def group_cpu(self) -> float:
        return sum(cpu_seconds(pid) for pid in group_pids(self.pid))

    def tail(self, lines: int = 30) -> str:
        text = self.log.read_text(errors="replace") if self.log.exists() else ""
        return f"--- {self.name} ({self.log}) ---\n" + "\n".join(text.splitlines()[-lines:])

    def stop(self) -> None:
        if self.popen.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.pid, signal.SIGTERM)
            try:
                self.popen.wait(timeout=15)
            except subprocess.TimeoutExpired:
                pass
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.pid, signal.SIGKILL)  # whatever is left in its group
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.popen.wait(timeout=10)


def wait_until(check: Any, what: str, process: Process | None = None, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if process is not None and process.popen.poll() is not None:
            raise RuntimeError(f"{what}: {process.name} exited\n{process.tail()}")
        if time.monotonic() > deadline:
            raise RuntimeError(f"{what}: not within {timeout:.0f} s\n{process.tail() if process else ''}")
        time.sleep(0.1)


def answers_http(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=2) as conn:
            conn.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            return conn.recv(32).startswith(b"HTTP/1.1 ")
    except OSError:
        return False


def answers_redis(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5) as conn:
            conn.sendall(b"PING\r\n")
            return conn.recv(16).startswith(b"+PONG")
    except OSError:
        return False


@dataclass
class Postgres:
    server_url: str
    name: str

    def url(self, name: str | None = None) -> str:
        base, _, _ = self.server_url.rpartition("/")
        return f"{base}/{name or self.name}"

    def admin(self, sql: str) -> None:
        import psycopg

        with psycopg.connect(self.url("postgres"), autocommit=True) as conn:
            conn.execute(sql)

    def backends(self) -> list[int]:
        import psycopg

        with psycopg.connect(self.url("postgres"), autocommit=True) as conn:
            rows = conn.execute("SELECT pid FROM pg_stat_activity WHERE datname = %s", [self.name]).fetchall()
        return [int(row[0]) for row in rows]


class BackendClock:
    """CPU of the PostgreSQL backends of one database, sampled every second: a
    backend seen at the start counts from there, one that appears counts whole,
    one that ends counts up to its last sample (a backend that lives less than a
    second between samples is missed)."""

    def __init__(self, db: Postgres) -> None:
        self.db = db
        self.first: dict[int, float] = {}
        self.last: dict[int, float] = {}

    def sample(self, *, start: bool = False) -> None:
        for pid in self.db.backends():
            used = cpu_seconds(pid)
            if pid not in self.first:
                self.first[pid] = used if start else 0.0
            self.last[pid] = max(used, self.last.get(pid, 0.0))

    def used(self) -> float:
        return sum(self.last[pid] - self.first[pid] for pid in self.last)


# --- seeding (run in a child process with the servers' environment) --------------------


def seed(accounts: int, games: int) -> None:
    """--accounts players with one read+play token each; the first 2 x --games of
    them paired in started two-player games. Prints the plan as JSON."""
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "splendor_site.settings")
    import django

    django.setup()
    from accounts.services import player_create, token_create
    from games import services
    from games.models import Seat

    tag = secrets.token_hex(3)
    users, tokens = [], []
    for index in range(accounts):
        name = f"bs{tag}{index}"
        user = player_create(username=name, email=f"{name}@bench.example", display_name=name)
        _, token = token_create(user=user, name="bench stream", scopes=["read", "play"])
        users.append(user)
        tokens.append(token)
    plan: list[dict[str, Any]] = []
    for index in range(games):
        alice, bob = users[2 * index], users[2 * index + 1]
        game = services.game_create(creator=alice, seats=2, invited=[bob])
        services.seat_join(game=game, user=bob)
        game.refresh_from_db()
        by_user = {alice.pk: 2 * index, bob.pk: 2 * index + 1}
        seats = {s.index: by_user[s.user_id] for s in Seat.objects.filter(game=game)}
        plan.append({"id": game.pk, "to_move": game.to_move, "streams": [seats[0], seats[1]]})
    json.dump({"tokens": tokens, "games": plan}, sys.stdout)


# --- the client: streams and moves on raw sockets ----------------------------------------


async def read_head(reader: asyncio.StreamReader) -> tuple[int, dict[str, str]]:
    status = int((await reader.readline()).split()[1])
    headers: dict[str, str] = {}
    while True:
        line = await reader.readline()
        if line in (b"\r\n", b"\n", b""):
            return status, headers
        key, _, value = line.decode("latin-1").partition(":")
        headers[key.strip().lower()] = value.strip()


@dataclass
class Stream:
    index: int
    token: str
    opened: asyncio.Event = field(default_factory=asyncio.Event)
    open_seconds: float = 0.0
    heartbeats: int = 0
    closed: str = ""
    writer: asyncio.StreamWriter | None = None


class Bench:
    """What the streams hear, for the moves part."""

    def __init__(self) -> None:
        self.played: dict[tuple[str, int], float] = {}  # (game, ply) -> move_played on the opponent's stream
        self.turns: dict[str, asyncio.Queue[tuple[int, list[str]]]] = {}  # game -> (version, legal moves)
        self.seat_of_stream: dict[int, tuple[str, int]] = {}  # stream index -> (game, seat)
        self.errors: list[str] = []

    def heard(self, stream: Stream, message: dict[str, Any], at: float) -> None:
        kind, data = message.get("event"), message.get("data") or {}
        if kind == "heartbeat":
            stream.heartbeats += 1
        elif kind == "snapshot":
            stream.opened.set()
        elif kind == "closed":
            stream.closed = str(data.get("reason"))
        elif kind == "move_played":
            mine = self.seat_of_stream.get(stream.index)
            if mine is not None and mine[0] == data["game_id"] and mine[1] != data["seat"]:
                self.played.setdefault((data["game_id"], int(data["ply"])), at)
        elif kind == "your_turn":
            queue = self.turns.get(data["game_id"])
            if queue is not None:
                queue.put_nowait((int(data["version"]), list(data["legal_moves"])))


async def stream_open(port: int, stream: Stream, bench: Bench) -> None:
    started = time.monotonic()
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", port, limit=1 << 20)
    except OSError as exc:
        bench.errors.append(f"stream {stream.index}: {exc}")
        return
    stream.writer = writer
    writer.write(
        f"GET {STREAM_PATH} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: application/x-ndjson\r\n"
        f"Authorization: Bearer {stream.token}\r\n\r\n".encode()
    )
    try:
        status, headers = await read_head(reader)
        if status != 200 or "chunked" not in headers.get("transfer-encoding", ""):
            bench.errors.append(f"stream {stream.index}: HTTP {status} {headers}")
            return
        pending = b""
        while True:
            size = int((await reader.readline()).split(b";")[0], 16)
            if size == 0:
                return
            chunk = await reader.readexactly(size + 2)
            at = time.monotonic()
            pending += chunk[:-2]
            *lines, pending = pending.split(b"\n")
            for line in lines:
                if line:
                    bench.heard(stream, json.loads(line), at)
                    if not stream.open_seconds and stream.opened.is_set():
                        stream.open_seconds = at - started
    except (OSError, asyncio.IncompleteReadError, ValueError) as exc:
        if not stream.closed:
            stream.closed = f"error: {exc!r}"
    finally:
        writer.close()


async def open_streams(port: int, streams: list[Stream], bench: Bench, at_once: int) -> list[asyncio.Task[None]]:
    """Open every stream, --at-once connecting together; return when each has its snapshot."""
    gate = asyncio.Semaphore(at_once)
    tasks: list[asyncio.Task[None]] = []

    async def one(stream: Stream) -> None:
        async with gate:
            tasks.append(asyncio.create_task(stream_open(port, stream, bench)))
            waiter = asyncio.create_task(stream.opened.wait())
            await asyncio.wait([waiter, tasks[-1]], return_when=asyncio.FIRST_COMPLETED)
            waiter.cancel()

    await asyncio.gather(*(one(stream) for stream in streams))
    return tasks


async def close_streams(streams: list[Stream], tasks: list[asyncio.Task[None]]) -> None:
    for stream in streams:
        if stream.writer is not None:
            stream.writer.close()
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


async def http_call(port: int, method: str, path: str, token: str, body: dict[str, Any] | None = None) -> tuple[int, Any]:
    """One request on its own connection (gunicorn's sync workers close it anyway)."""
    payload = json.dumps(body).encode() if body is not None else b""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        writer.write(
            f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {token}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(payload)}\r\nConnection: close\r\n\r\n".encode()
            + payload
        )
        status, headers = await read_head(reader)
        length = int(headers.get("content-length", "0"))
        content = await reader.readexactly(length) if length else await reader.read()
        return status, json.loads(content) if content else None
    finally:
        writer.close()


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    return ordered[min(len(ordered) - 1, max(0, round(share * len(ordered)) - 1))]


# --- part 1: idle streams -----------------------------------------------------------------


async def idle_part(args: argparse.Namespace, server: Process, port: int, tokens: list[str],
                    clocks: dict[str, Any]) -> tuple[dict[str, Any], list[Stream], list[asyncio.Task[None]], Bench]:
    """Opens every stream and idles; returns the figures and the streams, still open."""
    figures: dict[str, Any] = {"rss_start": rss_mib(server.pid), "threads_start": threads(server.pid)}
    bench = Bench()
    warm = [Stream(-1 - n, tokens[n]) for n in range(min(5, len(tokens)))]
    tasks = await open_streams(port, warm, bench, 5)
    await close_streams(warm, tasks)
    await asyncio.sleep(2)
    figures |= {"rss_warm": rss_mib(server.pid), "threads_warm": threads(server.pid)}

    streams = [Stream(n, token) for n, token in enumerate(tokens)]
    started = time.monotonic()
    tasks = await open_streams(port, streams, bench, args.at_once)
    figures["open_all_seconds"] = time.monotonic() - started
    opened = [s for s in streams if s.opened.is_set()]
    figures["opened"] = len(opened)
    figures["open_p50"] = percentile([s.open_seconds for s in opened], 0.5)
    figures["open_p95"] = percentile([s.open_seconds for s in opened], 0.95)
    if bench.errors:
        print(f"  {len(bench.errors)} streams failed to open, e.g. {bench.errors[:3]}", flush=True)
    await asyncio.sleep(3)
    figures |= {"rss_open": rss_mib(server.pid), "threads_open": threads(server.pid)}

    beats_before = sum(s.heartbeats for s in streams)
    cpu_before = {name: clock() for name, clock in clocks.items() if callable(clock)}
    db_clock: BackendClock | None = clocks.get("db")
    if db_clock is not None:
        db_clock.sample(start=True)
    client_before = time.process_time()
    window_start = time.monotonic()
    while time.monotonic() - window_start < args.seconds:
        await asyncio.sleep(1)
        if db_clock is not None:
            await asyncio.to_thread(db_clock.sample)
    window = time.monotonic() - window_start
    figures["idle_window"] = window
    for name, clock in clocks.items():
        if callable(clock):
            figures[f"cpu_{name}"] = (clock() - cpu_before[name]) / window
    if db_clock is not None:
        figures["cpu_db"] = db_clock.used() / window
    figures["cpu_client"] = (time.process_time() - client_before) / window
    figures["heartbeats"] = sum(s.heartbeats for s in streams) - beats_before
    figures["rss_idle_end"] = rss_mib(server.pid)
    figures["threads_idle_end"] = threads(server.pid)
    figures["still_open"] = sum(1 for s in streams if s.opened.is_set() and not s.closed)
    figures["load"] = os.getloadavg()[0]
    return figures, streams, tasks, bench


def print_idle(label: str, f: dict[str, Any], count: int) -> None:
    per_stream_kib = (f["rss_open"] - f["rss_warm"]) * 1024 / max(1, f["opened"])
    print(f"\n== {label}: {count} idle streams on one uvicorn process ==")
    print(f"  opened {f['opened']} of {count} in {f['open_all_seconds']:.1f} s "
          f"(request to snapshot p50 {f['open_p50'] * 1000:.0f} ms, p95 {f['open_p95'] * 1000:.0f} ms)")
    print(f"  RSS: started {f['rss_start']:.1f} MiB, after warm-up {f['rss_warm']:.1f} MiB, "
          f"{f['opened']} open {f['rss_open']:.1f} MiB, after the idle window {f['rss_idle_end']:.1f} MiB "
          f"-> {per_stream_kib:.1f} KiB per stream")
    print(f"  threads: started {f['threads_start']}, after warm-up {f['threads_warm']}, "
          f"{f['opened']} open {f['threads_open']}, after the idle window {f['threads_idle_end']}")
    shares = ", ".join(f"{name[4:]} {f[name] * 100:.2f}%" for name in f if name.startswith("cpu_"))
    print(f"  CPU over {f['idle_window']:.0f} s idle (share of one core): {shares}")
    print(f"  heartbeats heard in the window: {f['heartbeats']} "
          f"({f['heartbeats'] / max(1, f['opened']) / f['idle_window'] * 15:.2f} per stream per 15 s); "
          f"still open at the end: {f['still_open']}; load average (1 min) {f['load']:.2f}")


# --- part 2: moves -------------------------------------------------------------------------


@dataclass
class Game:
    id: str
    streams: list[int]  # by seat
    to_move: int
    version: int = 0
    moves: list[str] = field(default_factory=list)


async def moves_part(args: argparse.Namespace, api_port: int, plan: dict[str, Any], tokens: list[str],
                     bench: Bench, clocks: dict[str, Any]) -> dict[str, Any]:
    games = [Game(g["id"], g["streams"], g["to_move"]) for g in plan["games"]]
    for game in games:
        bench.turns[game.id] = asyncio.Queue()
        for seat, index in enumerate(game.streams):
            bench.seat_of_stream[index] = (game.id, seat)
    ready: asyncio.Queue[Game] = asyncio.Queue()

    async def first_turn(game: Game) -> None:
        status, body = await http_call(api_port, "GET", f"/api/v1/games/{game.id}/legal-moves/",
                                       tokens[game.streams[game.to_move]])
        assert status == 200, body
        game.version, game.moves = int(body["version"]), list(body["moves"])
        ready.put_nowait(game)

    await asyncio.gather(*(first_turn(game) for game in games))

    replies: dict[tuple[str, int], float] = {}  # (game, ply) -> 201 arrived
    sends: dict[tuple[str, int], float] = {}  # (game, ply) -> POST sent
    latencies: list[tuple[float, float]] = []  # (arrived, seconds)
    failures: list[str] = []
    in_flight: set[asyncio.Task[None]] = set()

    async def play(game: Game) -> None:
        moves = game.moves
        move = next((m for m in moves if m.startswith("take ") and " return " not in m), None) or moves[0]
        token = tokens[game.streams[game.to_move]]
        sent = time.monotonic()
        try:
            status, body = await http_call(api_port, "POST", f"/api/v1/games/{game.id}/moves/", token,
                                           {"move": move, "expected_version": game.version})
        except OSError as exc:
            failures.append(repr(exc))
            status, body = 0, None
        arrived = time.monotonic()
        if status != 201:
            failures.append(f"{status} {str(body)[:120]}")
            await first_turn(game)  # read again and go on
            return
        latencies.append((arrived, arrived - sent))
        replies[(game.id, int(body["ply"]))] = arrived
        sends[(game.id, int(body["ply"]))] = sent
        game.to_move = int(body["game"]["to_move"]) if body["game"].get("to_move") is not None else -1
        if game.to_move < 0 or body["game"].get("status") != "active":
            return  # over
        # The next move once the player to move has heard it is their turn.
        version = int(body["game"]["version"])
        queue = bench.turns[game.id]
        while True:
            heard_version, moves = await queue.get()
            if heard_version >= version:
                break
        game.version, game.moves = heard_version, moves
        ready.put_nowait(game)

    interval = 1 / args.rate
    start = time.monotonic()
    measure_from, measure_to = start + args.warmup, start + args.warmup + args.seconds
    ticks = missed = 0
    cpu_before: dict[str, float] = {}
    client_before = 0.0
    db_clock: BackendClock | None = clocks.get("db")
    next_sample = 0.0
    while True:
        due = start + ticks * interval
        if due >= measure_to:
            break
        now = time.monotonic()
        if due > now:
            await asyncio.sleep(due - now)
        if not cpu_before and time.monotonic() >= measure_from:
            cpu_before = {name: clock() for name, clock in clocks.items() if callable(clock)}
            client_before = time.process_time()
            if db_clock is not None:
                db_clock.first, db_clock.last = {}, {}
                db_clock.sample(start=True)
            next_sample = time.monotonic() + 1
        if db_clock is not None and cpu_before and time.monotonic() >= next_sample:
            task = asyncio.create_task(asyncio.to_thread(db_clock.sample))
            in_flight.add(task)
            task.add_done_callback(in_flight.discard)
            next_sample += 1
        ticks += 1
        try:
            game = ready.get_nowait()
        except asyncio.QueueEmpty:
            if due >= measure_from:
                missed += 1
            continue
        task = asyncio.create_task(play(game))
        in_flight.add(task)
        task.add_done_callback(in_flight.discard)
    window = time.monotonic() - measure_from
    cpu = {name: (clock() - cpu_before[name]) / window for name, clock in clocks.items() if callable(clock)}
    cpu["client"] = (time.process_time() - client_before) / window
    load = os.getloadavg()[0]
    if db_clock is not None:
        db_clock.sample()
        cpu["db"] = db_clock.used() / window
    offered = sum(1 for n in range(ticks) if measure_from <= start + n * interval < measure_to)
    # What was sent and is still out gets a few seconds to arrive.
    await asyncio.sleep(3)
    for task in list(in_flight):
        task.cancel()
    await asyncio.gather(*in_flight, return_exceptions=True)

    measured = {key: at for key, at in replies.items() if measure_from <= at < measure_to}
    delays = [bench.played[key] - at for key, at in measured.items() if key in bench.played]
    from_sent = [bench.played[key] - sends[key] for key in measured if key in bench.played]
    own = [seconds for at, seconds in latencies if measure_from <= at < measure_to]
    # Every 10 s of the window: accepted moves, the POST's p95, the delay's p95.
    timeline = []
    for start_at in range(0, int(args.seconds), 10):
        low, high = measure_from + start_at, measure_from + start_at + 10
        posts = [seconds for at, seconds in latencies if low <= at < high]
        heard = [bench.played[key] - at for key, at in measured.items() if low <= at < high and key in bench.played]
        timeline.append((start_at, len(posts), percentile(posts, 0.95), percentile(heard, 0.95)))
    return {
        "window": window, "offered": offered, "missed": missed, "accepted": len(measured),
        "delays": delays, "from_sent": from_sent, "lost": len(measured) - len(delays), "latencies": own,
        "failures": failures, "cpu": cpu, "timeline": timeline, "load": load,
    }


def print_moves(f: dict[str, Any], args: argparse.Namespace, games: int) -> None:
    delays, own = f["delays"], f["latencies"]
    workers = args.web_workers or "the shipped config's"
    print(f"\n== moves: {args.rate:g} turns/s offered over {games} games, {f['window']:.0f} s measured, "
          f"gunicorn with {workers} sync workers ==")
    print(f"  offered {f['offered']} moves, {f['missed']} ticks found no game ready; "
          f"accepted {f['accepted']} ({f['accepted'] / f['window']:.1f} turns/s); "
          f"{len(f['failures'])} refused or failed {f['failures'][:3]}")
    if delays:
        negative = sum(1 for d in delays if d < 0)
        print(f"  201 arrived -> move_played on the opponent's stream: p50 {percentile(delays, .5) * 1000:.1f} ms, "
              f"p95 {percentile(delays, .95) * 1000:.1f} ms, p99 {percentile(delays, .99) * 1000:.1f} ms, "
              f"max {max(delays) * 1000:.1f} ms (n={len(delays)}; {negative} arrived before the 201; "
              f"{f['lost']} never arrived)")
    if f["from_sent"]:
        sent = f["from_sent"]
        print(f"  POST sent -> move_played on the opponent's stream: p50 {percentile(sent, .5) * 1000:.1f} ms, "
              f"p95 {percentile(sent, .95) * 1000:.1f} ms, p99 {percentile(sent, .99) * 1000:.1f} ms")
    if own:
        print(f"  POST /moves/ latency: p50 {percentile(own, .5) * 1000:.1f} ms, p95 {percentile(own, .95) * 1000:.1f} ms, "
              f"p99 {percentile(own, .99) * 1000:.1f} ms")
    print("  every 10 s: " + "; ".join(
        f"{at}-{at + 10} s: {count} moves, POST p95 {post * 1000:.0f} ms, delay p95 {heard * 1000:.0f} ms"
        for at, count, post, heard in f["timeline"]))
    shares = ", ".join(f"{name} {share * 100:.0f}%" for name, share in f["cpu"].items())
    print(f"  CPU while playing (share of one core): {shares}; load average (1 min) {f['load']:.2f}")


# --- the runs -----------------------------------------------------------------------------


def site_env(var: Path, **settings: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(NOT_INHERITED)}
    env.update(
        DJANGO_SETTINGS_MODULE="splendor_site.settings",
        PYTHONUNBUFFERED="1",
        DEBUG="false",
        SECRET_KEY="bench-stream-" + secrets.token_hex(24),
        ALLOWED_HOSTS="127.0.0.1",
        SITE_URL="http://127.0.0.1",
        VAR_DIR=str(var),
        API_THROTTLE_USER_RATE="1000000/minute",
        API_THROTTLE_ANON_RATE="1000000/minute",
        LOG_LEVEL="WARNING",
        **settings,
    )
    var.mkdir(parents=True, exist_ok=True)
    return env


def run_seed(env: dict[str, str], accounts: int, games: int) -> dict[str, Any]:
    started = time.monotonic()
    done = subprocess.run(
        [PYTHON, __file__, "--seed-accounts", str(accounts), "--seed-games", str(games)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=1800, check=False,
    )  # fmt: skip
    if done.returncode != 0:
        raise RuntimeError(f"seeding failed:\n{done.stderr[-3000:]}")
    print(f"  seeded {accounts} accounts and {games} games in {time.monotonic() - started:.0f} s", flush=True)
    return dict(json.loads(done.stdout))


def migrate(env: dict[str, str]) -> None:
    subprocess.run([PYTHON, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=ROOT, env=env, check=True, timeout=600)


def uvicorn(env: dict[str, str], work: Path, label: str) -> tuple[Process, int]:
    port = free_port()
    server = Process(
        "uvicorn",
        [PYTHON, "-m", "uvicorn", "splendor_site.asgi:application", "--host", "127.0.0.1", "--port", str(port),
         "--workers", "1", "--no-access-log", "--log-level", "warning"],
        env, work / f"uvicorn-{label}.log",
    )  # fmt: skip
    wait_until(lambda: answers_http(port), "uvicorn answering", server)
    return server, port


def production(args: argparse.Namespace, work: Path, started: list[Process], dbs: list[Postgres]) -> None:
    redis_port = free_port()
    redis = Process(
        "redis-server",
        [shutil.which("redis-server") or "redis-server", "--port", str(redis_port), "--bind", "127.0.0.1",
         "--save", "", "--appendonly", "no"],
        dict(os.environ), work / "redis.log",
    )  # fmt: skip
    started.append(redis)
    wait_until(lambda: answers_redis(redis_port), "redis-server answering", redis, timeout=10)
    db = Postgres(args.postgres, args.database)
    db.admin(f'DROP DATABASE IF EXISTS "{db.name}" WITH (FORCE)')
    db.admin(f'CREATE DATABASE "{db.name}"')
    dbs.append(db)
    env = site_env(
        work / "var",
        DATABASE_URL=db.url(),
        CELERY_BROKER_URL=f"redis://127.0.0.1:{redis_port}/0",
        CELERY_TASK_ALWAYS_EAGER="false",
        STREAM_REDIS_URL=f"redis://127.0.0.1:{redis_port}/0",
        CACHE_URL=f"redis://127.0.0.1:{redis_port}/1",
    )
    migrate(env)
    games = min(args.games, args.streams // 2)
    plan = run_seed(env, args.streams, games)
    server, port = uvicorn(env, work, "postgres")
    started.append(server)
    db_clock = BackendClock(db)
    clocks: dict[str, Any] = {
        "uvicorn": lambda: cpu_seconds(server.pid),
        "redis": lambda: cpu_seconds(redis.pid),
        "db": db_clock,
    }

    async def both() -> None:
        idle, streams, tasks, bench = await idle_part(args, server, port, plan["tokens"], clocks)
        print_idle("PostgreSQL + Redis pub/sub", idle, args.streams)
        if args.rate <= 0 or not games:
            await close_streams(streams, tasks)
            return
        web_port = free_port()
        web = Process(
            "gunicorn",
            [PYTHON, "-m", "gunicorn", "-c", "splendor_site/gunicorn_conf.py", "--bind", f"127.0.0.1:{web_port}",
             *(["--workers", str(args.web_workers)] if args.web_workers else []),
             "--no-control-socket", "--log-level", "warning"],
            env, work / "gunicorn.log",
        )  # fmt: skip
        started.append(web)
        await asyncio.to_thread(wait_until, lambda: answers_http(web_port), "gunicorn answering", web)
        clocks["gunicorn"] = web.group_cpu
        try:
            figures = await moves_part(args, web_port, plan, plan["tokens"], bench, clocks)
        finally:
            await close_streams(streams, tasks)
        print_moves(figures, args, games)
        print(f"  streams still open when play ended: {sum(1 for s in streams if not s.closed)} of {len(streams)} "
              f"before closing; uvicorn RSS {rss_mib(server.pid):.1f} MiB, threads {threads(server.pid)}")

    asyncio.run(both())


def embedded(args: argparse.Namespace, work: Path, started: list[Process]) -> None:
    var = work / "var-embedded"
    env = site_env(var, DATABASE_URL=f"sqlite:///{work / 'embedded.sqlite3'}")
    migrate(env)
    plan = run_seed(env, args.streams, 0)
    server, port = uvicorn(env, work, "sqlite")
    started.append(server)
    clocks: dict[str, Any] = {"uvicorn": lambda: cpu_seconds(server.pid)}

    async def idle_only() -> None:
        idle, streams, tasks, _ = await idle_part(args, server, port, plan["tokens"], clocks)
        await close_streams(streams, tasks)
        print_idle("SQLite, no Redis (the hub polls the database)", idle, args.streams)

    asyncio.run(idle_only())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--streams", type=int, default=1000, help="idle streams, one account and token each (1000)")
    parser.add_argument("--rate", type=float, default=50.0, help="moves offered per second in all; 0: no moves (50)")
    parser.add_argument("--seconds", type=float, default=60.0, help="the idle window and the measured play (60)")
    parser.add_argument("--games", type=int, default=100, help="two-player games played, at most streams/2 (100)")
    parser.add_argument("--warmup", type=float, default=5.0, help="seconds of play before measuring (5)")
    parser.add_argument("--web-workers", type=int, help="gunicorn sync workers (default: the shipped config's)")
    parser.add_argument("--at-once", type=int, default=50, help="streams being opened at the same time (50)")
    parser.add_argument("--embedded", action="store_true", help="also idle streams on SQLite with no Redis")
    parser.add_argument("--postgres", default="postgres://postgres@127.0.0.1:5432/postgres")
    parser.add_argument("--database", default="bench_stream", help="the PostgreSQL database made and dropped")
    parser.add_argument("--seed-accounts", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--seed-games", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.seed_accounts is not None:
        seed(args.seed_accounts, args.seed_games or 0)
        return

    # Every stream is a socket here and one in the server (which inherits the limit).
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = args.streams + 1024
    if soft < wanted:
        if hard != resource.RLIM_INFINITY and hard < wanted:
            raise SystemExit(f"{args.streams} streams need {wanted} open files; the hard limit is {hard}")
        resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))

    def interrupted(signum: int, _frame: object) -> None:
        raise KeyboardInterrupt(f"signal {signum}")

    signal.signal(signal.SIGTERM, interrupted)
    started: list[Process] = []
    dbs: list[Postgres] = []
    print(f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f} at the start", flush=True)
    with tempfile.TemporaryDirectory(prefix="bench-stream-") as scratch:
        work = Path(scratch)
        try:
            production(args, work, started, dbs)
            for process in reversed(started):
                process.stop()
            started.clear()
            if args.embedded:
                embedded(args, work, started)
        except BaseException:
            for process in started:
                print(process.tail(15), file=sys.stderr)
            raise
        finally:
            for process in reversed(started):
                with contextlib.suppress(Exception):
                    process.stop()
            for db in dbs:
                with contextlib.suppress(Exception):
                    db.admin(f'DROP DATABASE IF EXISTS "{db.name}" WITH (FORCE)')
    print(f"\nload average {os.getloadavg()[0]:.2f} at the end", flush=True)


if __name__ == "__main__":
    main()
