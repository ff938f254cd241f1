"""What a log line is about: the request, the game, the events, the task.

The values live in one context variable for as long as the work they describe
(a request, a change to a game, a Celery task), set and reset by ``log_context``;
``LogContextFilter``, on the handlers (settings.LOGGING), copies them onto every
record as it is written, so the plain and the JSON formatters (core.log_format)
can show them without any caller passing them along.

The values are ids, never anything secret: a request id, a game id, event ids,
a task's name and id.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar, Token
from types import MappingProxyType

# The fields a log line may carry, in the order the formatters show them.
LOG_CONTEXT_FIELDS = ("request_id", "game_id", "event_id", "event_ids", "task", "task_id")
_FIELDS = frozenset(LOG_CONTEXT_FIELDS)

_EMPTY: Mapping[str, object] = MappingProxyType({})
_context: ContextVar[Mapping[str, object]] = ContextVar("log_context", default=_EMPTY)

# A request id taken from elsewhere (a proxy's X-Request-ID, a task's message
# header): visible ASCII, no spaces, so that it can neither break a log line nor
# pass for another field of a plain one.
_REQUEST_ID = re.compile(r"[!-~]{1,128}")


def request_id_valid(value: object) -> str | None:
    """``value`` when it may serve as a request id (1 to 128 visible ASCII
    characters), else None."""
    if isinstance(value, str) and _REQUEST_ID.fullmatch(value):
        return value
    return None


def log_context_current() -> Mapping[str, object]:
    """The values set now (read-only)."""
    return _context.get()


def log_context_set(**values: object) -> Token[Mapping[str, object]]:
    """Add ``values`` to the log context (a value of None removes its field) until
    ``log_context_reset`` is called with the token returned; for work whose start
    and end are separate calls (Celery's task_prerun and task_postrun)."""
    unknown = values.keys() - _FIELDS
    if unknown:
        raise TypeError(f"not a log context field: {', '.join(sorted(unknown))}")
    merged = {**_context.get(), **values}
    return _context.set(MappingProxyType({k: v for k, v in merged.items() if v is not None}))


def log_context_reset(token: Token[Mapping[str, object]]) -> None:
    _context.reset(token)


@contextmanager
def log_context(**values: object) -> Iterator[None]:
    """Within the block, every log line carries ``values`` (ids: ``request_id``,
    ``game_id``, ``event_id``, ``event_ids``, ``task``, ``task_id``) besides what
    was set outside it. Costs a context variable's set and reset."""
    token = log_context_set(**values)
    try:
        yield
    finally:
        _context.reset(token)


class LogContextFilter(logging.Filter):
    """Copies the log context onto each record, as attributes named after the
    fields, when the record is handled (a value given with ``extra=`` wins)."""

    def filter(self, record: logging.LogRecord) -> bool:
        for name, value in _context.get().items():
            if name not in record.__dict__:
                setattr(record, name, value)
        return True
