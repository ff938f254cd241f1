"""The site's logging settings: LOG_LEVEL, LOG_FORMAT and Django's LOGGING, read
from the environment like every setting (splendor_site.settings imports them).
Every process the site runs (web, workers, beat, smtpd) logs through these."""

from __future__ import annotations

from django.core.exceptions import ImproperlyConfigured

from splendor_site.environment import env_choice, env_str

_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
LOG_LEVEL = (env_str("LOG_LEVEL", "INFO") or "INFO").upper()
if LOG_LEVEL not in _LEVELS:
    raise ImproperlyConfigured(f"LOG_LEVEL={LOG_LEVEL!r} is not one of DEBUG, INFO, WARNING, ERROR, CRITICAL.")
# The level of a worker's routine lines: beat sending a periodic task, a task
# received, a task done. `manage.py serve` sets WARNING for its workers (unless
# this is set), so that the emails it prints are not lost among them.
WORKER_ROUTINE_LOG_LEVEL = (env_str("WORKER_ROUTINE_LOG_LEVEL", LOG_LEVEL) or LOG_LEVEL).upper()
if WORKER_ROUTINE_LOG_LEVEL not in _LEVELS:
    raise ImproperlyConfigured(
        f"WORKER_ROUTINE_LOG_LEVEL={WORKER_ROUTINE_LOG_LEVEL!r} is not one of DEBUG, INFO, WARNING, ERROR, CRITICAL."
    )
_WORKER_ROUTINE_LOGGERS = ("celery.beat", "celery.worker.strategy", "celery.app.trace")
# LOG_FORMAT=json: one JSON object a line, for a log collector; plain text otherwise
# (core.log_format). Either way each line carries the request id, the game, the
# events and the task it is about, when there is one (core.log_context).
LOG_FORMAT = env_choice("LOG_FORMAT", "plain", ("plain", "json"))
# settings.LOGGING applied, and with json Python's warnings logged too, not printed.
LOGGING_CONFIG = "core.log_format.logging_configure"
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {name: {"()": "core.log_format.log_formatter", "log_format": name} for name in ("plain", "json")},
    "filters": {
        # Paths that name a player (GET /api/v1/players/{username}/) are logged without the name.
        "redact_usernames": {"()": "api.log_redaction.RedactUsernamesInPaths"},
        "log_context": {"()": "core.log_context.LogContextFilter"},
        # django.request logs an error answer once the request's log context has ended.
        "request_id": {"()": "api.request_id.RequestIdOfLoggedRequest"},
    },
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": LOG_FORMAT, "filters": ["log_context"]}},
    "root": {"handlers": ["console"], "level": LOG_LEVEL},
    "loggers": {
        "django": {"handlers": ["console"], "level": LOG_LEVEL, "propagate": False},
        "django.request": {"filters": ["redact_usernames", "request_id"]},
        "django.server": {"filters": ["redact_usernames"]},
        **{name: {"level": WORKER_ROUTINE_LOG_LEVEL} for name in _WORKER_ROUTINE_LOGGERS},
    },
}
