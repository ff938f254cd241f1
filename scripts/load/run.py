"""Load benchmark of the REST API: gunicorn on PostgreSQL, driven by locust.

    python scripts/load/run.py
    python scripts/load/run.py --server sync:3 --server gthread:3x4 --rounds 3 --seconds 30

Creates (and at the end drops) a database of its own on the PostgreSQL server,
migrates it, and then, for each round and each --server configuration in turn
(interleaved, so that compared figures are measured side by side):

1. seeds fresh players and started two-player games (seed.py, through the services);
2. starts gunicorn on 127.0.0.1 with DEBUG off and the rate limits raised;
3. runs locust headless (locustfile.py): players play their games turn after turn
   while watchers do a trivial authenticated GET at a steady rate;
4. stops gunicorn and reads locust's statistics.

It prints every run and then, per configuration, the medians: turns per second
(accepted moves), p50/p95 of move submission, of legal-moves and of the trivial
GETs, and the ratio of move to GET latency. Only 127.0.0.1 is contacted; every
run is bounded by --seconds and by time-outs, and the processes it starts are
stopped by their ids when it ends, also on Ctrl-C.

--profile FILE samples the gunicorn workers with py-spy during the first run and
writes collapsed stacks to FILE, then prints where the workers spent their time.
"""

from __future__ import annotations

import argparse
import csv
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
PYTHON = sys.executable

# Locust request names (locustfile.py) of the rows reported.
MOVE, LEGAL_MOVES, ME, GAME = "POST /games/{id}/moves/", "GET /games/{id}/legal-moves/", "GET /me/", "GET /games/{id}/"


@dataclass(frozen=True)
class Server:
    """A gunicorn configuration: "sync:3" (3 sync workers) or "gthread:3x4" (3 workers of 4 threads)."""

    worker_class: str
    workers: int
    threads: int

    @classmethod
    def parse(cls, text: str) -> Server:
        try:
            kind, _, size = text.partition(":")
            if kind == "sync":
                return cls("sync", int(size), 1)
            if kind == "gthread":
                workers, _, threads = size.partition("x")
                return cls("gthread", int(workers), int(threads))
        except ValueError:
            pass
        raise argparse.ArgumentTypeError(f"{text!r}: write sync:WORKERS or gthread:WORKERSxTHREADS")

    def __str__(self) -> str:
        return f"sync:{self.workers}" if self.worker_class == "sync" else f"gthread:{self.workers}x{self.threads}"

    def args(self) -> list[str]:
        return ["--workers", str(self.workers), "--worker-class", self.worker_class, "--threads", str(self.threads)]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def reachable(host: str, port: int) -> bool:
    try:
        with socket.create_connection((host, port), timeout=1):
            return True
    except OSError:
        return False


def database_url(server_url: str, name: str) -> str:
    parts = urlsplit(server_url)
    return urlunsplit(parts._replace(path=f"/{name}"))


def recreate_database(server_url: str, name: str, *, drop_only: bool = False) -> None:
    import psycopg

    if not name.replace("_", "").isalnum():
        raise SystemExit(f"--db-name {name!r}: letters, digits and _ only")
    with psycopg.connect(database_url(server_url, "postgres"), autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        if not drop_only:
            conn.execute(f'CREATE DATABASE "{name}"')


class Gunicorn:
    def __init__(self, server: Server, env: dict[str, str]) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        command = [
            PYTHON,
            "-m",
            "gunicorn",
            "splendor_site.wsgi",
            "--bind",
            f"127.0.0.1:{self.port}",
            *server.args(),
            "--log-level",
            "warning",
            "--timeout",
            "60",
        ]
        # A session of its own: stopping it reaches the master and its workers, nothing else.
        self.process = subprocess.Popen(command, cwd=ROOT, env=env, start_new_session=True)

    def wait_ready(self, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise SystemExit(f"gunicorn exited with {self.process.returncode} before it answered")
            try:
                with urllib.request.urlopen(self.url + "/healthz", timeout=2) as answer:
                    if answer.status == 200:
                        return
            except (urllib.error.URLError, OSError):
                pass
            time.sleep(0.2)
        raise SystemExit(f"gunicorn did not answer /healthz within {timeout:.0f} s")

    def stop(self) -> None:
        if self.process.poll() is not None:
            return
        os.killpg(self.process.pid, signal.SIGTERM)
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=10)


CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pids: list[int]) -> float:
    """User + system CPU time of these processes so far (Linux /proc); gone processes count 0."""
    total = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / CLOCK_TICKS


