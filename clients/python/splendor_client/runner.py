"""``splendor-bot``: plays every game of an account with a bot, as the events
arrive on the stream.

    SPLENDOR_TOKEN=spl_... splendor-bot --server https://splendor.example --bot greedy --accept-invitations

A bot is the engine's bot interface (``engine.bots.base.Bot``): an object with
``choose(view, legal_moves) -> str``, ``view`` the seat's ``engine.BoardView``
and ``legal_moves`` the canonical texts, sorted; a ``choose`` that also takes a
``clock`` keyword is given the seconds left on the turn (None when the game has
no deadline). ``--bot greedy`` / ``random`` / ``ismcts`` are the engine's bots
(``--playouts`` / ``--seconds``: the search bot's budget); ``--bot MODULE:CLASS``
any class whose instances are such a bot (made with no arguments, one per game;
``choose`` runs in a worker thread, so a slow bot holds up no other game).

The settings may come from a TOML file (``--config bot.toml``: every flag is
also a key, and a flag wins over its key; ``runner_config``).

When a ``MODULE:CLASS`` bot answers a move that is not legal, or raises, the
runner logs it and plays the engine's greedy bot's choice for that turn instead,
so that a faulty bot never stalls a game until its deadline.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import inspect
import logging
import os
import random
import sys
import time
import uuid
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol, TypeVar, cast

import httpx

from engine.bots import BOTS, make_bot

from .client import AsyncClient
from .errors import ApiError, AuthError, RateLimitedError
from .runner_config import AcceptFilter, Config, chat_clean, load, parser
from .stream import CLOSED, SNAPSHOT, YOUR_TURN, Event

logger = logging.getLogger("splendor_client.runner")

#: Games that are over: no more turns, and --exit-when-done may count them.
OVER = frozenset({"finished", "aborted"})
#: Refusals after which the runner reads the game again and goes on.
RE_READ = frozenset({"stale_version", "not_your_turn", "precondition_failed", "illegal_move", "ambiguous_move"})
MAX_TRIES_PER_TURN = 3
#: How long a turn waits for a server that cannot be reached (a restart).
PATIENCE_SECONDS = 300.0
#: How long the greeting waits after a 429 that names no Retry-After.
CHAT_WAIT_SECONDS = 60.0

_T = TypeVar("_T")


class BotLike(Protocol):
    """The engine's bot interface (``engine.bots.base.Bot``); ``choose`` may also
    take ``clock``."""

    def choose(self, view: Any, legal: Any) -> str: ...


BotFactory = Callable[[], BotLike]


def load_bot(
    spec: str, *, seed: int | None = None, playouts: int | None = None, seconds: float | None = None
) -> BotFactory:
    """A factory of bots from ``--bot``: an engine bot's name, or ``MODULE:CLASS``.
    ``playouts`` and ``seconds`` are the search bot's budget (``make_bot``'s); a
    bot that takes none is refused with them."""
    budget: dict[str, Any] = {}
    if playouts is not None:
        budget["playouts"] = playouts
    if seconds is not None:
        budget["seconds"] = seconds
    if ":" not in spec:
        if spec not in BOTS:
            raise ValueError(f"unknown bot {spec!r}: use one of {', '.join(sorted(BOTS))}, or MODULE:CLASS")
        make_bot(spec, **budget)  # a budget the bot takes none of is refused now, not at the first turn
        rng = random.Random(seed)
        return lambda: make_bot(spec, seed=rng.randrange(2**32), **budget)
    if budget:
        raise ValueError(f"a MODULE:CLASS bot takes no budget ({', '.join(sorted(budget))}); only ismcts does")
    module_name, _, class_name = spec.partition(":")
    # A console script's sys.path holds its own folder, not the working directory:
    # put that first, as uvicorn and gunicorn do, so that `--bot mybot:MyBot` finds
    # the mybot.py beside which it is run.
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise ValueError(f"cannot import the bot's module {module_name!r}: {exc}") from exc
    cls = getattr(module, class_name, None)
    if cls is None or not callable(cls):
        raise ValueError(f"module {module_name!r} has no class {class_name!r}")
    if not callable(getattr(cls, "choose", None)):
        raise ValueError(f"{spec} has no choose(view, legal_moves) method")
    return lambda: cls()


def takes_clock(bot: BotLike) -> bool:
    """Whether the bot's ``choose`` accepts a ``clock`` keyword."""
    try:
        parameters = inspect.signature(bot.choose).parameters
    except (TypeError, ValueError):
        return False
    return "clock" in parameters or any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values())


