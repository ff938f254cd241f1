"""splendor-bot at the table: the accept filters decline what fails them, max_games
holds invitations and creations back until a game ends, and the greeting is said
once per real game (never in a practice game), waiting out a 429.

The account is alice; carol and dave invite her; g-ids are games."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Awaitable, Callable
from typing import Any

import httpx
import pytest
from client_fakes import SERVER, TOKEN, AsyncSleeps, FakeServer, LastMoveBot, problem
from splendor_client import AsyncClient, RetryPolicy
from splendor_client.runner import Options, Runner
from splendor_client.runner_config import AcceptFilter

HOUR = 3600


def invitation(game_id: str, *, by: str = "carol", variant: str = "base", seats: int = 2, rated: bool = False,
               move_seconds: int | None = 72 * HOUR) -> dict[str, Any]:
    """An open game with a seat reserved for alice, as GET /api/v1/games/{id}/ gives it."""
    reserved = [{"username": "alice", "invited": True, "joined": False}]
    others = [{"username": by, "invited": False, "joined": True}] + [
        {"username": "", "invited": False, "joined": False} for _ in range(seats - 2)
    ]
    control = None if move_seconds is None else {"move_seconds": move_seconds, "bank_seconds": 0, "bank_cap_seconds": 0}
    return {"id": game_id, "kind": "real", "status": "open", "version": 1, "variant": variant, "seat_count": seats,
            "rated": rated, "created_by": by, "time_control": control, "seats": others + reserved}  # fmt: skip


def active(game_id: str, *, kind: str = "real", seat: int = 0) -> dict[str, Any]:
    return {"id": game_id, "kind": kind, "status": "active", "version": 3, "variant": "base", "your_seat": seat,
            "created_by": "carol", "seats": []}  # fmt: skip


class TableServer(FakeServer):
    """FakeServer with declines, the players' chat thread, and a new id per created
    game; a creation may be held (``create_gate``) or refused (``create_answers``),
    a game's read answered first with ``game_answers``."""

    def __init__(self) -> None:
        super().__init__()
        self.chat: dict[str, list[dict[str, Any]]] = {}
        self.chat_answers: list[httpx.Response] = []
        self.created = 0
        self.create_gate: asyncio.Event | None = None
        self.create_answers: list[httpx.Response] = []
        self.game_answers: list[httpx.Response] = []
        self.game_gates: dict[str, asyncio.Event] = {}  # a game's read waits for its event

    def said(self, game_id: str | None = None) -> list[tuple[str, str]]:
        return [(r.url.path.split("/")[4], json.loads(r.content)["text"]) for r in self.requests
                if r.method == "POST" and r.url.path.endswith("/chat/")
                and (game_id is None or f"/{game_id}/" in r.url.path)]  # fmt: skip

    async def handler(self, request: httpx.Request) -> httpx.Response:
        path = request.url.path.removeprefix("/api/v1/")
        parts = path.split("/")
        if path == "games/" and request.method == "POST":
            self.requests.append(request)
            if self.create_gate is not None:
                await self.create_gate.wait()
            if self.create_answers:
                return self.create_answers.pop(0)
            self.created += 1
            game = {**active(f"n{self.created}"), "status": "open"}
            self.games[game["id"]] = game
            return httpx.Response(201, json=game)
        if len(parts) == 3 and request.method == "GET" and parts[1] in self.game_gates:
            await self.game_gates[parts[1]].wait()
        if len(parts) == 3 and request.method == "GET" and self.game_answers:
            self.requests.append(request)
            return self.game_answers.pop(0)
        if len(parts) > 3 and parts[2] == "decline":
            self.requests.append(request)
            return httpx.Response(200, json=self.games[parts[1]])
        if len(parts) > 3 and parts[2] == "chat":
            self.requests.append(request)
            game_id, lines = parts[1], self.chat.setdefault(parts[1], [])
            if request.method == "GET":
                after = int(request.url.params.get("after", "0"))
                return httpx.Response(200, json={"game_id": game_id, "thread": "players",
                                                 "lines": [line for line in lines if line["id"] > after]})  # fmt: skip
            if self.chat_answers:
                return self.chat_answers.pop(0)
            line = {"id": len(lines) + 1, "thread": "players", "author_id": 1, "author": "Alice", "seat": 0,
                    "text": json.loads(request.content)["text"], "hidden": False, "erased": False, "created_at": ""}
            lines.append(line)
            return httpx.Response(201, json=line)
        return await super().handler(request)