def group_pids(pgid: int) -> list[int]:
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if int((entry / "stat").read_text().rpartition(")")[2].split()[2]) == pgid:
                    pids.append(int(entry.name))
            except (OSError, IndexError, ValueError):
                continue
    return pids


def backend_pids(server_url: str, name: str) -> list[int]:
    """PostgreSQL server processes serving the benchmark database."""
    import psycopg

    with psycopg.connect(database_url(server_url, "postgres"), autocommit=True) as conn:
        rows = conn.execute("SELECT pid FROM pg_stat_activity WHERE datname = %s", [name]).fetchall()
    return [int(row[0]) for row in rows]


def seed(env: dict[str, str], *, pairs: int, games_per_pair: int, tag: str, out: Path) -> float:
    started = time.monotonic()
    command = [
        PYTHON,
        str(HERE / "seed.py"),
        "--pairs",
        str(pairs),
        "--games-per-pair",
        str(games_per_pair),
        "--tag",
        tag,
    ]
    with out.open("w") as plan:
        subprocess.run(command, cwd=ROOT, env=env, stdout=plan, check=True, timeout=600)
    return time.monotonic() - started


@dataclass
class CpuUse:
    """CPU seconds used in the measured window of ``seconds``."""

    app: float  # gunicorn, master and workers
    database: float  # the PostgreSQL processes serving the benchmark database
    client: float  # locust
    seconds: float


def run_locust(url: str, plan: Path, csv_prefix: Path, args: argparse.Namespace, *, gunicorn: Gunicorn) -> CpuUse:
    """Run locust to the end; measure the CPU that the server and the client use after the warm-up."""
    users = args.players + args.watchers
    # Users start over --warmup seconds; statistics are reset once all have started.
    spawn_rate = max(1.0, users / max(args.warmup, 0.1))
    env = {
        **os.environ,
        "LOAD_PLAN": str(plan),
        "LOAD_PLAYERS": str(args.players),
        "LOAD_TURN_RATE": str(args.turn_rate / args.players if args.turn_rate else 0),
        "LOAD_WATCHERS": str(args.watchers),
        "LOAD_WATCH_RATE": str(args.watch_rate),
    }
    command = [
        PYTHON,
        "-m",
        "locust",
        "-f",
        str(HERE / "locustfile.py"),
        "--headless",
        "--host",
        url,
        "--users",
        str(users),
        "--spawn-rate",
        f"{spawn_rate:.2f}",
        "--run-time",
        f"{args.warmup + args.seconds}s",
        "--reset-stats",
        "--stop-timeout",
        "5",
        "--csv",
        str(csv_prefix),
        "--only-summary",
        "--loglevel",
        "WARNING",
        "--exit-code-on-error",
        "0",
    ]
    log = csv_prefix.with_suffix(".log")
    with log.open("w") as output:
        locust = subprocess.Popen(command, cwd=HERE, env=env, stdout=output, stderr=subprocess.STDOUT)
        try:
            time.sleep(args.warmup + 0.5)
            app, database = group_pids(gunicorn.process.pid), backend_pids(args.postgres, args.db_name)
            start = {pid: cpu_seconds([pid]) for pid in app + database + [locust.pid]}
            started = time.monotonic()
            time.sleep(max(0.0, args.seconds - 0.5))
            app, database = group_pids(gunicorn.process.pid), backend_pids(args.postgres, args.db_name)

            def used(pids: list[int]) -> float:
                return sum(cpu_seconds([pid]) - start.get(pid, 0.0) for pid in pids)

            app_cpu, database_cpu, client_cpu = used(app), used(database), used([locust.pid])
            window = time.monotonic() - started
            locust.wait(timeout=120)
        finally:
            if locust.poll() is None:
                locust.kill()
                locust.wait()
    if locust.returncode:
        raise SystemExit(f"locust exited with {locust.returncode}:\n{log.read_text()[-3000:]}")
    return CpuUse(app=app_cpu, database=database_cpu, client=client_cpu, seconds=window)


