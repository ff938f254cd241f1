"""The README's run command, `manage.py serve`, on a fresh SQLite file and the
embedded broker: turn emails, timeouts and webhooks happen with no other
command, a worker that dies is started again, and Ctrl-C stops everything it started.

The site runs in a temporary directory's settings (its own SQLite file, VAR_DIR
and mail folder); game clocks count seconds (GAME_CLOCK_SECONDS) and the beat
sweeps every second. The test only plays through the API and waits.
"""

from __future__ import annotations

import json
import os
import signal
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from tests.e2e_support.databases import migrated
from tests.e2e_support.processes import (
    PYTHON,
    Api,
    Process,
    descendants,
    emails,
    headline_of,
    free_port,
    pid_alive,
    player_tokens,
    site_env,
    wait_for,
)

pytestmark = [pytest.mark.e2e]


class Serve(Process):
    def __init__(self, env: dict[str, str], log: Path) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        super().__init__("manage.py serve", [PYTHON, "manage.py", "serve", f"127.0.0.1:{self.port}"], env, log)


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[Serve, Api, Path]]:
    env = site_env(tmp_path, database_url=f"sqlite:///{tmp_path / 'db.sqlite3'}", broker_url=None)
    migrated(env)
    api_tokens = player_tokens(env, ("alice", "bob"))
    serve = Serve(env, tmp_path / "serve.log")
    serve.start()
    try:
        def up() -> bool:
            import requests

            try:
                return requests.get(serve.url + "/healthz", timeout=2).status_code == 200
            except requests.RequestException:
                return False

        wait_for(up, timeout=60, what="the web server started by serve", explain=serve.tail)
        wait_for(lambda: serve.output().count(" ready.") >= 4, timeout=90, what="the workers started by serve",
                 explain=serve.tail)  # fmt: skip
        yield serve, Api(serve.url, api_tokens), tmp_path / "mail"
    finally:
        serve.stop()


class StreamReader:
    """An NDJSON event stream read in a thread of its own, its events kept in order."""

    def __init__(self, api: Api, who: str) -> None:
        import requests

        self.events: list[dict[str, Any]] = []
        self.answer = requests.get(
            api.url + "/api/v1/stream/", stream=True, timeout=30,
            headers={"Authorization": f"Bearer {api.tokens[who]}", "Accept": "application/x-ndjson"},
        )  # fmt: skip
        assert self.answer.status_code == 200, self.answer.text
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        try:
            for line in self.answer.iter_lines(chunk_size=1):  # each line as it comes
                if line:
                    self.events.append(json.loads(line))
        except Exception:  # the server stopped at the end of the test
            return

    def kinds(self) -> list[str]:
        return [event.get("event", "") for event in self.events]


def _history(api: Api, who: str, game_id: str) -> list[dict[str, Any]]:
    answer = api.call(who, "GET", f"/api/v1/games/{game_id}/moves/")
    return list(answer["results"] if isinstance(answer, dict) else answer)


def test_serve_sends_the_next_players_email_and_enforces_a_deadline_with_no_other_command(
    served: tuple[Serve, Api, Path],
) -> None:
    serve, api, mail_dir = served
    assert Path(serve.env["VAR_DIR"], "broker", "queue").is_dir()  # the embedded broker's folder, made on start
    game_id = api.new_game("alice", ["bob"], move_timeout_seconds=6, timeout_policy={"forfeit_after": 3})
    # The event stream works under serve too (the development server's polling iterator).
    streams = {who: StreamReader(api, who) for who in ("alice", "bob")}
    mover, _ = api.play(game_id)
    waiting = "bob" if mover == "alice" else "alice"
    wait_for(lambda: streams[waiting].kinds()[-2:] == ["move_played", "your_turn"], timeout=30,
             what=f"{mover}'s move and {waiting}'s turn on {waiting}'s stream", explain=serve.tail)  # fmt: skip
    assert streams[waiting].kinds()[0] == "snapshot"
    assert streams[waiting].events[-1]["data"]["game_id"] == game_id

    def turn_email_for_waiting_player() -> bool:
        return any(
            message["To"] == f"{waiting}@example.com" and "Your turn" in headline_of(message)
            and game_id in headline_of(message) and mover in headline_of(message)
            for message in emails(mail_dir)
        )  # fmt: skip

    wait_for(turn_email_for_waiting_player, timeout=30, what=f"{waiting}'s turn email after {mover}'s move",
             explain=serve.tail)  # fmt: skip

    # Nobody moves: the deadline passes and the bot plays for the waiting player.
    def bot_played() -> bool:
        return any(entry.get("played_by") == "bot" for entry in _history(api, mover, game_id))

    wait_for(bot_played, timeout=45, what="the bot's move after the missed deadline", every=1, explain=serve.tail)


