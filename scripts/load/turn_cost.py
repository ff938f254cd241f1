"""The whole cost of a turn: the web processes, the workers and PostgreSQL, measured together.

    python scripts/load/turn_cost.py                          # this checkout: 50 turns/s offered for 60 s
    python scripts/load/turn_cost.py --rate 100 --seconds 60
    python scripts/load/turn_cost.py --before /tmp/before     # side by side: before, this, before, this, ...

For each run (and with --before, for each code in turn, --rounds times) it:

1. makes a PostgreSQL database and a private redis-server (broker and cache) of its own,
   an SMTP sink (aiosmtpd) and a webhook receiver in this process, so the send path
   is real;
2. seeds --games started two-player games, each player with a webhook
   (turn_cost_seed.py, through the services, with the measured code);
3. starts gunicorn with the shipped config (--web-workers sync workers), the two Celery
   workers of docs/deploy.md (the celery queue, the webhooks queue; --worker-concurrency
   processes each) and beat, all from the measured code;
4. plays: one thread per game, each asking its legal moves and playing one (a take
   when it can) every --games/--rate seconds, so --rate turns a second are offered;
5. after --warmup seconds measures, for --seconds: the CPU time of gunicorn (master and
   workers), of the workers and beat, of PostgreSQL (every process of the server, the
   backends of short-lived connections included) and of redis-server (Linux /proc),
   the accepted moves, and the broker's queue length each
   second; then stops playing and waits for the emails and webhooks to drain.

It prints per run and then the medians per code: accepted turns/s; CPU ms per accepted
turn of web, worker, database and broker; the delay from a move being accepted to its
"your turn" email reaching the sink and to its move_played webhook reaching the
receiver (p50, p95); the queue's largest and last length while playing (a queue that
grows means the worker does not keep pace); and how long the backlog took to drain.
Only 127.0.0.1 is contacted; everything it starts is stopped when it ends, Ctrl-C too.
"""

from __future__ import annotations

import argparse
import email
import json
import os
import random
import re
import secrets
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
PYTHON = sys.executable
# The queues of docs/deploy.md (settings.*_QUEUE): their lengths are the backlog.
QUEUES = ("celery", "webhooks", "bots", "beat")
sys.path.insert(0, str(HERE))

from run import (  # noqa: E402
    CLOCK_TICKS,
    cpu_seconds,
    database_url,
    free_port,
    group_pids,
    py_spy,
    recreate_database,
    summarise_profile,
)


def postmaster_pid(server_url: str) -> int:
    import psycopg

    with psycopg.connect(database_url(server_url, "postgres"), autocommit=True) as conn:
        backend = int(conn.execute("SELECT pg_backend_pid()").fetchone()[0])  # type: ignore[index]
    fields = Path(f"/proc/{backend}/stat").read_text().rpartition(")")[2].split()
    return int(fields[1])


def children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if int((entry / "stat").read_text().rpartition(")")[2].split()[1]) == pid:
                    found.append(int(entry.name))
            except (OSError, IndexError, ValueError):
                continue
    return found


@dataclass
class DatabaseClock:
    """All the CPU PostgreSQL spends: the postmaster, its live children and (through
    the postmaster's cutime and cstime) the children it reaped, such as the backend
    of a connection opened and closed inside the window, which a list of live
    processes would miss."""

    postmaster: int
    start_total: float = 0.0
    start_children: dict[int, float] = field(default_factory=dict)

    def _total(self) -> float:
        fields = Path(f"/proc/{self.postmaster}/stat").read_text().rpartition(")")[2].split()
        return sum(int(value) for value in fields[11:15]) / CLOCK_TICKS  # utime, stime, cutime, cstime

    def start(self) -> None:
        self.start_total = self._total()
        self.start_children = {pid: cpu_seconds([pid]) for pid in children(self.postmaster)}

    def used(self) -> float:
        now = {pid: cpu_seconds([pid]) for pid in children(self.postmaster)}
        alive = sum(seconds - self.start_children.get(pid, 0.0) for pid, seconds in now.items())
        # A child alive at the start and reaped since: its whole life is in cutime now.
        reaped_before = sum(seconds for pid, seconds in self.start_children.items() if pid not in now)
        return self._total() - self.start_total + alive - reaped_before