async def until(check: Callable[[], bool], what: str) -> None:
    for _ in range(500):
        if check():
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"never happened: {what}")


async def play(server: TableServer, options: Options, script: Callable[[Runner], Awaitable[None]] | None = None,
               *, retry: RetryPolicy | None = None, sleeps: AsyncSleeps | None = None) -> int:
    """Runs the runner against ``server`` while ``script`` feeds the stream; its exit status."""
    client = AsyncClient(SERVER, TOKEN, retry=retry, transport=httpx.MockTransport(server.handler))
    async with client:
        runner = Runner(client, LastMoveBot, options, sleep=sleeps or AsyncSleeps())
        running = asyncio.ensure_future(runner.run())
        if script is not None:
            await script(runner)
        return await asyncio.wait_for(running, timeout=10)


# --- the accept filters ------------------------------------------------------------


@pytest.mark.parametrize(
    "accept, game, why",
    [
        (AcceptFilter(variants=("base",)), invitation("g", variant="marvel"), "variant marvel is not in accept.variants (base)"),
        (AcceptFilter(seats=(2,)), invitation("g", seats=3), "3 seats is not in accept.seats (2)"),
        (AcceptFilter(rated=False), invitation("g", rated=True), "it is rated (accept.rated is false)"),
        (AcceptFilter(rated=True), invitation("g"), "it is not rated (accept.rated is true)"),
        (AcceptFilter(players=("carol",)), invitation("g", by="dave"), "dave is not in accept.from (carol)"),
        (AcceptFilter(min_move_hours=24), invitation("g", move_seconds=2 * HOUR), "2 h a move is under accept.min_move_hours (24)"),
        (AcceptFilter(max_move_hours=72), invitation("g", move_seconds=168 * HOUR), "168 h a move is over accept.max_move_hours (72)"),
        (AcceptFilter(max_move_hours=72), invitation("g", move_seconds=None), "no time limit a move is over accept.max_move_hours (72)"),
    ],
)
def test_an_invitation_that_fails_a_filter_is_refused_with_the_filter_s_name(accept: AcceptFilter, game: dict[str, Any], why: str) -> None:
    assert accept.refusal(game) == why


def test_an_invitation_that_passes_every_filter_is_not_refused() -> None:
    accept = AcceptFilter(variants=("base", "marvel"), seats=(2, 3), rated=False, players=("carol",),
                          min_move_hours=24, max_move_hours=72)  # fmt: skip
    assert accept.refusal(invitation("g", variant="marvel", seats=3, move_seconds=24 * HOUR)) is None
    assert accept.refusal(invitation("g", move_seconds=72 * HOUR)) is None
    assert AcceptFilter().refusal(invitation("g", variant="marvel", rated=True, move_seconds=None)) is None


