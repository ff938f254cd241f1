"""SIGKILL a gunicorn worker in the middle of play: no move is lost or half-written.

The test makes a PostgreSQL database of its own (dropped at the end), migrates it,
makes two players with ``manage.py player_create`` and starts gunicorn on a free
loopback port with two sync workers. It creates games through the API and has
four client threads play them (GET legal-moves, POST a move with
``expected_version`` and an ``Idempotency-Key``) while the main thread SIGKILLs one
worker that is handling a request, waits for the master to replace it, and later
kills another. A client treats a dropped connection or a 5xx as "the move may or
may not have been played": it sends the same request again with the same key, and
re-reads the game when that does not settle it; a 409 also makes it re-read.

Afterwards, read straight from the database for every game:

- the stored state is the engine's replay of the move log (``game_rebuild_state``);
- the plies are 0..n-1 and the outbox versions 1..version, without a gap, and the
  version is the version at the start plus one per move;
- every move answered 201 is in the log, at its ply, with its text;
- every move in the log was asked for: a POST of that text on the version before
  it was answered 201 or got no answer at all.

Bounded: 4 clients, at most MOVES_PER_CLIENT moves each, LOAD_SECONDS in all.
"""

from __future__ import annotations

import json
import os
import secrets
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import requests

from tests.e2e_support.databases import migrated
from tests.e2e_support.processes import children, database_url_for, free_port, manage

ROOT = Path(__file__).resolve().parents[2]
PYTHON = sys.executable

CLIENTS = 4
GAMES_PER_CLIENT = 2
MOVES_PER_CLIENT = 45
LOAD_SECONDS = 40
KILL_AT_MOVES = (25, 75)  # accepted moves in all before the first and the second kill
MIN_MOVES = 100
MIN_MOVES_AFTER_LAST_KILL = 15
REQUEST_TIMEOUT = 15
RETRIES = 4  # the same move request, after a dropped connection or a 5xx

pytestmark = [pytest.mark.e2e, pytest.mark.postgres]


# --- processes -------------------------------------------------------------------






def _admin(server_url: str, sql: str) -> None:
    import psycopg

    with psycopg.connect(database_url_for(server_url, "postgres"), autocommit=True) as conn:
        conn.execute(sql)






def _established_sockets(port: int) -> set[str]:
    """Inodes of the accepted connections to ``port`` (server side, ESTABLISHED)."""
    inodes: set[str] = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            if fields[3] == "01" and int(fields[1].rsplit(":", 1)[1], 16) == port:
                inodes.add(fields[9])
    return inodes


def _busy_workers(workers: set[int], port: int) -> set[int]:
    """The workers holding a client connection now: handling a request."""
    established = _established_sockets(port)
    busy: set[int] = set()
    for pid in workers:
        try:
            fds = list(Path(f"/proc/{pid}/fd").iterdir())
        except OSError:
            continue
        for fd in fds:
            try:
                link = os.readlink(fd)
            except OSError:
                continue
            if link.startswith("socket:[") and link[8:-1] in established:
                busy.add(pid)
                break
    return busy


class Gunicorn:
    def __init__(self, env: dict[str, str], log: Path) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = log
        command = [
            PYTHON, "-m", "gunicorn", "splendor_site.wsgi",
            "--bind", f"127.0.0.1:{self.port}",
            "--workers", "2",
            "--worker-class", "sync",
            "--no-control-socket",
            "--timeout", "30",
            "--graceful-timeout", "5",
            "--log-level", "info",
        ]  # fmt: skip
        with log.open("wb") as out:
            # A session of its own: stopping it reaches the master and its workers, nothing else.
            self.process = subprocess.Popen(
                command, cwd=ROOT, env=env, stdout=out, stderr=out, start_new_session=True
            )

    def workers(self) -> set[int]:
        return children(self.process.pid)

    def wait_ready(self, timeout: float = 45) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                pytest.fail(f"gunicorn exited with {self.process.returncode}:\n{self.log.read_text()}")
            try:
                if requests.get(self.url + "/healthz", timeout=2).status_code == 200 and len(self.workers()) == 2:
                    return
            except requests.RequestException:
                pass
            time.sleep(0.2)
        pytest.fail(f"gunicorn did not answer /healthz within {timeout:.0f} s:\n{self.log.read_text()}")

    def stop(self) -> None:
        if self.process.poll() is not None:
            return
        os.killpg(self.process.pid, signal.SIGTERM)
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=10)


@dataclass
class Site:
    env: dict[str, str]
    url: str
    server: Gunicorn
    tokens: dict[str, str]


