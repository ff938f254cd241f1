"""splendor-bot against a real site: two runners, each an account of its own, play
a whole game through the event stream and exit when it is over; and they finish
it when the site is killed mid-game and started again (the stream resumed by
Last-Event-ID, the move in flight sent again under its Idempotency-Key).

- alice's runner creates the game and invites bob (--create base:2 --invite bob).
- bob's runner accepts the invitation (--accept-invitations).

And a runner set up by a --config file alone plays the search bot (ismcts, 300
playouts a move) through a game to its end: alice's file creates it and greets
bob once; bob's runner accepts it through its filters. (A practice game against
the service's bots would not do: the event stream carries no practice game.)

The runners are the client's own installation (clients/python, its own venv):
SPLENDOR_CLIENT_PYTHON names a python with splendor-client installed, e.g.

    python3 -m venv /tmp/client && /tmp/client/bin/pip install ./engine ./clients/python
    SPLENDOR_CLIENT_PYTHON=/tmp/client/bin/python E2E=1 pytest tests/clients/test_bot_runner_e2e.py

The site runs from this checkout on a SQLite file of its own, under uvicorn
(splendor_site.asgi, as docs/deploy.md serves the stream; the embedded default's
database poll wakes the streams).
"""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import requests

from tests.e2e_support.databases import migrated
from tests.e2e_support.processes import PYTHON, Api, Process, free_port, player_tokens, site_env, wait_for

pytestmark = [pytest.mark.e2e]

GAME_SECONDS = 240  # a greedy game is 50 to 80 moves; each is a few requests


def client_bot() -> Path:
    """The splendor-bot of the client's own environment (SPLENDOR_CLIENT_PYTHON)."""
    python = os.environ.get("SPLENDOR_CLIENT_PYTHON")
    if not python:
        pytest.fail(
            "SPLENDOR_CLIENT_PYTHON is not set: it names the python of an environment with the client installed, "
            "e.g. `python3 -m venv /tmp/client && /tmp/client/bin/pip install ./engine ./clients/python`, "
            "then SPLENDOR_CLIENT_PYTHON=/tmp/client/bin/python"
        )
    bot = Path(python).parent / "splendor-bot"
    if not bot.exists():
        pytest.fail(f"no splendor-bot beside {python}: install the client there (pip install ./engine ./clients/python)")
    return bot


class Site(Process):
    """The site on a fixed free port, so that it can be killed and started again
    at the same address."""

    def __init__(self, env: dict[str, str], log: Path) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        command = [PYTHON, "-m", "uvicorn", "splendor_site.asgi:application", "--host", "127.0.0.1",
                   "--port", str(self.port)]  # fmt: skip
        super().__init__("site", command, env, log)

    def start(self) -> Site:
        super().start()
        wait_for(self._up, timeout=45, what="the site answering /healthz", explain=self.tail)
        return self

    def _up(self) -> bool:
        try:
            return requests.get(self.url + "/healthz", timeout=2).status_code == 200
        except requests.RequestException:
            return False


@dataclass
class Table:
    site: Site
    api: Api
    env: dict[str, str]
    tmp_path: Path
    bot: Path

    def runner(self, who: str, *args: str, settings: tuple[str, ...] | None = None) -> Process:
        """``who``'s splendor-bot; ``settings`` in place of the flags' own (a --config run)."""
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "PYTHONUNBUFFERED": "1",
            "SPLENDOR_TOKEN": self.api.tokens[who],
        }
        # -vv: everything, httpx's request lines too, so that the token's absence means something.
        if settings is None:
            settings = ("--server", self.site.url, "--bot", "greedy", "--seed", "7", "-vv")
        command = [str(self.bot), *settings, *args]
        return Process(f"splendor-bot ({who})", command, env, self.tmp_path / f"bot-{who}.log").start()

    def explain(self, *processes: Process) -> str:
        return "\n".join(p.tail(40) for p in (self.site, *processes))


@pytest.fixture
def table(tmp_path: Path) -> Iterator[Table]:
    bot = client_bot()
    env = site_env(
        tmp_path,
        database_url=f"sqlite:///{tmp_path / 'db.sqlite3'}",
        broker_url=None,
        STREAM_POLL_SECONDS="0.1",
        STREAM_WSGI_POLL_SECONDS="0.1",
        STREAM_HEARTBEAT_SECONDS="5",
    )
    migrated(env)
    tokens = player_tokens(env, ("alice", "bob"))
    site = Site(env, tmp_path / "site.log").start()
    try:
        yield Table(site, Api(site.url, tokens), env, tmp_path, bot)
    finally:
        site.stop()


