"""gunicorn's access log, when an operator turns it on (``--access-logfile``),
written without the secrets a request line may hold: a deadlines calendar's
address (``/calendar/<secret>.ics``), a seat link's ``seat=`` token, a username
in a player's path. The same rewriting as Django's request log
(``api.log_redaction``), applied to every value the access log format can name
(the request line, the path, the query, headers, the environ).

With LOG_FORMAT=json the access log's lines are JSON lines like every other
(core.log_format), and the ``logconfig_dict`` that makes gunicorn's own lines
JSON (splendor_site/gunicorn_conf.py) does not turn the access log on, as
gunicorn would: only ``--access-logfile`` (or syslog) does.

Named by ``logger_class`` in splendor_site/gunicorn_conf.py; like
``api.gunicorn_workers`` it is imported by gunicorn before Django is set up, and
imports nothing of Django.
"""

from __future__ import annotations

from typing import Any

# gunicorn ships no type information.
from gunicorn.glogging import Logger  # type: ignore[import-untyped]

from api.log_redaction import redact_usernames
from core.log_format import log_format_from_environment, log_formatter


def _redacted(key: str, value: Any) -> Any:
    if not isinstance(value, str):
        return value
    if key in ("q", "{query_string}e"):
        # A bare query string ("seat=..."): read it as the query it is.
        return redact_usernames("?" + value)[1:]
    return redact_usernames(value)


class RedactedAccessLogger(Logger):  # type: ignore[misc]  # Logger is Any to mypy
    def atoms(self, resp: Any, req: Any, environ: dict[str, Any], request_time: Any) -> dict[str, Any]:
        atoms: dict[str, Any] = super().atoms(resp, req, environ, request_time)
        return {key: _redacted(key, value) for key, value in atoms.items()}

    def setup(self, cfg: Any) -> None:
        super().setup(cfg)
        if log_format_from_environment() == "json":
            for handler in self.access_log.handlers:
                handler.setFormatter(log_formatter("json"))

    @property
    def access_log_enabled(self) -> bool:
        # gunicorn counts a logconfig_dict as asking for the access log; here only
        # a handler of its own does (--access-logfile, or syslog).
        return bool(self.access_log.handlers)