@dataclass
class Row:
    requests: int
    failures: int
    per_second: float
    p50: float
    p95: float


def read_stats(csv_prefix: Path) -> dict[str, Row]:
    rows: dict[str, Row] = {}
    with open(f"{csv_prefix}_stats.csv", newline="") as stats:
        for line in csv.DictReader(stats):
            rows[line["Name"]] = Row(
                requests=int(line["Request Count"]),
                failures=int(line["Failure Count"]),
                per_second=float(line["Requests/s"]),
                p50=float(line["50%"]),
                p95=float(line["95%"]),
            )
    return rows


def failures(csv_prefix: Path) -> list[str]:
    path = Path(f"{csv_prefix}_failures.csv")
    if not path.exists():
        return []
    with path.open(newline="") as lines:
        return [
            f"{line['Occurrences']} x {line['Method']} {line['Name']}: {line['Error']}"
            for line in csv.DictReader(lines)
        ]


@dataclass
class Figures:
    turns_per_second: float
    move_p50: float
    move_p95: float
    legal_p50: float
    legal_p95: float
    me_p50: float
    me_p95: float
    game_p50: float
    game_p95: float
    requests_per_second: float
    failed: int
    server_cores: float
    client_cores: float
    app_ms_per_turn: float
    database_ms_per_turn: float
    load: float  # the machine's 1-minute load average at the end of the run

    @property
    def ratio_p50(self) -> float:
        return self.move_p50 / self.me_p50 if self.me_p50 else float("nan")

    @property
    def ratio_p95(self) -> float:
        return self.move_p95 / self.me_p95 if self.me_p95 else float("nan")


def figures(rows: dict[str, Row], cpu: CpuUse) -> Figures:
    empty = Row(0, 0, 0.0, 0.0, 0.0)
    move, legal, me, game = (rows.get(name, empty) for name in (MOVE, LEGAL_MOVES, ME, GAME))
    total = rows.get("Aggregated", empty)
    accepted_share = (move.requests - move.failures) / move.requests if move.requests else 0.0
    turns_per_second = move.per_second * accepted_share

    def per_turn(cpu_seconds: float) -> float:
        return 1000 * cpu_seconds / (turns_per_second * cpu.seconds) if turns_per_second else float("nan")

    return Figures(
        turns_per_second=turns_per_second,
        move_p50=move.p50,
        move_p95=move.p95,
        legal_p50=legal.p50,
        legal_p95=legal.p95,
        me_p50=me.p50,
        me_p95=me.p95,
        game_p50=game.p50,
        game_p95=game.p95,
        requests_per_second=total.per_second,
        failed=total.failures,
        server_cores=(cpu.app + cpu.database) / cpu.seconds,
        client_cores=cpu.client / cpu.seconds,
        # Everything the server did (watchers' reads included) per accepted move.
        app_ms_per_turn=per_turn(cpu.app),
        database_ms_per_turn=per_turn(cpu.database),
        load=os.getloadavg()[0],
    )


HEADER = (
    f"{'server':<14} {'turns/s':>8} {'move p50':>9} {'p95':>6} {'legal p50':>10} {'p95':>6} "
    f"{'me p50':>7} {'p95':>6} {'game p50':>9} {'p95':>6} {'move/me p50':>12} {'p95':>6} {'req/s':>7} {'failed':>7} "
    f"{'srv cores':>10} {'cli cores':>10} {'app ms/turn':>12} {'db ms/turn':>11} {'load':>5}"
)


def line(label: str, f: Figures) -> str:
    return (
        f"{label:<14} {f.turns_per_second:>8.1f} {f.move_p50:>9.0f} {f.move_p95:>6.0f} {f.legal_p50:>10.0f} "
        f"{f.legal_p95:>6.0f} {f.me_p50:>7.0f} {f.me_p95:>6.0f} {f.game_p50:>9.0f} {f.game_p95:>6.0f} "
        f"{f.ratio_p50:>12.2f} {f.ratio_p95:>6.2f} {f.requests_per_second:>7.1f} {f.failed:>7.0f} "
        f"{f.server_cores:>10.2f} {f.client_cores:>10.2f} {f.app_ms_per_turn:>12.1f} {f.database_ms_per_turn:>11.1f} {f.load:>5.1f}"
    )


