"""``Client`` (blocking) and ``AsyncClient`` (asyncio): the same methods, the
same requests (``_core``), one sending with ``httpx.Client``, the other with
``httpx.AsyncClient``."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable, Iterable, Iterator
from typing import Any, Self, cast

import httpx

from . import _core
from ._core import Request, RetryPolicy
from .errors import ApiError, error_for
from .models import (
    ChatLine,
    ChatThread,
    Game,
    GamePage,
    GameSummary,
    LegalMoves,
    Me,
    MoveCreated,
    MoveHistoryEntry,
    Plan,
    PlanLine,
    TokenCreated,
)
from .stream import (
    CLOSED,
    HEARTBEAT,
    IDLE_TIMEOUT_SECONDS,
    Event,
    Format,
    Reconnect,
    SseParser,
    accept_header,
    parser_for,
)

logger = logging.getLogger("splendor_client")

DEFAULT_TIMEOUT = httpx.Timeout(30.0, connect=10.0)


class _Base:
    def __init__(self, base_url: str, token: str | None, retry: RetryPolicy | None) -> None:
        self.base_url = _core.check_base_url(base_url)
        # Kept apart from every header set that httpx or a log could show: it is
        # added to each request as it is sent (``_core.request_headers``).
        self.__token = _core.Secret(token) if token else None
        self.retry = retry or RetryPolicy()

    def _headers(self, request: Request) -> dict[str, str]:
        return _core.request_headers(request, self.__token)

    def _stream_headers(self, fmt: Format, last_event_id: int | None) -> dict[str, str]:
        headers = self._headers(Request("GET", _core.STREAM_PATH))
        headers["Accept"] = accept_header(fmt)
        if last_event_id is not None:
            headers["Last-Event-ID"] = str(last_event_id)
        return headers

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.base_url!r})"


def _retry_wait(policy: RetryPolicy, attempt: int, response: httpx.Response | None) -> float | None:
    """Seconds to wait before retry ``attempt``, or None when it should not be retried."""
    if attempt > policy.max_retries:
        return None
    if response is None:
        return policy.delay(attempt)
    if response.status_code not in _core.RETRY_STATUSES:
        return None
    return policy.delay(attempt, response.headers.get("Retry-After"))


def _stream_refusal_wait(response: httpx.Response, reconnect: Reconnect) -> float | None:
    """How long to wait before reconnecting after the stream was refused, or None
    when reconnecting cannot help (a bad token, a missing scope, 406)."""
    status = response.status_code
    if status in _core.RETRY_STATUSES or status in (500, 502, 504):
        delay = reconnect.next_delay()
        asked = _core.parse_retry_after(response.headers.get("Retry-After"))
        if delay is None:
            return None
        return max(delay, asked) if asked is not None else delay
    return None


class Client(_Base):
    """The API, blocking. ``Client("https://splendor.example", token)``.

    ``token`` is a Bearer token (``spl_...``); it is sent with every request and
    never written to a log. Use it as a context manager, or call ``close()``.
    ``retry`` sets how 429/503 answers and network failures are retried;
    ``transport`` and ``sleep`` are there for tests."""

    def __init__(
        self,
        base_url: str,
        token: str | None = None,
        *,
        retry: RetryPolicy | None = None,
        timeout: httpx.Timeout | float = DEFAULT_TIMEOUT,
        transport: httpx.BaseTransport | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        super().__init__(base_url, token, retry)
        self._http = httpx.Client(base_url=self.base_url, headers=_core.BASE_HEADERS, timeout=timeout, transport=transport)
        self._sleep = sleep

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._http.close()

    # --- sending ------------------------------------------------------------

    def _send(self, request: Request) -> Any:
        attempt = 0
        while True:
            attempt += 1
            response: httpx.Response | None = None
            try:
                response = self._http.request(
                    request.method,
                    request.path,
                    params=request.params or None,
                    json=request.json,
                    headers=self._headers(request),
                )
            except httpx.TransportError as exc:
                wait = _retry_wait(self.retry, attempt, None) if request.safe_to_resend else None
                if wait is None:
                    raise
                logger.info("%s %s failed (%s); retrying in %.1f s", request.method, request.path, type(exc).__name__, wait)
                self._sleep(wait)
                continue
            wait = _retry_wait(self.retry, attempt, response)
            if wait is None:
                return _core.decode(response)
            logger.info("%s %s answered %d; retrying in %.1f s", request.method, request.path, response.status_code, wait)
            self._sleep(wait)

    # --- the API --------------------------------------------------------------

    def me(self) -> Me:
        """The account the token belongs to."""
        return cast(Me, self._send(_core.me()))

    def game(self, game_id: str) -> Game:
        """The game as this account may see it (``board`` is the seat's view)."""
        return cast(Game, self._send(_core.game(game_id)))

    def legal_moves(self, game_id: str) -> LegalMoves:
        """This account's legal moves (canonical, sorted; empty when not its turn)."""
        return cast(LegalMoves, self._send(_core.legal_moves(game_id)))

    def moves(self, game_id: str) -> list[MoveHistoryEntry]:
        """The game's move history, first move first."""
        return cast(list[MoveHistoryEntry], self._send(_core.moves(game_id)))

    def games_page(self, **filters: Any) -> GamePage:
        """One page of the game list (``mine``, ``my_turn``, ``status``, ``kind``,
        ``limit``, ``offset``)."""
        return cast(GamePage, self._send(_core.games_page(**filters)))

    def games(
        self,
        *,
        mine: bool = False,
        my_turn: bool = False,
        status: str | None = None,
        kind: str | None = None,
        page_size: int | None = None,
    ) -> Iterator[GameSummary]:
        """Every game of the list, newest first, page after page as it is read."""
        request: Request | None = _core.games_page(mine=mine, my_turn=my_turn, status=status, kind=kind, limit=page_size)
        while request is not None:
            page = cast(GamePage, self._send(request))
            yield from page["results"]
            request = _core.next_page(request, page.get("next"))

    def my_games(self, *, status: str | None = None, page_size: int | None = None) -> Iterator[GameSummary]:
        """The games where this account holds or is invited to a seat."""
        return self.games(mine=True, status=status, page_size=page_size)

    def create_game(
        self, variant: str = "base", seats: int = 2, *, invited: Iterable[str] = (), **options: Any
    ) -> Game:
        """Create a game and take its first seat. ``options``: the other fields of
        ``POST /api/v1/games/`` (``move_timeout_hours``, ``public``, ``rated``,
        ``bots`` for a practice game, ...)."""
        return cast(Game, self._send(_core.create_game(variant=variant, seats=seats, invited=invited, options=options)))

    def join(self, game_id: str, *, expected_version: int | None = None) -> Game:
        """Take the seat reserved for this account, or an open one."""
        return cast(Game, self._send(_core.join(game_id, expected_version)))

    def decline(self, game_id: str, *, if_match_version: int | None = None) -> Game:
        """Turn an invitation down."""
        return cast(Game, self._send(_core.decline(game_id, if_match_version)))

    def cancel(self, game_id: str, *, if_match_version: int | None = None) -> Game:
        """Call off a game this account created that has not started."""
        return cast(Game, self._send(_core.cancel(game_id, if_match_version)))

    def resign(self, game_id: str, *, if_match_version: int | None = None) -> Game:
        """Leave the game. With ``if_match_version`` only at that version."""
        return cast(Game, self._send(_core.resign(game_id, if_match_version)))

    def play(self, game_id: str, move: str, *, expected_version: int, idempotency_key: str | None = None) -> MoveCreated:
        """Play ``move`` on the position at ``expected_version``.

        Every call sends an ``Idempotency-Key`` (a new UUID unless one is given)
        and every retry of the call sends the same key, so a move is never played
        twice however often the network fails. ``ConflictError`` with code
        ``stale_version`` or ``not_your_turn``: read the game again and choose again."""
        return cast(MoveCreated, self._send(_core.play(game_id, move, expected_version, idempotency_key)))

    def plan(self, game_id: str) -> Plan:
        """This account's plan in the game (its conditional moves) and what it did."""
        return cast(Plan, self._send(_core.plan(game_id)))

    def set_plan(self, game_id: str, lines: Iterable[PlanLine], *, expected_version: int) -> Plan:
        """Store a plan, replacing the one before: ``[{"if": "take WUG", "then":
        "buy 1-05", "next": [...]}]`` (docs/plans.md). Only while waiting for the
        others; ``ConflictError`` ``plan_on_your_turn`` on this account's turn."""
        return cast(Plan, self._send(_core.set_plan(game_id, lines, expected_version)))

    def clear_plan(self, game_id: str) -> None:
        """Forget this account's plan in the game."""
        self._send(_core.clear_plan(game_id))

    def chat(self, game_id: str, *, thread: str = "players", after: int | None = None) -> ChatThread:
        """A thread of the game's table talk (the latest lines, or those after id ``after``)."""
        return cast(ChatThread, self._send(_core.chat(game_id, thread, after)))

    def say(self, game_id: str, text: str, *, thread: str = "players") -> ChatLine:
        """Write a line in the game's table talk."""
        return cast(ChatLine, self._send(_core.say(game_id, text, thread)))

    def create_token(
        self,
        name: str,
        *,
        scopes: Iterable[str] | None = None,
        username: str | None = None,
        password: str | None = None,
    ) -> TokenCreated:
        """A new token (its secret is in ``token``, shown once): with ``username``
        and ``password`` for an account's first token, else with this client's."""
        return cast(
            TokenCreated,
            self._send(_core.create_token(name=name, scopes=scopes, username=username, password=password)),
        )

    # --- the event stream --------------------------------------------------------

    def stream(
        self,
        *,
        last_event_id: int | None = None,
        format: Format = "ndjson",
        idle_timeout: float = IDLE_TIMEOUT_SECONDS,
        reconnect: Reconnect | None = None,
    ) -> Iterator[Event]:
        """The account's events, as they happen, for as long as it is read.

        A dropped connection, a server restart or 45 seconds of silence (no event,
        no heartbeat) reconnect by themselves with ``Last-Event-ID`` set to the last
        event passed on, so nothing is missed or repeated. Heartbeats are not
        passed on. ``closed`` (another stream opened with this token) is passed on
        and ends the iteration. A refusal that reconnecting cannot cure (a bad
        token, a missing scope) raises ``ApiError``."""
        policy = reconnect or Reconnect()
        last = last_event_id
        timeout = httpx.Timeout(10.0, read=idle_timeout)
        while True:
            parser = parser_for(format)
            failure: BaseException | None = None
            wait: float | None = None
            try:
                with self._http.stream(
                    "GET", _core.STREAM_PATH, headers=self._stream_headers(format, last), timeout=timeout
                ) as response:
                    if response.status_code >= 400:
                        response.read()
                        error = error_for(response.status_code, _json_or_none(response))
                        wait = _stream_refusal_wait(response, policy)
                        if wait is None:
                            raise error
                        failure = error
                    else:
                        logger.info("stream connected%s", "" if last is None else f", resuming after event {last}")
                        for line in response.iter_lines():
                            event = parser.feed(line)
                            if event is None:
                                continue
                            policy.connected()
                            if event.event == HEARTBEAT:
                                continue
                            if event.id is not None:
                                last = event.id
                            yield event
                            if event.event == CLOSED:
                                logger.info("stream closed by the server: %s", event.data.get("reason"))
                                return
                        logger.info("stream ended by the server")
            except httpx.TransportError as exc:
                failure = exc
                logger.info("stream lost (%s)", type(exc).__name__)
            if wait is None:
                wait = policy.next_delay(parser.retry_ms if isinstance(parser, SseParser) else None)
                if wait is None:
                    if failure is not None:
                        raise failure
                    return
                wait = _core.jitter(wait)
            logger.info("stream reconnecting in %.1f s", wait)
            self._sleep(wait)


class AsyncClient(_Base):
    """The API for asyncio: ``Client``'s methods as coroutines, ``stream()`` as an
    async iterator. Use it as an async context manager, or ``await aclose()``."""

    def __init__(
        self,
        base_url: str,
        token: str | None = None,
        *,
        retry: RetryPolicy | None = None,
        timeout: httpx.Timeout | float = DEFAULT_TIMEOUT,
        transport: httpx.AsyncBaseTransport | None = None,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        super().__init__(base_url, token, retry)
        self._http = httpx.AsyncClient(
            base_url=self.base_url, headers=_core.BASE_HEADERS, timeout=timeout, transport=transport
        )
        self._sleep = sleep

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self._http.aclose()

    async def _send(self, request: Request) -> Any:
        attempt = 0
        while True:
            attempt += 1
            try:
                response = await self._http.request(
                    request.method,
                    request.path,
                    params=request.params or None,
                    json=request.json,
                    headers=self._headers(request),
                )
            except httpx.TransportError as exc:
                wait = _retry_wait(self.retry, attempt, None) if request.safe_to_resend else None
                if wait is None:
                    raise
                logger.info("%s %s failed (%s); retrying in %.1f s", request.method, request.path, type(exc).__name__, wait)
                await self._sleep(wait)
                continue
            wait = _retry_wait(self.retry, attempt, response)
            if wait is None:
                return _core.decode(response)
            logger.info("%s %s answered %d; retrying in %.1f s", request.method, request.path, response.status_code, wait)
            await self._sleep(wait)

    async def me(self) -> Me:
        return cast(Me, await self._send(_core.me()))

    async def game(self, game_id: str) -> Game:
        return cast(Game, await self._send(_core.game(game_id)))

    async def legal_moves(self, game_id: str) -> LegalMoves:
        return cast(LegalMoves, await self._send(_core.legal_moves(game_id)))

    async def moves(self, game_id: str) -> list[MoveHistoryEntry]:
        return cast(list[MoveHistoryEntry], await self._send(_core.moves(game_id)))

    async def games_page(self, **filters: Any) -> GamePage:
        return cast(GamePage, await self._send(_core.games_page(**filters)))

    async def games(
        self,
        *,
        mine: bool = False,
        my_turn: bool = False,
        status: str | None = None,
        kind: str | None = None,
        page_size: int | None = None,
    ) -> AsyncIterator[GameSummary]:
        request: Request | None = _core.games_page(mine=mine, my_turn=my_turn, status=status, kind=kind, limit=page_size)
        while request is not None:
            page = cast(GamePage, await self._send(request))
            for game in page["results"]:
                yield game
            request = _core.next_page(request, page.get("next"))

    def my_games(self, *, status: str | None = None, page_size: int | None = None) -> AsyncIterator[GameSummary]:
        return self.games(mine=True, status=status, page_size=page_size)

    async def create_game(
        self, variant: str = "base", seats: int = 2, *, invited: Iterable[str] = (), **options: Any
    ) -> Game:
        return cast(
            Game, await self._send(_core.create_game(variant=variant, seats=seats, invited=invited, options=options))
        )

    async def join(self, game_id: str, *, expected_version: int | None = None) -> Game:
        return cast(Game, await self._send(_core.join(game_id, expected_version)))

    async def decline(self, game_id: str, *, if_match_version: int | None = None) -> Game:
        return cast(Game, await self._send(_core.decline(game_id, if_match_version)))

    async def cancel(self, game_id: str, *, if_match_version: int | None = None) -> Game:
        return cast(Game, await self._send(_core.cancel(game_id, if_match_version)))

    async def resign(self, game_id: str, *, if_match_version: int | None = None) -> Game:
        return cast(Game, await self._send(_core.resign(game_id, if_match_version)))

    async def play(
        self, game_id: str, move: str, *, expected_version: int, idempotency_key: str | None = None
    ) -> MoveCreated:
        return cast(MoveCreated, await self._send(_core.play(game_id, move, expected_version, idempotency_key)))

    async def plan(self, game_id: str) -> Plan:
        return cast(Plan, await self._send(_core.plan(game_id)))

    async def set_plan(self, game_id: str, lines: Iterable[PlanLine], *, expected_version: int) -> Plan:
        return cast(Plan, await self._send(_core.set_plan(game_id, lines, expected_version)))

    async def clear_plan(self, game_id: str) -> None:
        await self._send(_core.clear_plan(game_id))

    async def chat(self, game_id: str, *, thread: str = "players", after: int | None = None) -> ChatThread:
        return cast(ChatThread, await self._send(_core.chat(game_id, thread, after)))

    async def say(self, game_id: str, text: str, *, thread: str = "players") -> ChatLine:
        return cast(ChatLine, await self._send(_core.say(game_id, text, thread)))

    async def create_token(
        self,
        name: str,
        *,
        scopes: Iterable[str] | None = None,
        username: str | None = None,
        password: str | None = None,
    ) -> TokenCreated:
        return cast(
            TokenCreated,
            await self._send(_core.create_token(name=name, scopes=scopes, username=username, password=password)),
        )

    async def stream(
        self,
        *,
        last_event_id: int | None = None,
        format: Format = "ndjson",
        idle_timeout: float = IDLE_TIMEOUT_SECONDS,
        reconnect: Reconnect | None = None,
    ) -> AsyncGenerator[Event, None]:
        """As ``Client.stream``, for ``async for``."""
        policy = reconnect or Reconnect()
        last = last_event_id
        timeout = httpx.Timeout(10.0, read=idle_timeout)
        while True:
            parser = parser_for(format)
            failure: BaseException | None = None
            wait: float | None = None
            try:
                async with self._http.stream(
                    "GET", _core.STREAM_PATH, headers=self._stream_headers(format, last), timeout=timeout
                ) as response:
                    if response.status_code >= 400:
                        await response.aread()
                        error = error_for(response.status_code, _json_or_none(response))
                        wait = _stream_refusal_wait(response, policy)
                        if wait is None:
                            raise error
                        failure = error
                    else:
                        logger.info("stream connected%s", "" if last is None else f", resuming after event {last}")
                        async for line in response.aiter_lines():
                            event = parser.feed(line)
                            if event is None:
                                continue
                            policy.connected()
                            if event.event == HEARTBEAT:
                                continue
                            if event.id is not None:
                                last = event.id
                            yield event
                            if event.event == CLOSED:
                                logger.info("stream closed by the server: %s", event.data.get("reason"))
                                return
                        logger.info("stream ended by the server")
            except httpx.TransportError as exc:
                failure = exc
                logger.info("stream lost (%s)", type(exc).__name__)
            if wait is None:
                wait = policy.next_delay(parser.retry_ms if isinstance(parser, SseParser) else None)
                if wait is None:
                    if failure is not None:
                        raise failure
                    return
                wait = _core.jitter(wait)
            logger.info("stream reconnecting in %.1f s", wait)
            await self._sleep(wait)


def _json_or_none(response: httpx.Response) -> Any:
    try:
        return response.json()
    except ValueError:
        return None


__all__ = ["ApiError", "AsyncClient", "Client", "RetryPolicy"]
