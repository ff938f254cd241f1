"""gunicorn's access log, when an operator turns it on (``--access-logfile``),
written without the secrets a request line may hold: a deadlines calendar's
address (``/calendar/<secret>.ics``), a seat link's ``seat=`` token, a username
in a player's path. The same rewriting as Django's request log
(``api.log_redaction``), applied to every value the access log format can name
(the request line, the path, the query, headers, the environ).

Named by ``logger_class`` in splendor_site/gunicorn_conf.py; like
``api.gunicorn_workers`` it is imported by gunicorn before Django is set up, and
imports nothing of Django.
"""

from __future__ import annotations

from typing import Any

# gunicorn ships no type information.
from gunicorn.glogging import Logger  # type: ignore[import-untyped]

from api.log_redaction import redact_usernames


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
