"""splendor-bot: plays what the stream says, accepts invitations, keeps the token secret."""

from __future__ import annotations

import asyncio
import logging
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from client_fakes import SERVER, TOKEN, FakeServer, LastMoveBot, TimedBot, WrongBot, problem
from splendor_client import AsyncClient, RetryPolicy, runner
from splendor_client.runner import Options, Runner, load_bot, takes_clock

import engine
from engine.bots import GreedyBot


def position(seed: int = 1) -> tuple[dict[str, Any], list[str]]:
    """A real seat's view and its legal moves, from the engine."""
    state = engine.new_game("base", 2, seed=seed)
    view = engine.observe(state, engine.to_move(state))
    return dict(view), [engine.format_move(m) for m in engine.legal_moves(state)]


async def run(server: FakeServer, options: Options, bot: Any = LastMoveBot) -> int:
    client = AsyncClient(SERVER, TOKEN, transport=httpx.MockTransport(server.handler))
    async with client:
        return await asyncio.wait_for(Runner(client, bot, options).run(), timeout=10)


def finish_after_move(server: FakeServer) -> None:
    server.on_move = lambda game_id, body: server.push(
        "game_finished", {"game_id": game_id, "version": 9, "result": {"winners": [0], "scores": [15, 9]}}
    )


@pytest.mark.anyio
async def test_a_your_turn_event_is_played_with_the_bot_s_move_at_the_event_s_version(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    view, legal = position()
    server = FakeServer()
    server.push("snapshot", {"games": [], "invitations": []})
    server.push("your_turn", {"game_id": "g1", "version": 3, "variant": "base", "seat": 0, "view": view, "legal_moves": legal})
    finish_after_move(server)

    status = await run(server, Options(create=("base", 2), invite=("bob",), exit_when_done=True))

    assert status == 0
    assert server.posted("/games/") == [{"variant": "base", "seats": 2, "invited": ["bob"]}]
    assert server.posted("/g1/moves/") == [{"move": legal[-1], "expected_version": 3}]
    move_request = next(r for r in server.requests if r.url.path.endswith("/moves/"))
    assert len(move_request.headers["Idempotency-Key"]) == 36
    assert f"game g1: played `{legal[-1]}` at version 3" in caplog.text
    assert "game over: g1" in caplog.text


@pytest.mark.anyio
async def test_a_turn_replayed_after_a_reconnect_is_not_played_twice() -> None:
    view, legal = position()
    server = FakeServer()
    server.push("snapshot", {"games": [], "invitations": []})  # a new stream's first event
    turn = {"game_id": "g1", "version": 3, "variant": "base", "seat": 0, "view": view, "legal_moves": legal}
    server.push("your_turn", turn)

    def after_move(game_id: str, body: dict[str, Any]) -> None:
        server.push("your_turn", turn)  # the same turn again, as a replay would
        server.push("game_finished", {"game_id": game_id, "version": 9, "result": {}})

    server.on_move = after_move
    assert await run(server, Options(create=("base", 2), exit_when_done=True)) == 0
    assert len(server.posted("/moves/")) == 1


@pytest.mark.anyio
async def test_a_stale_version_is_read_again_and_played_at_the_new_version() -> None:
    view, legal = position()
    server = FakeServer()
    server.move_answers = [problem(409, "stale_version", "The game has moved on.", current_version=5)]
    server.games["g1"] = {"id": "g1", "status": "active", "version": 5, "board": view, "deadline_at": None, "seats": []}
    server.legal["g1"] = {"version": 5, "to_move": 0, "your_seat": 0, "moves": legal}
    server.push("snapshot", {"games": [], "invitations": []})
    server.push("your_turn", {"game_id": "g1", "version": 3, "variant": "base", "seat": 0, "view": view, "legal_moves": legal})
    finish_after_move(server)

    assert await run(server, Options(create=("base", 2), exit_when_done=True)) == 0
    assert [b["expected_version"] for b in server.posted("/moves/")] == [3, 5]
    keys = [r.headers["Idempotency-Key"] for r in server.requests if r.url.path.endswith("/moves/")]
    assert keys[0] != keys[1], "a new choice is a new request"


@pytest.mark.anyio
async def test_an_illegal_move_from_the_bot_is_logged_and_the_greedy_bot_plays_instead(caplog: pytest.LogCaptureFixture) -> None:
    view, legal = position()
    server = FakeServer()
    server.push("snapshot", {"games": [], "invitations": []})
    server.push("your_turn", {"game_id": "g1", "version": 3, "variant": "base", "seat": 0, "view": view, "legal_moves": legal})
    finish_after_move(server)

    assert await run(server, Options(create=("base", 2), exit_when_done=True), bot=WrongBot) == 0
    assert server.posted("/moves/") == [{"move": GreedyBot().choose(view, legal), "expected_version": 3}]  # type: ignore[arg-type]
    assert "'take ZZZ', which is not a legal move" in caplog.text


@pytest.mark.anyio
async def test_a_snapshot_turn_is_read_from_the_api_and_a_bot_with_a_clock_gets_the_seconds_left() -> None:
    view, legal = position()
    server = FakeServer()
    deadline = (datetime.now(UTC) + timedelta(hours=2)).isoformat()
    server.games["g1"] = {"id": "g1", "status": "active", "version": 4, "board": view, "deadline_at": deadline, "seats": []}
    server.legal["g1"] = {"version": 4, "to_move": 0, "your_seat": 0, "moves": legal}
    server.push("snapshot", {"games": [{"game_id": "g1", "variant": "base", "status": "active", "version": 4,
                                        "seat": 0, "to_move": 0, "your_turn": True}], "invitations": []})
    finish_after_move(server)
    TimedBot.clocks = []

    assert await run(server, Options(create=("base", 2), exit_when_done=True), bot=TimedBot) == 0
    assert server.posted("/g1/moves/") == [{"move": legal[0], "expected_version": 4}]
    assert len(TimedBot.clocks) == 1 and 7000 < (TimedBot.clocks[0] or 0) <= 7200


@pytest.mark.anyio
async def test_an_invitation_is_accepted_and_its_game_played_to_the_end(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    view, legal = position()
    server = FakeServer()
    seats = [{"username": "carol", "invited": False, "joined": True}, {"username": "alice", "invited": True, "joined": False}]
    server.games["g2"] = {"id": "g2", "status": "open", "version": 1, "variant": "base", "created_by": "carol", "seats": seats}
    # The snapshot and a replayed game_created both tell of the invitation: one join.
    server.push("snapshot", {"games": [], "invitations": [{"game_id": "g2", "variant": "base", "seats": 2, "version": 1}]})
    server.push("game_created", {"game_id": "g2", "version": 1, "variant": "base", "seats": 2, "creator_id": 3, "invited_ids": [4]})
    server.on_join = lambda game_id: server.push(
        "your_turn", {"game_id": game_id, "version": 3, "variant": "base", "seat": 0, "view": view, "legal_moves": legal}
    )
    finish_after_move(server)

    assert await run(server, Options(accept_invitations=True, exit_when_done=True)) == 0
    assert [r.url.path for r in server.requests if r.method == "POST"] == ["/api/v1/games/g2/join/", "/api/v1/games/g2/moves/"]
    assert "game g2: invitation accepted" in caplog.text


@pytest.mark.anyio
async def test_an_invitation_is_left_alone_without_accept_invitations() -> None:
    server = FakeServer()
    server.push("game_created", {"game_id": "g2", "version": 1, "invited_ids": [4]})
    server.events.put_nowait(None)  # the stream ends; the runner would reconnect: stop it first
    client = AsyncClient(SERVER, TOKEN, transport=httpx.MockTransport(server.handler))
    async with client:
        the_runner = Runner(client, LastMoveBot, Options())
        async for event in client.stream():
            the_runner.handle(event)
            break
        await asyncio.sleep(0)
    assert not the_runner.tasks and [r.method for r in server.requests] == ["GET"]


@pytest.mark.anyio
async def test_a_bot_restarted_mid_game_with_exit_when_done_exits_when_that_game_ends(caplog: pytest.LogCaptureFixture) -> None:
    # Neither --create nor --accept-invitations: the run's games are those it finds.
    caplog.set_level(logging.INFO)
    server = FakeServer()
    server.push("snapshot", {"games": [{"game_id": "g1", "status": "active", "version": 7, "your_turn": False}]})
    server.push("game_finished", {"game_id": "g1", "version": 9, "result": {"winners": [0], "scores": [15, 9]}})

    assert await run(server, Options(exit_when_done=True)) == 0
    assert "game over: g1" in caplog.text


@pytest.mark.anyio
async def test_exit_when_done_with_no_game_to_create_accept_or_find_exits_at_once() -> None:
    server = FakeServer()
    server.push("snapshot", {"games": [], "invitations": [{"game_id": "g2", "variant": "base", "seats": 2, "version": 1}]})

    assert await run(server, Options(exit_when_done=True)) == 0
    assert not server.posted("/join/")


@pytest.mark.anyio
async def test_a_read_only_token_is_refused_at_once_rather_than_at_the_first_move(caplog: pytest.LogCaptureFixture) -> None:
    server = FakeServer()
    server.scopes = ["read"]

    assert await run(server, Options(accept_invitations=True)) == 1

    assert "a bot needs one with play" in caplog.text
    assert [r.url.path for r in server.requests] == ["/api/v1/me/"]  # no stream was opened


@pytest.mark.anyio
@pytest.mark.parametrize(
    "reason, said",
    [("replaced", "another program uses this token"), ("revoked", "the token was revoked, or the account disabled")],
)
async def test_a_stream_closed_by_the_server_says_why(reason: str, said: str, caplog: pytest.LogCaptureFixture) -> None:
    server = FakeServer()
    server.push("snapshot", {"games": [], "invitations": []})
    server.events.put_nowait({"event": "closed", "data": {"reason": reason}})

    assert await run(server, Options(accept_invitations=True)) == 1

    assert f"the server closed the stream ({reason}): {said}" in caplog.text


def test_the_token_is_never_logged_even_at_debug(monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture, capfd: pytest.CaptureFixture[str]) -> None:
    view, legal = position()
    server = FakeServer()
    server.push("snapshot", {"games": [{"game_id": "g1", "status": "active", "version": 3, "your_turn": False}]})
    server.push("your_turn", {"game_id": "g1", "version": 3, "variant": "base", "seat": 0, "view": view, "legal_moves": legal})
    server.move_answers = [problem(409, "not_your_turn", "It is bob's turn.")]
    server.legal["g1"] = {"version": 3, "to_move": 1, "your_seat": 0, "moves": []}
    server.games["g1"] = {"id": "g1", "status": "finished", "version": 9, "result": {"winners": [1]}, "seats": []}

    def after_refusal() -> None:
        server.push("game_finished", {"game_id": "g1", "version": 9, "result": {"winners": [1], "scores": [3, 15]}})

    original = server.handler

    async def handler(request: httpx.Request) -> httpx.Response:
        answer = await original(request)
        if request.url.path.endswith("/legal-moves/"):
            after_refusal()
        return answer

    monkeypatch.setattr(runner, "AsyncClient", lambda url, token: AsyncClient(url, token, transport=httpx.MockTransport(handler)))
    monkeypatch.setenv("SPLENDOR_TOKEN", TOKEN)
    caplog.set_level(logging.DEBUG)

    status = runner.main(["--server", SERVER, "--bot", "greedy", "--create", "base:2", "--exit-when-done", "-vv"])

    out, err = capfd.readouterr()
    assert status == 0
    assert "HTTP Request: POST https://splendor.test/api/v1/games/g1/moves/" in caplog.text  # httpx did log
    assert TOKEN not in caplog.text and TOKEN not in out and TOKEN not in err
    assert all(TOKEN not in str(record.__dict__) for record in caplog.records)
    assert any(r.headers.get("Authorization") == f"Bearer {TOKEN}" for r in server.requests)


def test_the_token_is_required(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.delenv("SPLENDOR_TOKEN", raising=False)
    with pytest.raises(SystemExit) as caught:
        runner.main(["--server", SERVER])
    assert caught.value.code == 2 and "SPLENDOR_TOKEN" in capsys.readouterr().err


def test_a_bad_create_spec_is_refused(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("SPLENDOR_TOKEN", TOKEN)
    with pytest.raises(SystemExit):
        runner.main(["--server", SERVER, "--create", "base"])
    assert "VARIANT:SEATS" in capsys.readouterr().err


def test_bots_load_by_engine_name_or_module_and_class() -> None:
    assert type(load_bot("greedy")()).__name__ == "GreedyBot"
    assert type(load_bot("client_fakes:LastMoveBot")()).__name__ == "LastMoveBot"
    with pytest.raises(ValueError, match="unknown bot"):
        load_bot("clever")
    with pytest.raises(ValueError, match="no class"):
        load_bot("client_fakes:Nothing")
    assert takes_clock(TimedBot()) and not takes_clock(LastMoveBot())


def test_a_bot_module_is_found_in_the_working_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # splendor-bot is a console script: its sys.path has the script's folder, not the
    # working directory, where a player keeps the mybot.py of the README.
    (tmp_path / "cwd_only_bot.py").write_text("class Hoarder:\n    def choose(self, view, legal_moves):\n        return legal_moves[0]\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", ".", str(tmp_path))])
    monkeypatch.delitem(sys.modules, "cwd_only_bot", raising=False)
    bot = load_bot("cwd_only_bot:Hoarder")()
    assert type(bot).__name__ == "Hoarder" and bot.choose({}, ["pass", "take WUG"]) == "pass"


def test_a_server_that_cannot_be_reached_is_said_plainly(monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("connection refused")

    fast = RetryPolicy(max_retries=1, backoff=0)
    monkeypatch.setattr(runner, "AsyncClient", lambda url, token: AsyncClient(url, token, retry=fast, transport=httpx.MockTransport(handler)))
    monkeypatch.setenv("SPLENDOR_TOKEN", TOKEN)
    assert runner.main(["--server", SERVER, "--accept-invitations"]) == 1
    assert f"cannot reach {SERVER}: ConnectError" in caplog.text