@pytest.mark.anyio
async def test_an_invitation_failing_a_filter_is_declined_and_one_passing_is_accepted(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    server = TableServer()
    server.games["g2"] = invitation("g2", variant="marvel")
    server.games["g3"] = invitation("g3", by="dave")
    server.games["g4"] = invitation("g4")
    server.push("snapshot", {"games": [], "invitations": [{"game_id": g} for g in ("g2", "g3", "g4")]})
    server.on_join = lambda game_id: server.push("game_finished", {"game_id": game_id, "version": 9, "result": {}})
    options = Options(accept_invitations=True, accept=AcceptFilter(variants=("base",), players=("carol",)),
                      exit_when_done=True)  # fmt: skip

    assert await play(server, options) == 0

    posts = sorted(r.url.path for r in server.requests if r.method == "POST")
    assert posts == ["/api/v1/games/g2/decline/", "/api/v1/games/g3/decline/", "/api/v1/games/g4/join/"]
    assert "game g2: invitation from carol declined: variant marvel is not in accept.variants (base)" in caplog.text
    assert "game g3: invitation from dave declined: dave is not in accept.from (carol)" in caplog.text


# --- max_games -------------------------------------------------------------------


@pytest.mark.anyio
async def test_max_games_leaves_an_invitation_until_a_game_in_progress_ends(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    server = TableServer()
    server.games["g2"] = invitation("g2")
    # g1 is a game alice was already playing: it counts towards max_games.
    server.push("snapshot", {"games": [{"game_id": "g1", "status": "active", "your_turn": False}],
                             "invitations": [{"game_id": "g2"}]})  # fmt: skip
    server.on_join = lambda game_id: server.push("game_finished", {"game_id": game_id, "version": 9, "result": {}})

    async def script(runner: Runner) -> None:
        await until(lambda: "g2" in runner.waiting, "the invitation left for later")
        assert not server.posted("/join/")
        server.push("game_finished", {"game_id": "g1", "version": 9, "result": {}})

    options = Options(accept_invitations=True, max_games=1, exit_when_done=True)
    assert await play(server, options, script) == 0
    assert [r.url.path for r in server.requests if r.method == "POST"] == ["/api/v1/games/g2/join/"]
    assert "game g2: invitation from carol left for later: 1 games in progress (max_games 1)" in caplog.text


@pytest.mark.anyio
async def test_max_games_creates_the_next_game_only_when_one_ends() -> None:
    server = TableServer()
    server.push("snapshot", {"games": [], "invitations": []})

    async def script(runner: Runner) -> None:
        for game_id in ("n1", "n2"):
            await until(lambda: game_id in runner.playing, f"{game_id} created")
            await asyncio.sleep(0.05)
            assert len(server.posted("/games/")) == int(game_id[1]), "one game at a time"
            server.push("game_finished", {"game_id": game_id, "version": 9, "result": {}})

    options = Options(create=("base", 2), games=2, max_games=1, exit_when_done=True)
    assert await play(server, options, script) == 0
    assert len(server.posted("/games/")) == 2


@pytest.mark.anyio
async def test_a_creation_on_its_way_holds_its_place_so_a_waiting_invitation_does_not_pass_max_games() -> None:
    # When g1 ends, the waiting invitation g2 and the next game to create both
    # want its place: the creation, on its way to the server, must keep it.
    server = TableServer()
    server.games["g1"] = active("g1")
    server.games["g2"] = invitation("g2")
    server.push("snapshot", {"games": [{"game_id": "g1", "status": "active", "your_turn": False}],
                             "invitations": [{"game_id": "g2"}]})  # fmt: skip
    server.create_gate = asyncio.Event()
    in_progress: list[int] = []

    async def script(runner: Runner) -> None:
        await until(lambda: "g2" in runner.waiting, "the invitation left for later")
        # The invitation is read again while the creation is on its way.
        server.game_gates["g2"] = read_g2 = asyncio.Event()
        server.push("game_finished", {"game_id": "g1", "version": 9, "result": {}})
        await until(lambda: bool(server.posted("/games/")), "a game being created")
        read_g2.set()
        await asyncio.sleep(0.05)  # time for the invitation to be joined, if it were let through
        in_progress.append(len(server.posted("/games/")) + len(server.posted("/join/")))
        assert not server.posted("/join/"), "max_games 1: the invitation waits while a game is being created"
        server.create_gate.set()
        await until(lambda: "n1" in runner.playing, "n1 created")
        server.push("game_finished", {"game_id": "n1", "version": 9, "result": {}})

    server.on_join = lambda game_id: server.push("game_finished", {"game_id": game_id, "version": 9, "result": {}})
    options = Options(create=("base", 2), games=1, accept_invitations=True, max_games=1)
    running = asyncio.ensure_future(play(server, options, script))
    await until(lambda: bool(server.posted("/join/")), "g2 joined once n1 is over")
    running.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await running
    assert in_progress == [1]


@pytest.mark.anyio
async def test_a_refused_join_frees_its_place_for_a_waiting_invitation() -> None:
    server = TableServer()
    server.games["g2"] = invitation("g2")
    server.games["g3"] = invitation("g3", by="dave")
    server.game_gates["g3"] = read_g3 = asyncio.Event()
    refuse_g2 = asyncio.Event()
    server.push("snapshot", {"games": [], "invitations": [{"game_id": "g2"}, {"game_id": "g3"}]})
    original = server.handler

    async def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/g2/join/"):
            server.requests.append(request)
            await refuse_g2.wait()
            return problem(409, "seat_taken", "The seat is gone.")
        return await original(request)

    server.handler = handler  # type: ignore[method-assign]
    server.on_join = lambda game_id: server.push("game_finished", {"game_id": game_id, "version": 9, "result": {}})

    async def script(runner: Runner) -> None:
        await until(lambda: any(r.url.path.endswith("/g2/join/") for r in server.requests), "g2 being joined")
        read_g3.set()
        await until(lambda: "g3" in runner.waiting, "g3 left for later: g2's join holds the one place")
        refuse_g2.set()

    options = Options(accept_invitations=True, max_games=1, exit_when_done=True)
    assert await play(server, options, script) == 0
    assert len(server.posted("/g3/join/")) == 1


@pytest.mark.anyio
async def test_a_game_creation_refused_after_start_up_ends_the_run_with_status_1(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    server = TableServer()
    server.push("snapshot", {"games": [], "invitations": []})

    async def script(runner: Runner) -> None:
        await until(lambda: "n1" in runner.playing, "n1 created")
        server.create_answers = [problem(400, "unknown_player", "No player bob.")]
        server.push("game_finished", {"game_id": "n1", "version": 9, "result": {}})

    options = Options(create=("base", 2), invite=("bob",), games=3, max_games=1, exit_when_done=True)
    assert await play(server, options, script) == 1
    assert len(server.posted("/games/")) == 2
    assert "the server refused to create a game (base, 2 seats, inviting bob): " in caplog.text
    assert "No player bob." in caplog.text


@pytest.mark.anyio
async def test_a_game_creation_refused_on_starting_ends_the_run_with_status_1(caplog: pytest.LogCaptureFixture) -> None:
    server = TableServer()
    server.create_answers = [problem(400, "unknown_player", "No player bob.")]
    server.push("snapshot", {"games": [], "invitations": []})
    assert await play(server, Options(create=("base", 2), invite=("bob",), exit_when_done=True)) == 1
    assert "the server refused to create a game (base, 2 seats, inviting bob)" in caplog.text


@pytest.mark.anyio
async def test_a_turn_replayed_for_a_game_already_over_holds_no_place() -> None:
    server = TableServer()
    server.games["g2"] = invitation("g2")
    server.push("snapshot", {"games": [{"game_id": "g1", "status": "active", "your_turn": False}], "invitations": []})
    server.push("game_finished", {"game_id": "g1", "version": 9, "result": {}})
    # A your_turn of g1 replayed after its end (a reconnect's replay), then an invitation.
    server.push("your_turn", {"game_id": "g1", "version": 8})
    server.push("game_created", {"game_id": "g2", "version": 1})
    server.on_join = lambda game_id: server.push("game_finished", {"game_id": game_id, "version": 9, "result": {}})

    async def script(runner: Runner) -> None:
        await until(lambda: bool(server.posted("/join/")), "g2 joined")
        assert "g1" not in runner.playing

    options = Options(accept_invitations=True, max_games=1, exit_when_done=True)
    assert await play(server, options, script) == 0


def resigned(game_id: str, *, seat: int = 0) -> dict[str, Any]:
    """An active game of 3 seats where alice's seat (``seat``) has resigned; it goes on."""
    game = active(game_id, seat=seat)
    game["seats"] = [{"seat": i, "username": "alice" if i == seat else f"p{i}", "resigned": i == seat}
                     for i in range(3)]  # fmt: skip
    return game


@pytest.mark.anyio
async def test_a_game_the_account_resigned_counts_for_no_place_and_is_not_greeted(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    server = TableServer()
    server.games["g1"] = resigned("g1", seat=1)
    server.games["g2"] = invitation("g2")
    # The snapshot lists g1 (alice still has a seat there) with your_turn false.
    server.push("snapshot", {"games": [{"game_id": "g1", "status": "active", "your_turn": False}],
                             "invitations": [{"game_id": "g2"}]})  # fmt: skip
    server.on_join = lambda game_id: server.push("game_finished", {"game_id": game_id, "version": 9, "result": {}})

    options = Options(accept_invitations=True, max_games=1, games=1, exit_when_done=True, greeting="hi")
    assert await play(server, options) == 0
    assert [r.url.path for r in server.requests if r.method == "POST"] == ["/api/v1/games/g2/join/"]
    assert not any("/g1/chat/" in r.url.path for r in server.requests), "no greeting from a seat that resigned"
    assert "game g1: this account's seat has left the game" in caplog.text


@pytest.mark.anyio
async def test_a_seat_resigned_event_of_this_account_frees_its_place() -> None:
    server = TableServer()
    server.games["g2"] = invitation("g2")
    original = server.handler

    async def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/api/v1/me/":
            server.requests.append(request)
            return httpx.Response(200, json={"id": 7, "username": "alice", "scopes": ["play", "read"]})
        return await original(request)

    server.handler = handler  # type: ignore[method-assign]
    server.push("snapshot", {"games": [{"game_id": "g1", "status": "active", "your_turn": True}],
                             "invitations": [{"game_id": "g2"}]})  # fmt: skip
    server.games["g1"] = active("g1")
    server.legal["g1"] = {"version": 3, "to_move": 1, "your_seat": 0, "moves": []}
    server.on_join = lambda game_id: server.push("game_finished", {"game_id": game_id, "version": 9, "result": {}})

    async def script(runner: Runner) -> None:
        await until(lambda: "g2" in runner.waiting, "the invitation left for later")
        server.push("seat_resigned", {"game_id": "g1", "version": 4, "seat": 0, "user_id": 8, "reason": "resignation"})
        await asyncio.sleep(0.05)
        assert not server.posted("/join/"), "another player's resignation frees nothing"
        server.push("seat_resigned", {"game_id": "g1", "version": 5, "seat": 0, "user_id": 7, "reason": "resignation"})

    options = Options(accept_invitations=True, max_games=1, games=1, exit_when_done=True)
    assert await play(server, options, script) == 0
    assert len(server.posted("/join/")) == 1


# --- the greeting ----------------------------------------------------------------


@pytest.mark.anyio
async def test_the_greeting_is_said_once_in_a_real_game_and_never_in_a_practice_game(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    server = TableServer()
    server.games["g1"] = active("g1")
    server.games["p1"] = active("p1", kind="practice")
    server.push("snapshot", {"games": [{"game_id": "g1", "status": "active", "your_turn": False},
                                       {"game_id": "p1", "status": "active", "your_turn": False}]})  # fmt: skip

    async def script(runner: Runner) -> None:
        await until(lambda: bool(server.said()), "the greeting")
        server.push("game_started", {"game_id": "g1", "version": 3})  # a replayed start: no second greeting
        server.push("game_started", {"game_id": "p1", "version": 3})
        await asyncio.sleep(0.05)
        for game_id in ("g1", "p1"):
            server.push("game_finished", {"game_id": game_id, "version": 9, "result": {}})

    assert await play(server, Options(exit_when_done=True, greeting="Good luck, have fun!"), script) == 0
    assert server.said() == [("g1", "Good luck, have fun!")]
    assert not any("/p1/chat/" in r.url.path for r in server.requests), "a practice game has no table talk"
    assert "game g1: said the greeting" in caplog.text


@pytest.mark.anyio
async def test_a_greeting_said_by_an_earlier_run_is_not_said_again() -> None:
    server = TableServer()
    server.games["g1"] = active("g1", seat=1)
    # The thread's first line is the greeting from alice's seat; 100 lines of talk follow.
    server.chat["g1"] = [{"id": 1, "seat": 1, "text": "gl"}] + [{"id": i, "seat": 0, "text": "hm"} for i in range(2, 102)]
    server.push("snapshot", {"games": [{"game_id": "g1", "status": "active", "your_turn": False}]})

    async def script(runner: Runner) -> None:
        await until(lambda: sum(r.url.path.endswith("/chat/") for r in server.requests) >= 1, "the thread read")
        await asyncio.sleep(0.05)
        server.push("game_finished", {"game_id": "g1", "version": 9, "result": {}})

    assert await play(server, Options(exit_when_done=True, greeting="gl"), script) == 0
    assert server.said() == []
    reads = [r.url.params.get("after") for r in server.requests if r.url.path.endswith("/chat/")]
    assert reads[0] == "0", "the thread is read from its first line, not its latest 100"


@pytest.mark.anyio
async def test_the_same_words_from_another_seat_do_not_count_as_the_greeting() -> None:
    server = TableServer()
    server.games["g1"] = active("g1", seat=1)
    server.chat["g1"] = [{"id": 1, "seat": 0, "text": "gl"}]  # carol's, at seat 0
    server.push("snapshot", {"games": [{"game_id": "g1", "status": "active", "your_turn": False}]})

    async def script(runner: Runner) -> None:
        await until(lambda: bool(server.said()), "the greeting")
        server.push("game_finished", {"game_id": "g1", "version": 9, "result": {}})

    assert await play(server, Options(exit_when_done=True, greeting="gl"), script) == 0
    assert server.said() == [("g1", "gl")]


@pytest.mark.anyio
async def test_a_429_from_the_table_talk_is_waited_out_and_the_greeting_said(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    server = TableServer()
    server.games["g1"] = active("g1")
    too_many = problem(429, "too_many_chat_messages", "Wait a little.", retry_after=7)
    too_many.headers["Retry-After"] = "7"
    server.chat_answers = [too_many, too_many]
    server.push("snapshot", {"games": [{"game_id": "g1", "status": "active", "your_turn": False}]})
    sleeps = AsyncSleeps()

    async def script(runner: Runner) -> None:
        await until(lambda: bool(server.chat.get("g1")), "the greeting posted")
        server.push("game_finished", {"game_id": "g1", "version": 9, "result": {}})

    # The client gives up on a 429 at once (no retries of its own): the runner waits.
    options = Options(exit_when_done=True, greeting="Hello")
    assert await play(server, options, script, retry=RetryPolicy(max_retries=0), sleeps=sleeps) == 0
    assert sleeps.waits == [7.0, 7.0]
    assert len(server.said()) == 3 and [line["text"] for line in server.chat["g1"]] == ["Hello"]
    assert "game g1: the server asks to wait (too_many_chat_messages); greeting in 7 s" in caplog.text


@pytest.mark.anyio
async def test_an_open_game_is_greeted_when_it_starts() -> None:
    server = TableServer()
    server.games["g1"] = {**active("g1"), "status": "open"}
    server.push("snapshot", {"games": [{"game_id": "g1", "status": "open", "your_turn": False}]})

    async def script(runner: Runner) -> None:
        await asyncio.sleep(0.05)
        assert server.said() == []  # nobody to talk to yet
        server.games["g1"]["status"] = "active"
        server.push("game_started", {"game_id": "g1", "version": 2})
        await until(lambda: bool(server.said()), "the greeting")
        server.push("game_finished", {"game_id": "g1", "version": 9, "result": {}})

    assert await play(server, Options(exit_when_done=True, greeting="hi"), script) == 0
    assert server.said() == [("g1", "hi")]


@pytest.mark.anyio
@pytest.mark.parametrize("greeting", ["gl ", "gl\n", "\tgl", "g\u200bl\r\n"])
async def test_a_greeting_the_server_cleaned_is_not_said_again_after_a_restart(greeting: str) -> None:
    # The server stores "gl" for each of these (ends trimmed, format characters removed).
    server = TableServer()
    server.games["g1"] = active("g1", seat=1)
    server.chat["g1"] = [{"id": 1, "seat": 1, "text": "gl"}]
    server.push("snapshot", {"games": [{"game_id": "g1", "status": "active", "your_turn": False}]})

    async def script(runner: Runner) -> None:
        await until(lambda: any(r.url.path.endswith("/chat/") for r in server.requests), "the thread read")
        await asyncio.sleep(0.05)
        server.push("game_finished", {"game_id": "g1", "version": 9, "result": {}})

    assert await play(server, Options(exit_when_done=True, greeting=greeting), script) == 0
    assert server.said() == []


@pytest.mark.anyio
async def test_the_greeting_is_said_as_the_server_will_store_it() -> None:
    server = TableServer()
    server.games["g1"] = active("g1")
    server.push("snapshot", {"games": [{"game_id": "g1", "status": "active", "your_turn": False}]})

    async def script(runner: Runner) -> None:
        await until(lambda: bool(server.said()), "the greeting")
        server.push("game_finished", {"game_id": "g1", "version": 9, "result": {}})

    assert await play(server, Options(exit_when_done=True, greeting="  Good\tluck!\n"), script) == 0
    assert server.said() == [("g1", "Good luck!")]


@pytest.mark.anyio
async def test_a_429_on_reading_the_game_before_the_greeting_is_waited_out() -> None:
    server = TableServer()
    server.games["g1"] = active("g1")
    too_many = problem(429, "too_many_requests", "Slow down.", retry_after=3)
    too_many.headers["Retry-After"] = "3"
    server.game_answers = [too_many]
    server.push("snapshot", {"games": [{"game_id": "g1", "status": "active", "your_turn": False}]})
    sleeps = AsyncSleeps()

    async def script(runner: Runner) -> None:
        await until(lambda: bool(server.said()), "the greeting")
        server.push("game_finished", {"game_id": "g1", "version": 9, "result": {}})

    options = Options(exit_when_done=True, greeting="hi")
    assert await play(server, options, script, retry=RetryPolicy(max_retries=0), sleeps=sleeps) == 0
    assert sleeps.waits == [3.0]
    assert server.said() == [("g1", "hi")]
