"""The two ways a log line is written (settings LOG_FORMAT): plain text, or one
JSON object a line for a log collector.

Both show the log context (core.log_context) that ``LogContextFilter`` put on
the record. The JSON line holds only the fields named here: whatever else a
record carries (Django's ``request`` on django.request's records, the
arguments of a Celery task's log line) is left out, so that nothing reaches the
log that the message itself does not say.
"""

from __future__ import annotations

import logging
import logging.config
import os
from typing import Any

from pythonjsonlogger.json import JsonFormatter

from core.log_context import LOG_CONTEXT_FIELDS

LOG_FORMATS = ("plain", "json")

PLAIN_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"

# The keys of a JSON line, in order; those with no value are left out.
JSON_FIELDS = ("time", "level", "logger", "message", *LOG_CONTEXT_FIELDS, "exc_info", "stack_info")


class PlainFormatter(logging.Formatter):
    """``PLAIN_FORMAT``, then the log context in brackets when there is one:
    ``... games.services: ... [request_id=4f0c... game_id=A1B2C3]``."""

    def __init__(self) -> None:
        super().__init__(PLAIN_FORMAT)

    def formatMessage(self, record: logging.LogRecord) -> str:
        line = super().formatMessage(record)
        context = " ".join(
            f"{name}={value}" for name in LOG_CONTEXT_FIELDS if (value := getattr(record, name, None)) is not None
        )
        return f"{line} [{context}]" if context else line


class JsonLineFormatter(JsonFormatter):
    """One JSON object a line: ``time`` (ISO 8601, UTC), ``level``, ``logger``,
    ``message``, the log context's fields that are set, and ``exc_info`` (the
    traceback) when there is one."""

    def __init__(self) -> None:
        super().__init__(
            ["levelname", "name", "message"],
            rename_fields={"levelname": "level", "name": "logger"},
            timestamp="time",
            json_ensure_ascii=False,
        )

    def process_log_record(self, log_data: dict[str, Any]) -> dict[str, Any]:
        return {key: log_data[key] for key in JSON_FIELDS if log_data.get(key) is not None}


def log_formatter(log_format: str) -> logging.Formatter:
    """The formatter for LOG_FORMAT ``log_format`` (settings.LOGGING names this
    function; the Celery worker's handlers get theirs from it too)."""
    if log_format == "json":
        return JsonLineFormatter()
    if log_format == "plain":
        return PlainFormatter()
    raise ValueError(f"no log format {log_format!r}: use one of {', '.join(LOG_FORMATS)}")


def log_format_from_environment() -> str:
    """LOG_FORMAT as the settings read it (any case; unset or blank: plain), for
    what logs before Django's settings exist: gunicorn's master process
    (splendor_site/gunicorn_conf.py) and uvicorn's (splendor_site/uvicorn_logging.json).
    A value that is no format stops that process, naming the choices."""
    value = (os.environ.get("LOG_FORMAT") or "").strip().lower() or "plain"
    if value not in LOG_FORMATS:
        raise ValueError(f"LOG_FORMAT={os.environ.get('LOG_FORMAT')!r} is not one of {', '.join(LOG_FORMATS)}.")
    return value


def log_formatter_from_environment() -> logging.Formatter:
    """The formatter of the environment's LOG_FORMAT (a ``()`` factory in a
    dictConfig that is read before the settings)."""
    return log_formatter(log_format_from_environment())


def logging_configure(config: dict[str, Any]) -> None:
    """Django's LOGGING_CONFIG: settings.LOGGING applied as Django would, and with
    LOG_FORMAT=json Python's warnings logged (logger ``py.warnings``) instead of
    printed, so that a warning is a JSON line too and not a line of plain text
    among them."""
    logging.config.dictConfig(config)
    handlers = [handler for handler in logging.getLogger().handlers if isinstance(handler.formatter, JsonLineFormatter)]
    if handlers:
        logging.captureWarnings(True)