# --- what arrives: the SMTP sink and the webhook receiver ------------------------------------


_YOUR_TURN = re.compile(r"It is your turn in game (\w+) \(")


@dataclass
class Arrivals:
    """When each game version's email and webhook arrived (monotonic seconds)."""

    emails: dict[tuple[str, int], float] = field(default_factory=dict)
    webhooks: dict[tuple[str, int], float] = field(default_factory=dict)
    email_count: int = 0
    webhook_count: int = 0
    last: float = 0.0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def email_in(self, raw: bytes) -> None:
        now = time.monotonic()
        message = email.message_from_bytes(raw)
        message_id = str(message.get("Message-ID", ""))
        # Every email about a game has the game's subject (one thread per game), so the
        # turn email is told by its text: "It is your turn in game <id> (<variant>)."
        # (the players here write English), with Message-ID "<hash>.<token>.v<version>@...".
        text = ""
        for part in message.walk():
            if part.get_content_type() == "text/plain":
                text = str(part.get_payload(decode=True) or b"", "utf-8", "replace")
                break
        turn = _YOUR_TURN.search(text)
        with self.lock:
            self.email_count += 1
            self.last = now
            if turn is not None and ".v" in message_id:
                version = message_id.rsplit(".v", 1)[1].split("@")[0]
                if version.isdigit():
                    self.emails.setdefault((turn.group(1), int(version)), now)

    def webhook_in(self, body: bytes) -> None:
        now = time.monotonic()
        with self.lock:
            self.webhook_count += 1
            self.last = now
            try:
                payload = json.loads(body)
            except ValueError:
                return
            data = payload.get("data", {})
            if payload.get("type") == "move_played" and isinstance(data.get("version"), int):
                self.webhooks.setdefault((str(data.get("game_id")), data["version"]), now)


class SmtpSink:
    def __init__(self, arrivals: Arrivals) -> None:
        from aiosmtpd.controller import Controller

        class Handler:
            async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
                arrivals.email_in(envelope.original_content or envelope.content)
                return "250 OK"

        self.port = free_port()
        self.controller = Controller(Handler(), hostname="127.0.0.1", port=self.port)
        self.controller.start()

    def stop(self) -> None:
        self.controller.stop()