def wait_for_exit(process: Process, table: Table, *others: Process) -> int:
    def exited() -> bool:
        return not process.alive()

    wait_for(exited, timeout=GAME_SECONDS, what=f"{process.name} exiting", every=0.5,
             explain=lambda: table.explain(process, *others))  # fmt: skip
    assert process.process is not None
    return process.process.returncode


def the_game(api: Api) -> dict[str, Any]:
    games = api.call("alice", "GET", "/api/v1/games/?mine=1")["results"]
    assert len(games) == 1, games
    return dict(api.game("alice", games[0]["id"]))


def assert_played_to_the_end(table: Table, *runners: Process) -> None:
    # Each runner is waited for in turn; only when a wait fails are the others
    # stopped (stopping them as soon as the first had exited killed a second one
    # that was still closing its connections, and its status was SIGTERM's).
    try:
        statuses = [wait_for_exit(runner, table, *runners) for runner in runners]
    finally:
        for runner in runners:
            if runner.alive():
                runner.stop()
    assert statuses == [0] * len(runners), table.explain(*runners)
    game = the_game(table.api)
    assert game["status"] == "finished", game
    assert game["result"] is not None and game["result"]["winners"], game["result"]
    moves = table.api.call("bob", "GET", f"/api/v1/games/{game['id']}/moves/")
    # The runners chose the moves (a forced pass is the server's; no turn timed out).
    assert sum(m["played_by"] == "player" for m in moves) >= 20
    assert all(m["played_by"] != "bot" for m in moves)
    for runner in runners:
        log = runner.output()
        assert "game over: " + game["id"] in log, runner.tail()
        assert all(token not in log for token in table.api.tokens.values())
        assert "HTTP Request: GET" in log  # httpx's own logging was on


def test_two_runners_play_a_game_from_invitation_to_result(table: Table) -> None:
    bob = table.runner("bob", "--accept-invitations", "--exit-when-done")
    alice = table.runner("alice", "--create", "base:2", "--invite", "bob", "--games", "1", "--exit-when-done")

    assert_played_to_the_end(table, alice, bob)
    assert "invitation accepted" in bob.output()
    assert "played `" in alice.output() and "played `" in bob.output()


def test_the_runners_finish_the_game_after_the_site_is_killed_and_started_again(table: Table) -> None:
    bob = table.runner("bob", "--accept-invitations", "--exit-when-done")
    alice = table.runner("alice", "--create", "base:2", "--invite", "bob", "--games", "1", "--exit-when-done")

    def some_moves_played() -> bool:
        games = table.api.call("alice", "GET", "/api/v1/games/?mine=1")["results"]
        return bool(games) and games[0]["status"] == "active" and games[0]["version"] >= 8

    wait_for(some_moves_played, timeout=60, what="the game under way", every=0.1,
             explain=lambda: table.explain(alice, bob))  # fmt: skip
    table.site.kill(signal.SIGKILL)
    time.sleep(3)  # long enough for both runners to notice and start backing off
    table.site.start()

    assert_played_to_the_end(table, alice, bob)
    for runner in (alice, bob):
        assert "stream lost" in runner.output() or "stream ended by the server" in runner.output(), runner.tail()
        assert "resuming after event" in runner.output(), runner.tail()



def test_a_runner_set_up_by_its_config_file_plays_the_search_bot_and_greets_once(table: Table) -> None:
    config = table.tmp_path / "bot.toml"
    config.write_text(
        f'server = "{table.site.url}"\n'
        'bot = "ismcts"\n'
        "playouts = 300\n"
        "seed = 7\n"
        "exit_when_done = true\n"
        'greeting = "Good luck!"\n'
        "verbose = 2\n"
        "[create]\n"
        'variant = "base"\n'
        "seats = 2\n"
        'invite = ["bob"]\n'
    )
    started = time.monotonic()
    bob = table.runner("bob", "--accept-invitations", "--accept-variant", "base", "--accept-from", "alice",
                       "--max-games", "1", "--exit-when-done")  # fmt: skip
    alice = table.runner("alice", settings=("--config", str(config)))

    assert_played_to_the_end(table, alice, bob)
    took = time.monotonic() - started
    game = the_game(table.api)
    assert "bot: ismcts (300 playouts a move)" in alice.output()
    assert "said the greeting" in alice.output() and "said the greeting" not in bob.output()
    lines = table.api.call("bob", "GET", f"/api/v1/games/{game['id']}/chat/")["lines"]
    alice_seat = next(s["seat"] for s in game["seats"] if s["username"] == "alice")
    assert [(line["seat"], line["text"]) for line in lines] == [(alice_seat, "Good luck!")]
    assert took < 60, f"a game of the 300-playout search bot took {took:.0f} s"