def median_figures(runs: list[Figures]) -> Figures:
    fields = Figures.__dataclass_fields__
    return Figures(**{name: statistics.median(getattr(run, name) for run in runs) for name in fields})  # type: ignore[arg-type]


def py_spy(pid: int, seconds: int, out: Path, *, gil: bool = False) -> subprocess.Popen[bytes]:
    """Sample ``pid`` and its children; ``gil``: only samples holding the GIL, which
    leaves out waiting on the database or the network (closer to CPU time)."""
    command = [
        "py-spy",
        "record",
        "--pid",
        str(pid),
        "--subprocesses",
        "--duration",
        str(seconds),
        "--rate",
        "200",
        "--format",
        "raw",
        "--output",
        str(out),
        "--nonblocking",
        *(["--gil"] if gil else []),
    ]
    return subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def summarise_profile(path: Path, top: int = 25) -> None:
    """Inclusive share of samples per function, and self share, from py-spy's collapsed stacks."""
    inclusive: Counter[str] = Counter()
    own: Counter[str] = Counter()
    total = 0
    for raw in path.read_text().splitlines():
        stack, _, count = raw.rpartition(" ")
        if not stack or not count.isdigit():
            continue
        samples = int(count)
        frames = [
            frame.split(" (")[0] + " (" + frame.split(" (")[-1] if " (" in frame else frame
            for frame in stack.split(";")
        ]
        total += samples
        for frame in set(frames):
            inclusive[frame] += samples
        own[frames[-1]] += samples
    if not total:
        print("profile: no samples")
        return
    print(f"\nprofile: {total} samples; inclusive share (time in a function and below):")
    for frame, samples in inclusive.most_common(top):
        print(f"  {100 * samples / total:5.1f}%  {frame}")
    print("self share (time in the function itself):")
    for frame, samples in own.most_common(top):
        print(f"  {100 * samples / total:5.1f}%  {frame}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--server", type=Server.parse, action="append", help="gunicorn configuration, repeatable (default gthread:3x4)"
    )
    parser.add_argument("--players", type=int, default=100, help="games played at once (default 100)")
    parser.add_argument(
        "--turn-rate",
        type=float,
        default=100,
        help="turns per second offered, spread over the games (default 100; 0: as fast as answered)",
    )
    parser.add_argument("--games-per-pair", type=int, default=2, help="started games seeded per player pair")
    parser.add_argument("--watchers", type=int, default=4, help="clients doing the trivial GET (default 4)")
    parser.add_argument("--watch-rate", type=float, default=10, help="GETs per second per watcher (default 10)")
    parser.add_argument("--seconds", type=int, default=30, help="measured seconds per run (default 30)")
    parser.add_argument("--warmup", type=int, default=5, help="seconds of start-up not measured (default 5)")
    parser.add_argument("--rounds", type=int, default=3, help="runs per configuration (default 3)")
    parser.add_argument(
        "--postgres",
        default="postgres://postgres@127.0.0.1:5432/postgres",
        help="a PostgreSQL server to create the benchmark database on",
    )
    parser.add_argument("--db-name", default="splendor_load_bench")
    parser.add_argument(
        "--cache-url",
        default="redis://127.0.0.1:6379/14",
        help="the rate-limit counters' cache (default Redis db 14; locmem:// without Redis)",
    )
    parser.add_argument("--keep-db", action="store_true", help="do not drop the benchmark database at the end")
    parser.add_argument("--profile", type=Path, help="py-spy collapsed stacks of the first run go here")
    args = parser.parse_args()
    servers: list[Server] = args.server or [Server.parse("gthread:3x4")]

    pg = urlsplit(args.postgres)
    if pg.hostname not in ("127.0.0.1", "localhost", "::1"):
        raise SystemExit("--postgres: only a server on this machine (127.0.0.1)")
    if not reachable(pg.hostname or "127.0.0.1", pg.port or 5432):
        raise SystemExit(f"no PostgreSQL answers at {args.postgres}")
    cache_url = args.cache_url
    if cache_url.startswith("redis://"):
        redis = urlsplit(cache_url)
        if redis.hostname not in ("127.0.0.1", "localhost") or not reachable(redis.hostname, redis.port or 6379):
            print(f"no Redis at {cache_url}; counting rate limits per process (locmem://)")
            cache_url = "locmem://"

    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "DJANGO_SETTINGS_MODULE": "splendor_site.settings",
        "DATABASE_URL": database_url(args.postgres, args.db_name),
        "DEBUG": "false",
        "SECRET_KEY": "load-benchmark-only-" + os.urandom(24).hex(),
        "ALLOWED_HOSTS": "127.0.0.1",
        "SECURE_SSL_REDIRECT": "false",
        "API_THROTTLE_USER_RATE": "1000000/minute",
        "API_THROTTLE_ANON_RATE": "1000000/minute",
        "CACHE_URL": cache_url,
        "LOG_LEVEL": "WARNING",
    }
    results: dict[Server, list[Figures]] = {server: [] for server in servers}
    gunicorn: Gunicorn | None = None

    def interrupted(signum: int, _frame: object) -> None:
        raise KeyboardInterrupt(f"signal {signum}")

    signal.signal(signal.SIGTERM, interrupted)
    print(f"database {args.db_name} on {pg.hostname}:{pg.port or 5432}; cache {cache_url}")
    recreate_database(args.postgres, args.db_name)
    try:
        subprocess.run(
            [PYTHON, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=ROOT, env=env, check=True, timeout=300
        )
        with tempfile.TemporaryDirectory(prefix="splendor-load-") as scratch:
            work = Path(scratch)
            offered = f"{args.turn_rate:g} turns/s offered" if args.turn_rate else "as fast as answered"
            print(
                f"{args.players} games played at once ({offered}), {args.watchers} watchers at "
                f"{args.watch_rate:g} GET/s each, {args.seconds} s measured after {args.warmup} s of warm-up, "
                f"{args.rounds} round(s)\n"
            )
            print(HEADER)
            for round_number in range(1, args.rounds + 1):
                for index, server in enumerate(servers):
                    tag = f"r{round_number}s{index}"
                    plan = work / f"{tag}.json"
                    seed(env, pairs=args.players, games_per_pair=args.games_per_pair, tag=tag, out=plan)
                    gunicorn = Gunicorn(server, env)
                    gunicorn.wait_ready()
                    profiler = None
                    if args.profile and round_number == 1 and index == 0:
                        profiler = py_spy(gunicorn.process.pid, args.warmup + args.seconds, args.profile)
                    cpu = run_locust(gunicorn.url, plan, work / tag, args, gunicorn=gunicorn)
                    if profiler is not None:
                        _, errors = profiler.communicate(timeout=60)
                        if profiler.returncode:
                            print(f"py-spy failed: {errors.decode(errors='replace').strip()}")
                    gunicorn.stop()
                    gunicorn = None
                    result = figures(read_stats(work / tag), cpu)
                    results[server].append(result)
                    print(line(f"{server} #{round_number}", result), flush=True)
                    for failure in failures(work / tag):
                        print(f"    failure: {failure}")
            print("\nmedians")
            print(HEADER)
            for server, runs in results.items():
                print(line(str(server), median_figures(runs)))
            print("\nlatencies in ms (locust, client side); turns/s = accepted moves (201) per second;")
            print("cores = CPU seconds per second of the server (gunicorn + its PostgreSQL processes) and of locust;")
            print("app/db ms/turn = CPU of gunicorn / of PostgreSQL per accepted move, the watchers' reads included;")
            print("load = the machine's 1-minute load average (2 cores; other work on it counts too)")
        if args.profile and args.profile.exists():
            summarise_profile(args.profile)
    except KeyboardInterrupt:
        print("interrupted; stopping")
    finally:
        if gunicorn is not None:
            gunicorn.stop()
        if not args.keep_db:
            recreate_database(args.postgres, args.db_name, drop_only=True)


if __name__ == "__main__":
    main()