def _seconds_left(deadline_at: str | None) -> float | None:
    if not deadline_at:
        return None
    try:
        deadline = datetime.fromisoformat(deadline_at)  # 3.11 reads a trailing Z too
    except ValueError:
        return None
    return max(0.0, deadline.timestamp() - time.time())


@dataclass
class GameState:
    """What the runner knows of one game."""

    game_id: str
    bot: BotLike | None = None
    acted_version: int = -1  # the highest version a move was chosen on
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    over: bool = False
    resigned: bool = False  # this account's seat left the game: it plays and says nothing more there
    greeting: bool = False  # a greeting task was started for it (in this process)


@dataclass(frozen=True)
class Options:
    """What the runner does besides playing its games (``runner_config.Config``)."""

    accept_invitations: bool = False
    accept: AcceptFilter = AcceptFilter()
    create: tuple[str, int] | None = None
    invite: tuple[str, ...] = ()
    games: int | None = None
    max_games: int | None = None
    exit_when_done: bool = False
    greeting: str = ""

    @classmethod
    def of(cls, config: Config) -> Options:
        return cls(
            accept_invitations=config.accept_invitations,
            accept=config.accept,
            create=config.create,
            invite=config.invite,
            games=config.games,
            max_games=config.max_games,
            exit_when_done=config.exit_when_done,
            greeting=config.greeting,
        )


