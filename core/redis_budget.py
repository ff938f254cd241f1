"""One time budget for Redis per request, and one circuit per Redis server.

A request may use several Redis servers, one after another: the rate-limit cache
(``api.throttling``), the stream's publish (``streams.bus``) and the broker that
takes the outbox's message (``core.queue``). Each has its own short timeouts, and a
hung server used to cost each of them its own timeout in turn. Here they share:

- **a budget per request**: the seconds a request may spend waiting on Redis in
  all (``REDIS_REQUEST_BUDGET_SECONDS``), set by ``api.redis_budget``'s middleware
  for each request. Every connection made with ``connection_class_for`` caps its
  socket timeouts at what is left of it, subtracts what each call took, and
  refuses a call at once (``RedisBudgetSpent``) when nothing is left. It counts the
  time spent on Redis, not the request's age: a request slowed by its database
  still publishes to a healthy broker. Outside a request (workers, beat) there is
  no budget, only the configured timeouts.
- **a circuit per server** (host and port, or socket path: the broker, the cache
  and the stream's Redis may be three servers, or one): a call that times out or
  cannot connect opens that server's circuit for ``REDIS_CIRCUIT_OPEN_SECONDS``, in
  the whole process. While it is open every call to that server fails at once
  (``RedisCircuitOpen``, a ``redis.ConnectionError``), exactly as a stopped server
  fails, so each use falls back as it does for one: the throttle counts in the
  process, the outbox is redelivered, streams read at their next heartbeat or poll.
  After the open period one call is let through (half-open): its success closes
  the circuit, its failure opens it again.

So a move with any of them hung costs the budget at most, and the moves after it
nothing until the circuit lets a trial through.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar, Token
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import redis
from django.conf import settings


class RedisBudgetSpent(redis.TimeoutError):
    """The request has spent its time for Redis: the call is not tried."""


class RedisCircuitOpen(redis.ConnectionError):
    """The server failed a moment ago: the call is not tried."""


# --- the budget ---------------------------------------------------------------------


@dataclass
class _Budget:
    remaining: float


_budget: ContextVar[_Budget | None] = ContextVar("redis_budget", default=None)


def redis_budget_start(seconds: float) -> Token[_Budget | None]:
    """Give the current context (one request) ``seconds`` to spend on Redis in all;
    ``redis_budget_end`` with the token takes it away again."""
    return _budget.set(_Budget(remaining=seconds))


def redis_budget_end(token: Token[_Budget | None]) -> None:
    _budget.reset(token)


@contextmanager
def redis_budget(seconds: float) -> Iterator[None]:
    """``seconds`` for Redis in all, within the block."""
    token = redis_budget_start(seconds)
    try:
        yield
    finally:
        redis_budget_end(token)


def redis_budget_remaining() -> float | None:
    """Seconds left for Redis in this request; None outside a request (no budget)."""
    budget = _budget.get()
    return None if budget is None else max(budget.remaining, 0.0)


def _spend(seconds: float) -> None:
    budget = _budget.get()
    if budget is not None:
        budget.remaining -= seconds


# --- the circuits -------------------------------------------------------------------


@dataclass
class _Circuit:
    open_until: float = 0.0  # monotonic; 0: closed
    trial: bool = False  # a call is testing the server after the open period


_circuits: dict[str, _Circuit] = {}
_lock = threading.Lock()
clock: Callable[[], float] = time.monotonic  # replaced by the tests


def _open_seconds() -> float:
    return float(getattr(settings, "REDIS_CIRCUIT_OPEN_SECONDS", 5.0))


def redis_circuit_allows(server: str) -> bool:
    """Whether a call to ``server`` may be tried: its circuit is closed, or its open
    period is over and no other call is trying it (this call becomes the trial,
    and must report with ``redis_circuit_succeeded`` or ``redis_circuit_failed``)."""
    circuit = _circuits.get(server)
    if circuit is None or circuit.open_until == 0.0:
        return True
    with _lock:
        if circuit.open_until == 0.0:
            return True
        if circuit.trial or clock() < circuit.open_until:
            return False
        circuit.trial = True
        return True


def redis_circuit_succeeded(server: str) -> None:
    circuit = _circuits.get(server)
    if circuit is None or (circuit.open_until == 0.0 and not circuit.trial):
        return
    with _lock:
        circuit.open_until, circuit.trial = 0.0, False


def redis_circuit_failed(server: str) -> None:
    """``server`` timed out or refused: open its circuit (again) for the open period."""
    with _lock:
        circuit = _circuits.setdefault(server, _Circuit())
        circuit.open_until, circuit.trial = clock() + _open_seconds(), False


def redis_circuit_released(server: str) -> None:
    """A trial that ended without an answer either way (interrupted): let another try."""
    circuit = _circuits.get(server)
    if circuit is not None and circuit.trial:
        with _lock:
            circuit.trial = False


def redis_circuit_is_open(server: str) -> bool:
    """Whether calls to ``server`` fail at once now (for /healthz and the tests)."""
    circuit = _circuits.get(server)
    return circuit is not None and circuit.open_until != 0.0 and (circuit.trial or clock() < circuit.open_until)


def redis_circuits_reset() -> None:
    """Every circuit closed (the tests start each from here)."""
    with _lock:
        _circuits.clear()


def redis_server_of(url: str) -> str:
    """The circuit's name for a Redis URL: host and port (or the socket's path),
    whatever the database number, as ``redis.Connection`` names its server."""
    parts = urlsplit(url)
    if parts.scheme == "unix":
        return parts.path
    return f"{parts.hostname or 'localhost'}:{parts.port or 6379}"


# --- the connections ----------------------------------------------------------------


class _Budgeted:
    """Mixed into a ``redis`` connection class: every connect, send and read is
    first allowed by the server's circuit and the request's budget, waits no longer
    than the budget has left, is paid from it, and reports to the circuit.
    (The connection's own handshake, inside a connect, is part of that connect.)"""

    _in_call = False

    @contextmanager
    def _budgeted(self) -> Iterator[None]:
        me: Any = self
        if self._in_call:
            yield
            return
        server = str(me._host_error())
        remaining = redis_budget_remaining()
        if remaining is not None and remaining <= 0.0:
            raise RedisBudgetSpent(f"{server}: this request's time for Redis is spent")
        if not redis_circuit_allows(server):
            raise RedisCircuitOpen(f"{server}: failed less than {_open_seconds():g} s ago; not tried")
        timeout, connect_timeout = me.socket_timeout, me.socket_connect_timeout
        if remaining is not None:
            me.socket_timeout = remaining if timeout is None else min(timeout, remaining)
            me.socket_connect_timeout = remaining if connect_timeout is None else min(connect_timeout, remaining)
            if me._sock is not None:
                me._sock.settimeout(me.socket_timeout)
        self._in_call = True
        started = clock()
        outcome = redis_circuit_released
        try:
            yield
            outcome = redis_circuit_succeeded
        except (redis.TimeoutError, redis.ConnectionError):
            outcome = redis_circuit_failed
            raise
        except Exception:  # an answer (an error reply, a value it could not parse): the server is there
            outcome = redis_circuit_succeeded
            raise
        finally:
            self._in_call = False
            _spend(clock() - started)
            outcome(server)
            if remaining is not None:
                me.socket_timeout, me.socket_connect_timeout = timeout, connect_timeout
                if me._sock is not None:
                    me._sock.settimeout(timeout)

    def connect_check_health(self, *args: Any, **kwargs: Any) -> None:
        if getattr(self, "_sock", None) is not None:  # connected: nothing is asked of the server
            return
        with self._budgeted():
            super().connect_check_health(*args, **kwargs)  # type: ignore[misc]

    def send_packed_command(self, *args: Any, **kwargs: Any) -> None:
        with self._budgeted():
            super().send_packed_command(*args, **kwargs)  # type: ignore[misc]

    def read_response(self, *args: Any, **kwargs: Any) -> Any:
        with self._budgeted():
            return super().read_response(*args, **kwargs)  # type: ignore[misc]


class BudgetedConnection(_Budgeted, redis.Connection):
    """``redis.Connection`` within the request's budget and its server's circuit."""


class BudgetedSSLConnection(_Budgeted, redis.SSLConnection):
    """``redis.SSLConnection`` within the request's budget and its server's circuit."""


class BudgetedUnixDomainSocketConnection(_Budgeted, redis.UnixDomainSocketConnection):
    """``redis.UnixDomainSocketConnection`` within the budget and the circuit."""


def connection_class_for(url: str) -> type[redis.Connection] | type[redis.UnixDomainSocketConnection]:
    """The budgeted connection class for a Redis URL (``redis://``, ``rediss://``
    or ``unix://``), to pass as ``connection_class`` to redis-py's pools."""
    scheme = urlsplit(url).scheme.lower()
    if scheme == "rediss":
        return BudgetedSSLConnection
    if scheme == "unix":
        return BudgetedUnixDomainSocketConnection
    return BudgetedConnection