def test_ctrl_c_stops_the_web_server_and_the_workers(served: tuple[Serve, Api, Path]) -> None:
    serve, _, _ = served
    started = descendants(serve.pid)
    assert len(started) >= 5, started  # the web server and the four workers at least
    serve.kill(signal.SIGINT)  # what the terminal sends on Ctrl-C (to the whole group)
    assert serve.process is not None
    assert serve.process.wait(timeout=30) == 0
    wait_for(lambda: not any(pid_alive(pid) for pid in started), timeout=15, what="every process serve started gone")
    assert "SIGINT received; stopping" in serve.output()


def _celery_pids(serve: Serve, queue: str) -> set[int]:
    """The worker processes serve started for ``queue`` (their command names it)."""
    found = set()
    for pid in descendants(serve.pid):
        try:
            command = Path(f"/proc/{pid}/cmdline").read_text(errors="replace").split("\0")
        except OSError:
            continue
        if "celery" in command and "--queues" in command and command[command.index("--queues") + 1] == queue:
            found.add(pid)
    return found


def test_when_a_worker_dies_serve_starts_it_again_and_it_works(served: tuple[Serve, Api, Path]) -> None:
    serve, api, mail_dir = served
    killed = _celery_pids(serve, "celery")
    assert killed, "no worker among serve's processes"
    web_server = {pid for pid in descendants(serve.pid) if "runserver" in Path(f"/proc/{pid}/cmdline").read_text(errors="replace")}
    for pid in killed:
        os.kill(pid, signal.SIGKILL)

    wait_for(lambda: "the worker exited with -9; starting it again in 1 s" in serve.output(), timeout=15,
             what="serve noticing the dead worker", explain=serve.tail)  # fmt: skip
    wait_for(lambda: _celery_pids(serve, "celery") - killed, timeout=30, what="a new worker", explain=serve.tail)
    assert serve.alive() and all(pid_alive(pid) for pid in web_server)  # the web server kept running
    # The new worker sends the next turn email.
    game_id = api.new_game("alice", ["bob"])
    mover, _ = api.play(game_id)
    waiting = "bob" if mover == "alice" else "alice"
    wait_for(lambda: any(message["To"] == f"{waiting}@example.com" and game_id in headline_of(message)
                         and "Your turn" in headline_of(message) for message in emails(mail_dir)),
             timeout=60, what="the turn email sent by the new worker", explain=serve.tail)  # fmt: skip


class Receiver(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        server: Any = self.server
        server.received.append(json.loads(self.rfile.read(int(self.headers["Content-Length"]))))
        self.send_response(204)
        self.end_headers()

    def log_message(self, format: str, *args: Any) -> None:
        pass


def test_serve_delivers_webhooks_through_a_worker_of_their_own(served: tuple[Serve, Api, Path]) -> None:
    serve, api, _ = served
    receiver: Any = ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
    receiver.received = []
    threading.Thread(target=receiver.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{receiver.server_address[1]}/hook"
        api.call("alice", "POST", "/api/v1/webhooks/", {"url": url, "events": ["game_started"]})
        game_id = api.new_game("alice", ["bob"])
        wait_for(lambda: [event for event in receiver.received if event["data"]["game_id"] == game_id], timeout=60,
                 what="the game_started webhook", explain=serve.tail)  # fmt: skip
    finally:
        receiver.shutdown()
        receiver.server_close()
    assert _celery_pids(serve, "webhooks"), "no webhooks worker among serve's processes"
    assert "webhooks.tasks.deliver" in serve.output()
