"""A wall-clock limit on one webhook attempt: connect, TLS, the answer's headers
and its body together (WEBHOOKS_ATTEMPT_SECONDS).

Socket timeouts bound each read, not the attempt: a receiver that sends one byte
every few seconds keeps a request alive for as long as it likes. So the attempt
runs inside an ``AttemptDeadline``: the connections it opens hand their sockets
to it (webhooks.url_safety), and when the time is up a timer shuts them down,
which ends whatever read or handshake is waiting on them at once.
"""

from __future__ import annotations

import socket
import threading
import time
from contextvars import ContextVar
from types import TracebackType

_current: ContextVar[AttemptDeadline | None] = ContextVar("webhook_attempt_deadline", default=None)


def current_deadline() -> AttemptDeadline | None:
    """The deadline of the attempt running in this thread, if any."""
    return _current.get()


class AttemptDeadline:
    """``with AttemptDeadline(seconds):`` around one attempt; ``expired`` says
    afterwards whether it was cut short."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.expired = False
        self._ends = time.monotonic() + seconds
        self._sockets: list[socket.socket] = []
        self._lock = threading.Lock()
        self._timer = threading.Timer(seconds, self._expire)
        self._timer.daemon = True

    def remaining(self) -> float:
        return self._ends - time.monotonic()

    def watch(self, sock: socket.socket) -> None:
        """Shut ``sock`` down when the deadline passes (at once if it has)."""
        with self._lock:
            self._sockets.append(sock)
            if self.expired:
                _shut(sock)

    def _expire(self) -> None:
        with self._lock:
            self.expired = True
            for sock in self._sockets:
                _shut(sock)

    def __enter__(self) -> AttemptDeadline:
        self._token = _current.set(self)
        self._timer.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        _current.reset(self._token)
        self._timer.cancel()
        # Wait for a timer that has started firing, so that it never touches a
        # socket after the caller has closed it.
        self._timer.join()


def _shut(sock: socket.socket) -> None:
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass  # closed already
