"""gunicorn's settings for the site: ``gunicorn -c splendor_site/gunicorn_conf.py``
(docs/deploy.md). An option given on the command line wins over the one here,
e.g. ``--bind 0.0.0.0:8000`` or ``--workers 5``.

gunicorn reads this file before Django is set up: nothing of the site is imported.
"""

wsgi_app = "splendor_site.wsgi"
bind = ["127.0.0.1:8000"]
# Sync workers, one request at a time each: 3 on a machine of 2 cores (gunicorn's
# advice is 2 to 4 per core); every one holds at most one database connection.
workers = 3
# gunicorn's own answers to requests it cannot read are problem details like every
# other API error (api.gunicorn_workers).
worker_class = "api.gunicorn_workers.ProblemJsonSyncWorker"
# No access log unless asked for (--access-logfile); if it is, it is written without
# the secrets a path may hold (a calendar's address, a seat link's token: api.gunicorn_logging).
logger_class = "api.gunicorn_logging.RedactedAccessLogger"
# gunicorn would believe X-Forwarded-Proto: https (and -Ssl, -Protocol) from
# 127.0.0.1 by default and call the request secure itself, whatever
# SECURE_PROXY_SSL_HEADER says: anything on the machine could then pass for https.
# Empty: gunicorn believes no forwarded header, and only Django reads them, as
# SECURE_PROXY_SSL_HEADER and TRUSTED_PROXIES allow.
forwarded_allow_ips = ""
# A request that takes longer than this is cut off and its worker replaced.
timeout = 30
# On SIGTERM (systemctl stop, a release), requests under way get this long to end.
graceful_timeout = 20
# gunicorn's control socket (for `gunicornc`) is off. Its default path,
# $XDG_RUNTIME_DIR/gunicorn.ctl or ~/.gunicorn/gunicorn.ctl, is one socket for every
# gunicorn a user runs on the machine: a second instance (a second site, a test)
# takes it over, and gunicornc would then stop or resize the wrong one. Signals do
# what the service needs: TERM stops gunicorn gracefully, HUP reloads its workers.
control_socket_disable = True


def post_worker_init(worker: object) -> None:
    """Once a worker has loaded the site: its garbage collected, and what is left
    (the modules, Django's and the site's tables: some 160,000 objects) frozen out
    of the collector's passes (gc.freeze). A full pass over them took a few tens of
    milliseconds each time, some 7% of the web's CPU per turn (docs/benchmarks.md);
    they live as long as the process anyway."""
    import gc

    gc.collect()
    gc.freeze()


# LOG_FORMAT=json: gunicorn's own lines (its master's and workers' start, stop and
# errors) are JSON lines too, as the site's are (core.log_format), on stderr. The
# access log stays off unless asked for (--access-logfile; api.gunicorn_logging).
from core.log_format import log_format_from_environment  # noqa: E402  (no Django in it)

if log_format_from_environment() == "json":
    logconfig_dict = {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"json": {"()": "core.log_format.log_formatter", "log_format": "json"}},
        "handlers": {"json": {"class": "logging.StreamHandler", "formatter": "json", "stream": "ext://sys.stderr"}},
        "root": {"level": "INFO", "handlers": ["json"]},
        "loggers": {"gunicorn.error": {"handlers": ["json"], "propagate": False}},
    }