class WebhookReceiver:
    def __init__(self, arrivals: Arrivals) -> None:
        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (http.server's name)
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                arrivals.webhook_in(body)
                self.send_response(204)
                self.end_headers()

            def log_message(self, format: str, *args: Any) -> None:
                return

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def stop(self) -> None:
        self.server.shutdown()


# --- the processes ------------------------------------------------------------------------------


class Process:
    """A command in a session of its own: stopping it reaches all its children."""

    def __init__(self, command: list[str], *, cwd: Path, env: dict[str, str], log: Path) -> None:
        self.log = log.open("w")
        self.process = subprocess.Popen(
            command, cwd=cwd, env=env, stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True
        )

    def pids(self) -> list[int]:
        return group_pids(self.process.pid)

    def stop(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(timeout=10)
        self.log.close()


def wait_for(check: Any, what: str, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if check():
                return
        except Exception:
            pass
        time.sleep(0.2)
    raise SystemExit(f"{what} did not come up within {timeout:.0f} s")


def http_json(url: str, *, token: str, body: dict[str, Any] | None = None) -> tuple[int, Any]:
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(
        url,
        data=data,
        method="POST" if body is not None else "GET",
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json", "Accept": "application/json"},
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, json.loads(answer.read() or b"null")
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"null")


# --- one run ---------------------------------------------------------------------------------------


@dataclass
class Figures:
    turns_per_second: float
    web_ms: float
    worker_ms: float
    database_ms: float
    broker_ms: float
    email_p50: float
    email_p95: float
    emails: int
    webhook_p50: float
    webhook_p95: float
    webhooks: int
    queue_max: float
    queue_last: float
    drain_seconds: float
    failed: int


def percentile(values: list[float], share: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def play(url: str, games: list[dict[str, Any]], *, interval: float, stop: threading.Event,
         accepted: dict[tuple[str, int], float], counts: dict[str, int], lock: threading.Lock) -> list[threading.Thread]:
    def one_game(game: dict[str, Any]) -> None:
        rng = random.Random(game["id"])
        version, to_move = game["version"], game["to_move"]
        next_at = time.monotonic() + rng.uniform(0, interval)
        while not stop.is_set():
            time.sleep(max(0.0, next_at - time.monotonic()))
            next_at += interval
            if to_move is None or stop.is_set():
                return
            token = game["tokens"][str(to_move)]
            status, legal = http_json(f"{url}/api/v1/games/{game['id']}/legal-moves/", token=token)
            if status != 200 or not legal["moves"]:
                with lock:
                    counts["failed"] += 1
                continue
            moves = legal["moves"]
            takes = [m for m in moves if m.startswith("take ") and " return " not in m]
            move = rng.choice(takes) if takes else moves[0]
            status, answer = http_json(
                f"{url}/api/v1/games/{game['id']}/moves/", token=token,
                body={"move": move, "expected_version": legal["version"]},
            )
            now = time.monotonic()
            if status != 201:
                with lock:
                    counts["failed"] += 1
                continue
            new_version = answer["game"]["version"]
            with lock:
                counts["accepted"] += 1
                for played in range(legal["version"] + 1, new_version + 1):
                    accepted[(game["id"], played)] = now
            version, to_move = new_version, answer["game"]["to_move"]
            if answer["game"]["status"] != "active":
                return

    threads = [threading.Thread(target=one_game, args=(game,), daemon=True) for game in games]
    for thread in threads:
        thread.start()
    return threads


def run_once(code: Path, args: argparse.Namespace, label: str, workdir: Path) -> Figures:
    db_name = f"turncost_{label}"
    recreate_database(args.postgres, db_name)
    redis_port = free_port()
    arrivals = Arrivals()
    sink, receiver = SmtpSink(arrivals), WebhookReceiver(arrivals)
    web_port = free_port()
    var = workdir / f"var-{label}"
    shutil.rmtree(var, ignore_errors=True)
    var.mkdir(parents=True)
    env = {
        **os.environ,
        "PYTHONPATH": str(code),
        "TURN_COST_CODE": str(code),
        "DJANGO_SETTINGS_MODULE": "splendor_site.settings",
        "DATABASE_URL": database_url(args.postgres, db_name),
        "CELERY_BROKER_URL": f"redis://127.0.0.1:{redis_port}/0",
        "CACHE_URL": f"redis://127.0.0.1:{redis_port}/1",
        "DEBUG": "false",
        "SECRET_KEY": "turn-cost-" + secrets.token_hex(24),
        "ALLOWED_HOSTS": "127.0.0.1",
        "SITE_URL": f"http://127.0.0.1:{web_port}",
        "EMAIL_BACKEND": "django.core.mail.backends.smtp.EmailBackend",
        "EMAIL_HOST": "127.0.0.1",
        "EMAIL_PORT": str(sink.port),
        "WEBHOOKS_ALLOW_LOOPBACK": "true",
        "API_THROTTLE_USER_RATE": "1000000/minute",
        "API_THROTTLE_ANON_RATE": "1000000/minute",
        "VAR_DIR": str(var),
        "LOG_LEVEL": "WARNING",
    }
    processes: list[Process] = []
    try:
        redis = Process(
            ["redis-server", "--port", str(redis_port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
            cwd=workdir, env=env, log=workdir / f"{label}-redis.log",
        )
        processes.append(redis)
        subprocess.run([PYTHON, "manage.py", "migrate", "-v0"], cwd=code, env=env, check=True, timeout=600)
        plan = json.loads(
            subprocess.run(
                [PYTHON, str(HERE / "turn_cost_seed.py"), "--games", str(args.games),
                 "--webhook-url", f"http://127.0.0.1:{receiver.port}/"],
                cwd=code, env=env, check=True, timeout=900, capture_output=True, text=True,
            ).stdout
        )
        web = Process(
            [PYTHON, "-m", "gunicorn", "splendor_site.wsgi", "-c", "splendor_site/gunicorn_conf.py",
             "--bind", f"127.0.0.1:{web_port}", "--workers", str(args.web_workers), "--log-level", "warning"],
            cwd=code, env=env, log=workdir / f"{label}-gunicorn.log",
        )
        # As docs/deploy.md starts them, but for the cost of a turn rather than isolation:
        # one worker for the celery queue, bots' and beat's, and one for webhooks.
        worker = Process(
            [PYTHON, "-m", "celery", "-A", "splendor_site", "worker", "--queues", "celery,bots,beat",
             "--concurrency", str(args.worker_concurrency), "--without-gossip", "--without-mingle",
             "--loglevel", "WARNING", "--hostname", f"turncost-{label}@%h"],
            cwd=code, env=env, log=workdir / f"{label}-worker.log",
        )
        webhooks_worker = Process(
            [PYTHON, "-m", "celery", "-A", "splendor_site", "worker", "--queues", "webhooks",
             "--concurrency", str(args.worker_concurrency), "--without-gossip", "--without-mingle",
             "--loglevel", "WARNING", "--hostname", f"turncost-webhooks-{label}@%h"],
            cwd=code, env=env, log=workdir / f"{label}-webhooks-worker.log",
        )
        beat = Process(
            [PYTHON, "-m", "celery", "-A", "splendor_site", "beat", "--loglevel", "WARNING",
             "--schedule", str(var / "celerybeat-schedule")],
            cwd=code, env=env, log=workdir / f"{label}-beat.log",
        )
        processes += [web, worker, webhooks_worker, beat]
        url = f"http://127.0.0.1:{web_port}"
        wait_for(lambda: urllib.request.urlopen(url + "/healthz", timeout=2).status == 200, "gunicorn")
        import redis as redis_client

        broker = redis_client.Redis(host="127.0.0.1", port=redis_port, db=0)
        wait_for(lambda: broker.ping(), "redis")
        time.sleep(3)  # the worker connects

        accepted: dict[tuple[str, int], float] = {}
        counts = {"accepted": 0, "failed": 0}
        lock, stop = threading.Lock(), threading.Event()
        threads = play(url, plan["games"], interval=args.games / args.rate, stop=stop,
                       accepted=accepted, counts=counts, lock=lock)
        time.sleep(args.warmup)

        def server_pids() -> dict[str, list[int]]:
            return {
                "web": web.pids(),
                "worker": worker.pids() + webhooks_worker.pids() + beat.pids(),
                "broker": redis.pids(),
            }

        database = DatabaseClock(postmaster_pid(args.postgres))
        pids = server_pids()
        start_cpu = {pid: cpu_seconds([pid]) for group in pids.values() for pid in group}
        database.start()
        spies = []
        if args.profile and label == "this":
            # py-spy on the processes of this code only, for the measured window; the
            # sampling slows them, so a profiled run's figures do not count.
            for name, process in (("web", web), ("worker", worker), ("webhooks", webhooks_worker)):
                out = args.profile.with_name(f"{args.profile.stem}-{name}{args.profile.suffix}")
                spies.append((name, out, py_spy(process.process.pid, int(args.seconds), out, gil=True)))
        with lock:
            start_accepted = counts["accepted"]
        started = time.monotonic()
        queue: list[int] = []
        while time.monotonic() - started < args.seconds:
            queue.append(sum(int(broker.llen(name)) for name in QUEUES))
            time.sleep(1)
        window = time.monotonic() - started
        pids = server_pids()
        cpu = {
            name: sum(cpu_seconds([pid]) - start_cpu.get(pid, 0.0) for pid in group) for name, group in pids.items()
        }
        cpu["database"] = database.used()
        for name, out, spy in spies:
            spy.wait(timeout=60)
            print(f"\n{name}:")
            summarise_profile(out, top=args.profile_top)
        with lock:
            turns = counts["accepted"] - start_accepted
        stop.set()
        stopped = time.monotonic()
        for thread in threads:
            thread.join(timeout=30)
        # Drained: the queue is empty and nothing has arrived for 3 s (at most 120 s).
        while time.monotonic() - stopped < 120:
            idle = time.monotonic() - max(arrivals.last, stopped)
            if sum(int(broker.llen(name)) for name in QUEUES) == 0 and idle > 3:
                break
            time.sleep(0.5)
        drain = max(0.0, max(arrivals.last, stopped) - stopped)

        def delays(arrived: dict[tuple[str, int], float]) -> list[float]:
            return [when - accepted[key] for key, when in arrived.items() if key in accepted and accepted[key] >= started]

        email_delays, webhook_delays = delays(arrivals.emails), delays(arrivals.webhooks)
        per_turn = (lambda seconds: 1000 * seconds / turns if turns else float("nan"))
        return Figures(
            turns_per_second=turns / window,
            web_ms=per_turn(cpu["web"]),
            worker_ms=per_turn(cpu["worker"]),
            database_ms=per_turn(cpu["database"]),
            broker_ms=per_turn(cpu["broker"]),
            email_p50=percentile(email_delays, 0.5),
            email_p95=percentile(email_delays, 0.95),
            emails=len(email_delays),
            webhook_p50=percentile(webhook_delays, 0.5),
            webhook_p95=percentile(webhook_delays, 0.95),
            webhooks=len(webhook_delays),
            queue_max=max(queue, default=0),
            queue_last=queue[-1] if queue else 0,
            drain_seconds=drain,
            failed=counts["failed"],
        )
    finally:
        for process in reversed(processes):
            process.stop()
        sink.stop()
        receiver.stop()
        recreate_database(args.postgres, db_name, drop_only=True)


HEADER = (
    f"{'code':<8} {'turns/s':>8} {'web ms':>7} {'worker ms':>10} {'db ms':>6} {'broker ms':>10} "
    f"{'email p50':>10} {'p95':>6} {'n':>5} {'hook p50':>9} {'p95':>6} {'n':>5} {'queue max':>10} {'last':>5} "
    f"{'drain s':>8} {'failed':>7}"
)


def line(label: str, f: Figures) -> str:
    return (
        f"{label:<8} {f.turns_per_second:>8.1f} {f.web_ms:>7.1f} {f.worker_ms:>10.1f} {f.database_ms:>6.1f} "
        f"{f.broker_ms:>10.1f} {f.email_p50:>10.2f} {f.email_p95:>6.2f} {f.emails:>5} {f.webhook_p50:>9.2f} "
        f"{f.webhook_p95:>6.2f} {f.webhooks:>5} {f.queue_max:>10.0f} {f.queue_last:>5.0f} {f.drain_seconds:>8.1f} "
        f"{f.failed:>7}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rate", type=float, default=50.0, help="turns offered per second in all (default 50)")
    parser.add_argument("--games", type=int, default=60, help="games played at once (default 60)")
    parser.add_argument("--seconds", type=float, default=60.0, help="measured window (default 60)")
    parser.add_argument("--warmup", type=float, default=10.0, help="seconds played before measuring (default 10)")
    parser.add_argument("--rounds", type=int, default=1, help="runs of each code, alternated (default 1)")
    parser.add_argument("--web-workers", type=int, default=2, help="gunicorn sync workers (default 2)")
    parser.add_argument(
        "--worker-concurrency", type=int, default=4, help="processes of each Celery worker (default 4, as docs/deploy.md)"
    )
    parser.add_argument("--before", type=Path, help="a checkout of the code to compare with, run in turn with this one")
    parser.add_argument("--postgres", default="postgres://postgres@127.0.0.1:5432/postgres")
    parser.add_argument(
        "--profile", type=Path, help="py-spy (samples holding the GIL) the web and both workers of this code while measuring: FILE-web.txt, ..."
    )
    parser.add_argument("--profile-top", type=int, default=30, help="functions listed per profile (default 30)")
    args = parser.parse_args()

    codes = [("before", args.before.resolve())] if args.before else []
    codes.append(("this", ROOT))
    results: dict[str, list[Figures]] = {label: [] for label, _ in codes}
    with tempfile.TemporaryDirectory(prefix="turn-cost-") as tmp:
        print(f"{args.rate:g} turns/s offered over {args.games} games, {args.seconds:g} s measured, "
              f"{args.web_workers} web workers, two Celery workers of {args.worker_concurrency} and beat", flush=True)
        print(HEADER, flush=True)
        for _ in range(args.rounds):
            for label, code in codes:
                figures = run_once(code, args, label, Path(tmp))
                results[label].append(figures)
                print(line(label, figures), flush=True)
    if args.rounds > 1:
        print("\nmedians")
        print(HEADER)
        for label, runs in results.items():
            fields = Figures.__dataclass_fields__
            median = Figures(**{name: statistics.median(getattr(run, name) for run in runs) for name in fields})  # type: ignore[arg-type]
            print(line(label, median))


if __name__ == "__main__":
    main()