class Runner:
    """Plays an account's games from its event stream. ``run()`` returns the exit
    status: 0 when ``exit_when_done`` and every game it created or joined is over."""

    def __init__(
        self,
        client: AsyncClient,
        bots: BotFactory,
        options: Options,
        *,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self.client = client
        self.bots = bots
        self.options = options
        self.sleep = sleep
        self.username = ""
        self.user_id: int | None = None
        self.games: dict[str, GameState] = {}
        self.mine: set[str] = set()  # created or joined by this run: --exit-when-done waits for these
        # The account's games in progress (open or active, with its seat), for max_games.
        self.playing: set[str] = set()
        # Places held for max_games while a join or a creation is on its way: the
        # check and the reservation happen before the request, so that two of them
        # started together cannot both pass the check.
        self.joining: set[str] = set()
        self.creating_now = 0
        self.waiting: set[str] = set()  # invitations left until a game ends (max_games)
        self.created = 0
        self.status = 0  # what run() returns once done is set: 1 when a game could not be created
        self.creating = asyncio.Lock()
        # A run that neither creates nor accepts (a bot restarted mid-game) waits
        # instead for the games it finds on first connecting.
        self.adopt = options.exit_when_done and options.create is None and not options.accept_invitations
        self.tasks: set[asyncio.Task[None]] = set()
        self.fallback = make_bot("greedy")
        self.done = asyncio.Event()

    # --- the loop --------------------------------------------------------------

    async def run(self) -> int:
        me = await self.client.me()
        self.username = me["username"]
        user_id = me.get("id")  # events name people by id (seat_resigned's user_id)
        self.user_id = user_id if isinstance(user_id, int) else None
        # A read-only token would stream for ever and fail only at its first join or move.
        scopes = me.get("scopes")
        if scopes is not None and "play" not in scopes:
            logger.error(
                "this token has the scopes %s; a bot needs one with play: mint one with POST /api/v1/tokens/",
                ", ".join(scopes) or "(none)",
            )
            return 1
        logger.info("signed in to %s as %s", self.client.base_url, self.username)
        # Games are created once the stream's snapshot has said how many are in
        # progress (max_games); a refusal there ends the run, as here.
        stream = self.client.stream()
        reader = asyncio.ensure_future(self._read(stream))
        finished = asyncio.ensure_future(self.done.wait())
        try:
            await asyncio.wait({reader, finished}, return_when=asyncio.FIRST_COMPLETED)
            if self.done.is_set():
                if self.status == 0:
                    logger.info("every game is over; exiting")
                return self.status
            return reader.result()
        finally:
            for task in (reader, finished, *self.tasks):
                task.cancel()
            await asyncio.gather(reader, finished, *self.tasks, return_exceptions=True)
            await stream.aclose()

    async def _read(self, stream: Any) -> int:
        async for event in stream:
            if event.event == CLOSED:
                reason = event.data.get("reason")
                if reason == "replaced":
                    logger.error("the server closed the stream (replaced): another program uses this token")
                else:
                    logger.error(
                        "the server closed the stream (%s): the token was revoked, or the account disabled or suspended",
                        reason,
                    )
                return 1
            self.handle(event)
            if event.event == SNAPSHOT:
                await self._create_games()
        return 1

    def _in_progress(self) -> int:
        """The games counted against max_games: those in progress, and those being
        joined or created."""
        return len(self.playing | self.joining) + self.creating_now

    def _room(self) -> bool:
        """Whether one more game stays within max_games."""
        return self.options.max_games is None or self._in_progress() < self.options.max_games

    def _fail(self, status: int) -> None:
        """Ends the run with this exit status (the reason is logged already)."""
        self.status = status
        self.done.set()

    async def _create_games(self) -> None:
        """Creates the games --create asks for (--games of them, 1 by default), as
        many at a time as max_games leaves room for; the rest as games end.
        Refused (an unknown ``--invite``, say), or with the server out of reach,
        it ends the run with status 1, on starting as when a game ends."""
        if self.options.create is None:
            return
        variant, seats = self.options.create
        invited = f", inviting {', '.join(self.options.invite)}" if self.options.invite else ""
        async with self.creating:
            while self.created < (self.options.games or 1) and self._room() and not self.done.is_set():
                self.creating_now += 1  # held from the check on, released when the game is counted or refused
                try:
                    game = await self.client.create_game(variant, seats, invited=self.options.invite)
                except ApiError as exc:
                    logger.error("the server refused to create a game (%s, %d seats%s): %s", variant, seats, invited, exc)
                    self._fail(1)
                    return
                except httpx.TransportError as exc:
                    logger.error("cannot reach %s to create a game: %s", self.client.base_url, type(exc).__name__)
                    self._fail(1)
                    return
                finally:
                    self.creating_now -= 1
                self.created += 1
                self.mine.add(game["id"])
                self.playing.add(game["id"])
                logger.info("game %s: created (%s, %d seats%s)", game["id"], variant, seats, invited)
            if self.created < (self.options.games or 1) and not self.done.is_set():
                logger.info(
                    "%d games in progress (max_games %d): the next game is created when one ends",
                    self._in_progress(),
                    self.options.max_games,
                )

    def handle(self, event: Event) -> None:
        """Acts on one event: each action runs as a task of its own, one at a time per game."""
        data, game_id = event.data, event.game_id
        if event.event == SNAPSHOT:
            logger.info("connected: %d games, %d invitations", len(data.get("games", [])), len(data.get("invitations", [])))
            self._snapshot(data)
        elif game_id is None:
            logger.debug("event %s without a game", event.event)
        elif event.event == YOUR_TURN:
            state = self._state(game_id)
            if state.over:
                return  # a turn replayed after the game's end: it holds no place under max_games
            self.playing.add(game_id)
            self._greet_soon(game_id)
            self._spawn(self._play_turn(game_id, data))
        elif event.event == "game_created" and self.options.accept_invitations and game_id not in self.mine:
            self._spawn(self._maybe_accept(game_id))
        elif event.event == "game_started":
            self._greet_soon(game_id)
        elif event.event == "seat_resigned" and self.user_id is not None and data.get("user_id") == self.user_id:
            self._resigned(game_id)
        elif event.event == "game_finished":
            self._over(game_id, data.get("result"))
        elif event.event == "game_aborted":
            self._over(game_id, None, aborted=str(data.get("reason")))
        else:
            logger.debug("game %s: %s at version %s", game_id, event.event, event.version)

    def _snapshot(self, data: dict[str, Any]) -> None:
        listed = set()
        for game in data.get("games", []):
            game_id = game.get("game_id")
            if not isinstance(game_id, str):
                continue
            listed.add(game_id)
            if game.get("status") == "active":
                self._greet_soon(game_id)
            if game.get("your_turn"):
                self._spawn(self._play_from_api(game_id))
            elif game.get("status") == "active" and self.options.max_games is not None:
                # The snapshot lists a game whose seat resigned too (it is the
                # account's, and goes on): only the game itself tells.
                self._spawn(self._check_resigned(game_id))
        # The account's games in progress, as the server counts them now.
        self.playing = {game_id for game_id in listed if not self._state(game_id).resigned}
        if self.options.accept_invitations:
            for invitation in data.get("invitations", []):
                game_id = invitation.get("game_id")
                if isinstance(game_id, str):
                    listed.add(game_id)
                    self._spawn(self._maybe_accept(game_id))
        if self.adopt:
            self.adopt = False
            self.mine |= listed
            logger.info("--exit-when-done: waiting for the %d games found on connecting", len(listed))
            if not listed:
                self.done.set()
        # A game of ours that the snapshot no longer lists ended while we were away.
        for game_id in self.mine - listed:
            if not self._state(game_id).over:
                self._spawn(self._check_over(game_id))

    def _spawn(self, coroutine: Any) -> None:
        task = asyncio.ensure_future(coroutine)
        self.tasks.add(task)
        task.add_done_callback(self._task_done)

    def _task_done(self, task: asyncio.Task[None]) -> None:
        self.tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            logger.error("%s", task.exception(), exc_info=task.exception())

    def _state(self, game_id: str) -> GameState:
        state = self.games.get(game_id)
        if state is None:
            state = self.games[game_id] = GameState(game_id)
        return state

    # --- invitations and the end -----------------------------------------------

    async def _maybe_accept(self, game_id: str) -> None:
        """Joins the seat reserved for this account, if there is one still open and
        the game passes the ``accept`` filters (else the invitation is declined),
        when max_games leaves room (else it waits for a game to end). The game's
        lock keeps a snapshot's invitation and a ``game_created`` event for the
        same game from joining twice."""
        state = self._state(game_id)
        async with state.lock:
            if game_id in self.mine:
                return
            limit = self.options.games if self.options.create is None else None
            if limit is not None and len(self.mine) >= limit:
                logger.info("game %s: invitation left alone (already in %d games)", game_id, len(self.mine))
                return
            game = await self._patient(lambda: self.client.game(game_id))
            if game["status"] != "open" or not any(
                s["username"] == self.username and s["invited"] and not s["joined"] for s in game["seats"]
            ):
                self.waiting.discard(game_id)
                return
            refusal = self.options.accept.refusal(game)
            if refusal is not None:
                self.waiting.discard(game_id)
                await self._decline(game_id, game["created_by"], refusal)
                return
            if not self._room():
                if game_id not in self.waiting:
                    logger.info(
                        "game %s: invitation from %s left for later: %d games in progress (max_games %d)",
                        game_id,
                        game["created_by"],
                        self._in_progress(),
                        self.options.max_games,
                    )
                self.waiting.add(game_id)
                return
            self.waiting.discard(game_id)
            # Counted from now, so that --games N and max_games hold however fast invitations come.
            self.mine.add(game_id)
            self.joining.add(game_id)
            try:
                joined = await self._join(game_id, game["variant"], game["created_by"])
            finally:
                self.joining.discard(game_id)
            if joined:
                self.playing.add(game_id)
            else:
                self.mine.discard(game_id)
                self._game_ended()  # the place it held is free again

    async def _join(self, game_id: str, variant: str, created_by: str) -> bool:
        try:
            await self._patient(lambda: self.client.join(game_id))
        except ApiError as exc:
            logger.warning("game %s: could not accept the invitation: %s", game_id, exc)
            return False
        logger.info("game %s: invitation accepted (%s, from %s)", game_id, variant, created_by)
        return True

    async def _decline(self, game_id: str, created_by: str, reason: str) -> None:
        try:
            await self._patient(lambda: self.client.decline(game_id))
        except ApiError as exc:
            logger.warning("game %s: could not decline the invitation (%s): %s", game_id, reason, exc)
            return
        logger.info("game %s: invitation from %s declined: %s", game_id, created_by, reason)

    def _game_ended(self) -> None:
        """A game ended: room, under max_games, for a waiting invitation or a game to create."""
        if self.options.max_games is None:
            return
        for game_id in sorted(self.waiting):
            self._spawn(self._maybe_accept(game_id))
        self._spawn(self._create_games())

    def _resigned(self, game_id: str) -> None:
        """This account's seat left a game that goes on without it (a resignation,
        a forfeit): the game holds no place under max_games and is not greeted."""
        state = self._state(game_id)
        if state.resigned or state.over:
            return
        state.resigned = True
        logger.info("game %s: this account's seat has left the game", game_id)
        if game_id in self.playing:
            self.playing.discard(game_id)
            self._game_ended()

    async def _check_resigned(self, game_id: str) -> None:
        """A game found on connecting whose turn it is not: has the seat resigned?"""
        game = await self._patient(lambda: self.client.game(game_id))
        if self._has_resigned(game):
            self._resigned(game_id)

    def _has_resigned(self, game: Mapping[str, Any]) -> bool:
        """Whether this account's seat in ``game`` (``GET /api/v1/games/{id}/``) has resigned."""
        seat = game.get("your_seat")
        return any(
            s.get("resigned") and (s.get("seat") == seat if seat is not None else s.get("username") == self.username)
            for s in game.get("seats") or []
        )

    async def _check_over(self, game_id: str) -> None:
        game = await self._patient(lambda: self.client.game(game_id))
        if game["status"] in OVER:
            self._over(game_id, game.get("result"), aborted=None if game["status"] == "finished" else "")

    def _over(self, game_id: str, result: Any, *, aborted: str | None = None) -> None:
        state = self._state(game_id)
        if state.over:
            return
        state.over = True
        self.playing.discard(game_id)
        self._game_ended()
        if aborted is not None:
            logger.info("game %s: aborted%s", game_id, f" ({aborted})" if aborted else "")
        elif isinstance(result, dict):
            logger.info(
                "game over: %s: winners %s, scores %s (%s)",
                game_id,
                result.get("winners"),
                result.get("scores"),
                result.get("reason"),
            )
        else:
            logger.info("game over: %s", game_id)
        self._check_done()

    def _check_done(self) -> None:
        if not self.options.exit_when_done or not self.mine:
            return
        wanted = self.options.games or (1 if self.options.create is None else len(self.mine))
        if len(self.mine) >= wanted and all(self._state(g).over for g in self.mine):
            self.done.set()

    # --- the greeting ------------------------------------------------------------

    def _greet_soon(self, game_id: str) -> None:
        """Says the greeting in the game's table talk, once, in a task of its own
        (it never holds up a move)."""
        state = self._state(game_id)
        if not self.options.greeting or state.greeting or state.over or state.resigned:
            return
        state.greeting = True
        self._spawn(self._greet(state))

    async def _greet(self, state: GameState) -> None:
        """Only in a real game that has started (practice games and sandboxes have
        no table talk), not from a seat that resigned, and not when the players'
        thread already holds the greeting from this account's seat: said by an
        earlier run (compared as the server stores lines: ``chat_clean``). A 429,
        from the game or the table talk, is waited out."""
        text, game_id = chat_clean(self.options.greeting), state.game_id
        while not state.over and not state.resigned:
            try:
                game = await self._patient(lambda: self.client.game(game_id))
                if game.get("kind") != "real":
                    logger.debug("game %s: a %s game has no table talk: no greeting", game_id, game.get("kind"))
                    return
                if self._has_resigned(game):
                    self._resigned(game_id)
                    return
                seat = game.get("your_seat")
                if game["status"] != "active" or seat is None:
                    if game["status"] == "open":
                        state.greeting = False  # greeted on its game_started
                    return
                if await self._said(game_id, seat, text):
                    logger.debug("game %s: the greeting was said before", game_id)
                    return
                await self.client.say(game_id, text)
                logger.info("game %s: said the greeting", game_id)
                return
            except RateLimitedError as exc:
                wait = exc.retry_after if exc.retry_after is not None else CHAT_WAIT_SECONDS
                logger.info("game %s: the server asks to wait (%s); greeting in %.0f s", game_id, exc.code, wait)
                await self.sleep(wait)
            except httpx.TransportError as exc:
                # The line may have been posted: the thread is read again before saying it.
                logger.warning("game %s: the greeting failed on the network (%s); trying again", game_id, type(exc).__name__)
                await self.sleep(5.0)
            except ApiError as exc:
                logger.warning("game %s: the greeting was refused: %s", game_id, exc)
                return

    async def _said(self, game_id: str, seat: int, text: str) -> bool:
        """Whether the players' thread holds ``text`` from ``seat``, read from its
        first line on (the thread without ``after`` is only its latest lines)."""
        after = 0
        while True:
            thread = await self._patient(lambda: self.client.chat(game_id, after=after))
            lines = thread["lines"]
            if any(line["seat"] == seat and chat_clean(line["text"] or "") == text for line in lines):
                return True
            if not lines:
                return False
            after = lines[-1]["id"]

    # --- playing ---------------------------------------------------------------

    async def _play_turn(self, game_id: str, data: dict[str, Any]) -> None:
        """A ``your_turn`` event: it carries the view and the legal moves."""
        version, view, legal = data.get("version"), data.get("view"), data.get("legal_moves")
        if not isinstance(version, int) or not isinstance(view, dict) or not isinstance(legal, list):
            await self._play_from_api(game_id)
            return
        state = self._state(game_id)
        async with state.lock:
            if version <= state.acted_version or state.over:
                return
            await self._move(state, version, view, legal, deadline_at=None)

    async def _play_from_api(self, game_id: str) -> None:
        """Reads the position (a snapshot, or a refused move) and plays if it is our turn."""
        state = self._state(game_id)
        async with state.lock:
            await self._play_from_api_locked(state)

    async def _play_from_api_locked(self, state: GameState, tries: int = 0) -> None:
        if tries >= MAX_TRIES_PER_TURN or state.over:
            return
        legal = await self._patient(lambda: self.client.legal_moves(state.game_id))
        if not legal["moves"] or (tries == 0 and legal["version"] <= state.acted_version):
            return
        game = await self._patient(lambda: self.client.game(state.game_id))
        if game["version"] != legal["version"] or game["board"] is None:
            await self._play_from_api_locked(state, tries + 1)
            return
        await self._move(state, game["version"], game["board"], legal["moves"], game["deadline_at"], tries)

    async def _move(
        self,
        state: GameState,
        version: int,
        view: Mapping[str, Any],
        legal: list[str],
        deadline_at: str | None,
        tries: int = 0,
    ) -> None:
        if state.bot is None:
            state.bot = self.bots()
        clock: float | None = None
        if takes_clock(state.bot):
            if deadline_at is None:
                deadline_at = (await self._patient(lambda: self.client.game(state.game_id)))["deadline_at"]
            clock = _seconds_left(deadline_at)
        move = await asyncio.to_thread(self._choose, state, view, legal, clock)
        state.acted_version = max(state.acted_version, version)
        # One key for every try of this turn: if the server played the move and the
        # answer was lost, the retry gets the first answer back, not a second move.
        key = str(uuid.uuid4())
        try:
            answer = await self._patient(
                lambda: self.client.play(state.game_id, move, expected_version=version, idempotency_key=key)
            )
        except ApiError as exc:
            if exc.code not in RE_READ:
                if isinstance(exc, AuthError):
                    raise
                logger.warning("game %s: `%s` refused: %s", state.game_id, move, exc)
                return
            logger.info("game %s: `%s` refused (%s); reading the game again", state.game_id, move, exc.code)
            await self._play_from_api_locked(state, tries + 1)
            return
        logger.info("game %s: played `%s` at version %d", state.game_id, answer["move"], version)

    async def _patient(self, call: Callable[[], Awaitable[_T]]) -> _T:
        """``call()``, tried again while the server cannot be reached (it may be
        restarting), for up to about five minutes."""
        waited = 0.0
        delay = 1.0
        while True:
            try:
                return await call()
            except httpx.TransportError as exc:
                if waited >= PATIENCE_SECONDS:
                    raise
                logger.warning("server unreachable (%s); trying again in %.0f s", type(exc).__name__, delay)
                await asyncio.sleep(delay)
                waited += delay
                delay = min(delay * 2, 30.0)

    def _choose(self, state: GameState, view: Mapping[str, Any], legal: list[str], clock: float | None) -> str:
        """The bot's move (in a worker thread); the greedy bot's when it errs."""
        bot = state.bot
        assert bot is not None
        try:
            move = cast(Any, bot).choose(view, legal, clock=clock) if takes_clock(bot) else bot.choose(view, legal)
        except Exception:
            logger.exception("game %s: the bot failed; playing the greedy bot's move instead", state.game_id)
            return self.fallback.choose(view, legal)  # type: ignore[arg-type]
        if move not in legal:
            logger.error(
                "game %s: the bot chose %r, which is not a legal move; playing the greedy bot's move instead",
                state.game_id,
                move,
            )
            return self.fallback.choose(view, legal)  # type: ignore[arg-type]
        return move


# --- the command line ---------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> int:
    config = load(argv)
    token = config.token or os.environ.get("SPLENDOR_TOKEN")
    if not token:
        parser().error("give the token as SPLENDOR_TOKEN (or --token, or token in the config file)")
    level = logging.DEBUG if config.verbose else logging.INFO
    logging.basicConfig(level=level, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    if config.verbose < 2:
        # httpx logs every request at INFO: only with -vv.
        logging.getLogger("httpx").setLevel(logging.WARNING)
        logging.getLogger("httpcore").setLevel(logging.WARNING)
    for note in config.ignored:
        logger.info("%s", note)
    try:
        bots = load_bot(config.bot, seed=config.seed, playouts=config.playouts, seconds=config.seconds)
    except ValueError as exc:
        parser().error(f"{config.given.get('bot', '--bot')}: {exc}")
    budget = [f"{config.playouts} playouts"] if config.playouts is not None else []
    budget += [f"{config.seconds:g} s"] if config.seconds is not None else []
    logger.info("bot: %s%s", config.bot, f" ({', '.join(budget)} a move)" if budget else "")
    try:
        return asyncio.run(_run(config.server, token, bots, Options.of(config)))
    except KeyboardInterrupt:
        return 130
    except ApiError as exc:
        logger.error("the server refused: %s", exc)
        return 1
    except httpx.TransportError as exc:
        logger.error("cannot reach %s: %s", config.server, type(exc).__name__)
        return 1


async def _run(server: str, token: str, bots: BotFactory, options: Options) -> int:
    async with AsyncClient(server, token) as client:
        return await Runner(client, bots, options).run()


if __name__ == "__main__":
    with contextlib.suppress(KeyboardInterrupt):
        sys.exit(main())