@pytest.fixture
def site(tmp_path: Path) -> Iterator[Site]:
    server_url = os.environ["DATABASE_URL"]
    name = f"splendor_kill9_{secrets.token_hex(4)}"
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "splendor_site.settings",
        "DATABASE_URL": database_url_for(server_url, name),
        "CACHE_URL": "locmem://",
        "CELERY_BROKER_URL": "memory://",
        "DEBUG": "false",
        "SECRET_KEY": "kill-nine-only-" + secrets.token_hex(24),
        "ALLOWED_HOSTS": "127.0.0.1",
        "SECURE_SSL_REDIRECT": "false",
        "API_THROTTLE_USER_RATE": "100000/minute",
        "API_THROTTLE_ANON_RATE": "100000/minute",
        "LOG_LEVEL": "WARNING",
    }
    env.pop("CELERY_TASK_ALWAYS_EAGER", None)
    server: Gunicorn | None = None
    try:
        migrated(env, create=True)
        tokens = {}
        for username in ("alice", "bob"):
            made = json.loads(manage(env, "player_create", username, "--email", f"{username}@example.com"))
            tokens[username] = made["token"]
        server = Gunicorn(env, tmp_path / "gunicorn.log")
        server.wait_ready()
        yield Site(env=env, url=server.url, server=server, tokens=tokens)
    finally:
        if server is not None:
            server.stop()
        _admin(server_url, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


# --- clients ---------------------------------------------------------------------


@dataclass
class GameInPlay:
    game_id: str
    seat_tokens: dict[int, str]
    start_version: int
    to_move: int | None
    over: bool = False


@dataclass
class Tally:
    """What the clients saw, shared by the threads (under ``lock``)."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    accepted: list[tuple[str, int, str]] = field(default_factory=list)  # (game, ply, move) of every 201
    replayed: int = 0  # 201s with Idempotent-Replayed: true
    # (game, version, move) of POSTs answered 201 or not at all: the moves the server may have played
    asked: set[tuple[str, int, str]] = field(default_factory=set)
    dropped: list[str] = field(default_factory=list)  # requests that got no answer (reset, closed), by kind
    statuses: dict[int, int] = field(default_factory=dict)  # answers other than 200/201, by status
    server_errors: list[str] = field(default_factory=list)  # 5xx answers
    unexpected: list[str] = field(default_factory=list)  # refusals a correct client never sees
    in_flight: int = 0
    moves_total: int = 0

    def count(self, status: int) -> None:
        with self.lock:
            self.statuses[status] = self.statuses.get(status, 0) + 1


class Client:
    def __init__(self, url: str, tally: Tally, deadline: float, stop: threading.Event) -> None:
        self.url = url
        self.tally = tally
        self.deadline = deadline
        self.stop = stop
        self.http = requests.Session()

    def _send(self, method: str, path: str, token: str, **kwargs: Any) -> requests.Response | None:
        """One request; None when the connection failed (no answer)."""
        headers = {"Authorization": f"Bearer {token}", **kwargs.pop("headers", {})}
        with self.tally.lock:
            self.tally.in_flight += 1
        try:
            answer = self.http.request(method, self.url + path, headers=headers, timeout=REQUEST_TIMEOUT, **kwargs)
        except requests.RequestException:
            kind = "POST moves" if method == "POST" else f"GET {path.rstrip('/').rsplit('/', 1)[-1]}"
            with self.tally.lock:
                self.tally.dropped.append(kind)
            return None
        finally:
            with self.tally.lock:
                self.tally.in_flight -= 1
        if answer.status_code not in (200, 201):
            self.tally.count(answer.status_code)
        if answer.status_code >= 500:
            with self.tally.lock:
                self.tally.server_errors.append(f"{method} {path}: {answer.status_code} {answer.text[:300]}")
        return answer

    def _read(self, method: str, path: str, token: str, **kwargs: Any) -> requests.Response:
        """A request that must be answered: retried while connections drop or the server answers 5xx."""
        for _ in range(20):
            answer = self._send(method, path, token, **kwargs)
            if answer is not None and answer.status_code < 500:
                return answer
            time.sleep(0.2)
        raise AssertionError(f"{method} {path} got no answer in 20 tries")

    def refresh(self, game: GameInPlay) -> None:
        view = self._read("GET", f"/api/v1/games/{game.game_id}/", game.seat_tokens[0])
        assert view.status_code == 200, view.text
        body = view.json()
        game.to_move = body["to_move"]
        game.over = body["status"] != "active"

    def play_turn(self, game: GameInPlay) -> bool:
        """One turn of ``game``; True when a move was answered 201."""
        assert game.to_move is not None
        token = game.seat_tokens[game.to_move]
        base = f"/api/v1/games/{game.game_id}/"
        legal = self._read("GET", base + "legal-moves/", token)
        if legal.status_code != 200:
            with self.tally.lock:
                self.tally.unexpected.append(f"legal-moves: {legal.status_code} {legal.text[:300]}")
            self.refresh(game)
            return False
        listed = legal.json()
        if not listed["moves"]:
            self.refresh(game)
            return False
        move = _choose(listed["moves"])
        version = listed["version"]
        request = {
            "json": {"move": move, "expected_version": version},
            "headers": {"Idempotency-Key": str(uuid.uuid4())},
        }
        for _ in range(RETRIES):
            answer = self._send("POST", base + "moves/", token, **request)
            if answer is None or answer.status_code >= 500:
                # Played or not? Ask again with the same key; the server answers once.
                with self.tally.lock:
                    self.tally.asked.add((game.game_id, version, move))
                time.sleep(0.2)
                continue
            if answer.status_code == 201:
                body = answer.json()
                with self.tally.lock:
                    self.tally.asked.add((game.game_id, version, move))
                    self.tally.accepted.append((game.game_id, body["ply"], body["move"]))
                    self.tally.replayed += answer.headers.get("Idempotent-Replayed") == "true"
                    self.tally.moves_total += 1
                    if body["game"]["version"] != version + 1:  # two seats: no automatic moves follow
                        self.tally.unexpected.append(f"201 at version {version} answered {body['game']['version']}")
                game.to_move = body["game"]["to_move"]
                game.over = body["game"]["status"] != "active"
                return True
            if answer.status_code not in (409, 412):
                with self.tally.lock:
                    self.tally.unexpected.append(
                        f"POST {move!r} on {version}: {answer.status_code} {answer.text[:300]}"
                    )
            break
        self.refresh(game)
        return False

    def run(self, games: list[GameInPlay]) -> None:
        moves = 0
        try:
            while moves < MOVES_PER_CLIENT and time.monotonic() < self.deadline and not self.stop.is_set():
                live = [game for game in games if not game.over]
                if not live:
                    return
                moves += self.play_turn(live[moves % len(live)])
        finally:
            self.http.close()


def _choose(moves: list[str]) -> str:
    """Buy the dearest card on offer, else take gems, else whatever comes first (as the load client)."""
    buys = [m for m in moves if m.startswith("buy ")]
    if buys:
        return buys[-1]
    takes = [m for m in moves if m.startswith("take ") and " return " not in m]
    return takes[len(takes) // 2] if takes else moves[0]


# --- the database, read after the run ----------------------------------------------

AUDIT = """
import json
from games.models import Game, GameEvent, Move
from games.selectors import game_rebuild_state
out = []
for game in Game.objects.order_by("created_at"):
    rebuilt = game_rebuild_state(game=game)
    out.append({
        "id": game.pk,
        "status": game.status,
        "version": game.version,
        "state_matches": json.loads(json.dumps(rebuilt)) == game.state,
        "moves": list(Move.objects.filter(game=game).order_by("ply").values_list("ply", "text")),
        "event_versions": sorted(e.payload.get("version") for e in GameEvent.objects.filter(game=game)),
    })
print(json.dumps(out))
"""


def _audit(env: dict[str, str]) -> dict[str, dict[str, Any]]:
    out = manage(env, "shell", "-c", AUDIT)
    return {game["id"]: game for game in json.loads(out.strip().splitlines()[-1])}


# --- the test ----------------------------------------------------------------------


@dataclass
class Kill:
    pid: int
    busy: bool  # the worker held a client connection when it was killed
    in_flight: int  # client requests waiting for an answer then
    moves_before: int


def _kill_a_worker(site: Site, tally: Tally, wait: float = 5) -> Kill:
    """SIGKILL a worker, one handling a request if one is within ``wait`` seconds."""
    workers = site.server.workers()
    assert workers, "gunicorn has no workers"
    deadline = time.monotonic() + wait
    while True:
        busy = _busy_workers(workers, site.server.port)
        if busy or time.monotonic() > deadline:
            break
        time.sleep(0.005)
    victim = min(busy) if busy else min(workers)
    with tally.lock:
        in_flight, moves = tally.in_flight, tally.moves_total
    os.kill(victim, signal.SIGKILL)
    return Kill(pid=victim, busy=bool(busy), in_flight=in_flight, moves_before=moves)


def _wait_replaced(site: Site, killed: int, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        workers = site.server.workers()
        if killed not in workers and len(workers) == 2:
            return
        time.sleep(0.1)
    pytest.fail(f"the master did not replace worker {killed} within {timeout:.0f} s:\n{site.server.log.read_text()}")


def _wait_for_moves(tally: Tally, count: int, deadline: float) -> None:
    while time.monotonic() < deadline:
        with tally.lock:
            if tally.moves_total >= count:
                return
        time.sleep(0.02)


def _start_games(site: Site) -> list[GameInPlay]:
    def auth(username: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {site.tokens[username]}"}

    games = []
    for _ in range(CLIENTS * GAMES_PER_CLIENT):
        made = requests.post(
            site.url + "/api/v1/games/", json={"seats": 2, "invited": ["bob"]}, headers=auth("alice"), timeout=15
        )
        assert made.status_code == 201, made.text
        joined = requests.post(
            f"{site.url}/api/v1/games/{made.json()['id']}/join/", json={}, headers=auth("bob"), timeout=15
        )
        assert joined.status_code == 200, joined.text
        view = joined.json()
        assert view["status"] == "active"
        seat_tokens = {seat["seat"]: site.tokens[seat["username"]] for seat in view["seats"]}
        games.append(GameInPlay(view["id"], seat_tokens, start_version=view["version"], to_move=view["to_move"]))
    return games


def test_sigkilled_workers_lose_no_move(site: Site) -> None:
    started = time.monotonic()
    games = _start_games(site)
    tally = Tally()
    stop = threading.Event()
    deadline = time.monotonic() + LOAD_SECONDS
    clients = [Client(site.url, tally, deadline, stop) for _ in range(CLIENTS)]
    threads = [
        threading.Thread(target=client.run, args=(games[n::CLIENTS],), name=f"client-{n}", daemon=True)
        for n, client in enumerate(clients)
    ]
    kills: list[Kill] = []
    try:
        for thread in threads:
            thread.start()
        for threshold in KILL_AT_MOVES:
            _wait_for_moves(tally, threshold, deadline)
            if time.monotonic() >= deadline:
                break
            kills.append(_kill_a_worker(site, tally))
            _wait_replaced(site, kills[-1].pid)
    except BaseException:
        stop.set()  # the clients finish the turn they are on
        raise
    finally:
        for thread in threads:
            thread.join(timeout=LOAD_SECONDS + 2 * REQUEST_TIMEOUT)
    load_seconds = time.monotonic() - started
    assert not any(thread.is_alive() for thread in threads), "a client thread did not finish"

    summary = (
        f"{tally.moves_total} moves (201) in {load_seconds:.1f} s, {tally.replayed} replayed; kills {kills}; "
        f"requests without an answer {tally.dropped}; other answers {tally.statuses}"
    )
    print(summary)
    assert len(kills) == 2, f"the load ended before both kills: {summary}"
    assert any(kill.busy for kill in kills), f"no worker was killed while handling a request: {summary}"
    assert all(kill.in_flight > 0 for kill in kills), summary
    assert tally.dropped, f"no request died with its worker: {summary}"
    assert tally.moves_total >= MIN_MOVES, summary
    assert tally.moves_total - kills[-1].moves_before >= MIN_MOVES_AFTER_LAST_KILL, f"no recovery: {summary}"
    assert not tally.server_errors, f"5xx answers: {tally.server_errors}"
    assert not tally.unexpected, f"refusals a correct client never sees: {tally.unexpected}"

    stored = _audit(site.env)
    assert set(stored) == {game.game_id for game in games}
    start_versions = {game.game_id: game.start_version for game in games}
    for game_id, game in stored.items():
        plies = [ply for ply, _ in game["moves"]]
        assert game["state_matches"], f"{game_id}: the stored state is not the replay of its move log"
        assert plies == list(range(len(plies))), f"{game_id}: plies {plies}"
        assert game["event_versions"] == list(range(1, game["version"] + 1)), f"{game_id}: {game['event_versions']}"
        assert game["version"] == start_versions[game_id] + len(plies), game_id
        for ply, text in game["moves"]:
            version = start_versions[game_id] + ply
            assert (game_id, version, text) in tally.asked, f"{game_id} ply {ply} {text!r} was never asked for"
    for game_id, ply, text in tally.accepted:
        log = dict(stored[game_id]["moves"])
        assert log.get(ply) == text, f"{game_id}: the 201 for ply {ply} {text!r} is not in the log ({log.get(ply)!r})"
    # One 201 per move at most reaches a client, a replay only standing in for an answer that was lost.
    assert len({(game_id, ply) for game_id, ply, _ in tally.accepted}) == len(tally.accepted)
