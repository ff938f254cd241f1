"""The one settings file. Every knob comes from the environment.

Defaults are safe for one machine (SQLite, an in-process Celery broker, email
printed to the console). A bad value stops start-up with a message that names
the variable and the value, instead of surfacing later as a strange failure.
Every variable is listed in docs/configuration.md.
"""

from __future__ import annotations

from fnmatch import fnmatchcase as fnmatch
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import dj_database_url
import engine.bots as _engine_bots
import engine.review as _engine_review
from core.redis_budget import connection_class_for
import django_stubs_ext
from django.core.exceptions import ImproperlyConfigured

from splendor_site.environment import (
    env_bool,
    env_broker_url,
    env_class,
    env_delays,
    env_fraction,
    env_int,
    env_list,
    env_networks,
    env_ports,
    env_rate,
    env_seconds,
    env_str,
    env_trusted_proxies,
    url_redacted,
)
# The REST API's settings (DRF, throttle rates, OpenAPI) and logging's have modules of their own.
from splendor_site.api_settings import (  # noqa: F401
    API_THROTTLE_ANON_RATE,
    API_THROTTLE_RESEND_RATE,
    API_THROTTLE_USER_RATE,
    API_TOKEN_CACHE_SECONDS,
    REST_FRAMEWORK,
    SPECTACULAR_SETTINGS,
)
from splendor_site.logging_settings import LOG_FORMAT, LOG_LEVEL, LOGGING, LOGGING_CONFIG  # noqa: F401

# Lets classes that are generic only in the type stubs take type arguments at
# run time too (`admin.ModelAdmin[Game]`), so `mypy --strict` can check them.
django_stubs_ext.monkeypatch()

BASE_DIR = Path(__file__).resolve().parent.parent





# --- core -------------------------------------------------------------------

DEBUG = env_bool("DEBUG", True)

_DEV_SECRET_KEY = "django-insecure-dev-only-do-not-use-in-production-0123456789abcdef"
SECRET_KEY = env_str("SECRET_KEY", _DEV_SECRET_KEY if DEBUG else None)
if SECRET_KEY is None:
    raise ImproperlyConfigured(
        "SECRET_KEY is not set. It is required when DEBUG is off; generate one with "
        "python -c 'import secrets; print(secrets.token_urlsafe(50))'."
    )

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]"])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

# The site's public address: links in emails (games.links.seat_link_url) start with it.
SITE_URL = (env_str("SITE_URL", "http://127.0.0.1:8000") or "").rstrip("/")
if urlsplit(SITE_URL).scheme not in ("http", "https") or not urlsplit(SITE_URL).netloc:
    raise ImproperlyConfigured(
        f"SITE_URL={SITE_URL!r} is not an absolute http(s) address; set it like https://splendor.example."
    )
# How often an open game page asks whether the game moved on (games.pages, GET /games/<id>/version).
GAME_PAGE_POLL_SECONDS = env_int("GAME_PAGE_POLL_SECONDS", 4, minimum=1)

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "accounts",
    "games",
    "notifications",
    "webhooks",
    "leagues",
    "streams",
    "chat",
    "calendars",
    "tournaments",
    "reviews",
    "front",  # the site's own pages that combine apps, on top of them
    "anymail",
    # The wiring layer: management commands only (serve, bench_make_games), no models.
    "splendor_site.apps.SiteConfig",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    # /static/ is answered here, before anything below reads the request (see STORAGES).
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # Each request's id, on its log lines and in X-Request-ID (api.request_id).
    "api.request_id.RequestIdMiddleware",
    # One time budget for Redis per request, whatever uses it (core.redis_budget).
    "api.redis_budget.RedisBudgetMiddleware",
    # Counts and times every answer below (docs/operations.md, "Metrics").
    "api.metrics.HttpMetricsMiddleware",
    "api.middleware.PrivateApiResponsesMiddleware",
    "api.middleware.ApiProblemMiddleware",
    "api.middleware.BodySizeLimitMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    # The language of the answer: Accept-Language (or the language switch's cookie);
    # it sets Content-Language and Vary: Accept-Language (docs/i18n.md).
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # Signed-in pages: the account's language (accounts.language), its offline boards (games.pages.offline).
    "accounts.language.AccountLanguageMiddleware",
    "games.pages.offline.BoardCacheAccountMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "api.middleware.RateLimitHeadersMiddleware",
]

ROOT_URLCONF = "splendor_site.urls"
WSGI_APPLICATION = "splendor_site.wsgi.application"
ASGI_APPLICATION = "splendor_site.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# --- database ---------------------------------------------------------------

DATABASE_URL = env_str("DATABASE_URL", f"sqlite:///{BASE_DIR / 'db.sqlite3'}")
assert DATABASE_URL is not None
try:
    _database = dj_database_url.parse(
        DATABASE_URL,
        conn_max_age=env_int("DATABASE_CONN_MAX_AGE", 60, minimum=0),
        conn_health_checks=True,
    )
except Exception as exc:  # dj-database-url raises several kinds; all mean the same here
    raise ImproperlyConfigured(
        f"DATABASE_URL={url_redacted(DATABASE_URL)!r} is not a database URL this site can use "
        f"({exc}). Examples: sqlite:///db.sqlite3, postgres://user:password@host:5432/name."
    ) from None
if not _database.get("ENGINE"):
    raise ImproperlyConfigured(f"DATABASE_URL={url_redacted(DATABASE_URL)!r} names no database engine.")

if _database["ENGINE"] == "django.db.backends.sqlite3":
    # Concurrent writers (web workers, Celery) would otherwise see "database is
    # locked": IMMEDIATE takes the write lock at BEGIN, so a writer waits up to
    # `timeout` seconds instead of failing on upgrade; WAL lets readers go on.
    _database["CONN_MAX_AGE"] = 0
    _database["OPTIONS"] = {
        "transaction_mode": "IMMEDIATE",
        "timeout": 20,
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
    }

# A database that does not answer must not hold a request (or /healthz) for long.
DATABASE_CONNECT_TIMEOUT = env_int("DATABASE_CONNECT_TIMEOUT", 5, minimum=1)
if _database["ENGINE"] == "django.db.backends.postgresql":
    _database.setdefault("OPTIONS", {})["connect_timeout"] = DATABASE_CONNECT_TIMEOUT

DATABASES = {"default": _database}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- cache (throttling counters live here) -----------------------------------

CACHE_URL = env_str("CACHE_URL", "locmem://")
assert CACHE_URL is not None
# The cache holds only rate-limit counters, so the service works without it: short
# timeouts keep a cache that is down or hangs from holding a worker (api.throttling
# then counts in the process instead; /healthz reports it).
CACHE_TIMEOUT_SECONDS = env_seconds("CACHE_TIMEOUT_SECONDS", 0.25, maximum=5)
# What one request may wait on Redis in all (cache, stream, broker), and how long a
# server that timed out or refused is left alone (core.redis_budget, api.redis_budget).
REDIS_REQUEST_BUDGET_SECONDS = env_seconds("REDIS_REQUEST_BUDGET_SECONDS", 0.5, maximum=30)
REDIS_CIRCUIT_OPEN_SECONDS = env_seconds("REDIS_CIRCUIT_OPEN_SECONDS", 5.0, maximum=300)
CACHES: dict[str, dict[str, Any]]  # as Django's own settings declare it; the two shapes below differ
if CACHE_URL.startswith(("redis://", "rediss://")):
    _cache_options = {"socket_connect_timeout": CACHE_TIMEOUT_SECONDS, "socket_timeout": CACHE_TIMEOUT_SECONDS}
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": CACHE_URL,
            "OPTIONS": {**_cache_options, "retry_on_timeout": False, "connection_class": connection_class_for(CACHE_URL)},
        }
    }
elif CACHE_URL == "locmem://":
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
else:
    raise ImproperlyConfigured(
        f"CACHE_URL={url_redacted(CACHE_URL)!r} is not supported: use locmem:// or redis://host:6379/1."
    )

# --- passwords, language, time ------------------------------------------------

# Django's backend with wrong passwords counted per username (accounts.backends).
AUTHENTICATION_BACKENDS = ["accounts.backends.LockoutModelBackend"]

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

# The languages the service speaks (docs/i18n.md): English, Italian and Latvian.
# Each app keeps its catalog in <app>/locale/; the engine's rule messages and the
# shared words of core are in engine/locale/ and core/locale/.
LANGUAGE_CODE = "en"
LANGUAGES = [("en", "English"), ("it", "Italiano"), ("lv", "Latviešu")]
# api is no installed app: its catalog is named here as engine's and core's are.
LOCALE_PATHS = [BASE_DIR / "engine" / "locale", BASE_DIR / "core" / "locale", BASE_DIR / "api" / "locale"]
LANGUAGE_COOKIE_NAME = "language"
LANGUAGE_COOKIE_SAMESITE = "Lax"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = env_str("STATIC_ROOT", str(BASE_DIR / "staticfiles"))
# The site serves /static/ itself (WhiteNoise), so gunicorn alone shows the admin,
# /api/docs/ and the game page whole, with or without a proxy in front.
# DEBUG off: the files `collectstatic` put in STATIC_ROOT, under names carrying a
# hash of their content (browsers keep those for a year; a release that changes a
# file changes its name) and compressed. A page with {% static %} then needs the
# manifest collectstatic writes: without it the page fails loudly, not unstyled.
# DEBUG on (the development server, no collectstatic): the files where the apps keep
# them, under their plain names, read again when they change.
# The choice is made when the settings load, from the environment; Django's test
# runner turns DEBUG off only later, and tests/conftest.py keeps the plain storage
# whatever the environment says, since the suite never runs collectstatic.
STORAGES: dict[str, dict[str, Any]] = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"
        if DEBUG
        else "whitenoise.storage.CompressedManifestStaticFilesStorage"
    },
}
WHITENOISE_USE_FINDERS = DEBUG
WHITENOISE_AUTOREFRESH = DEBUG

# --- request limits -----------------------------------------------------------

# Bodies larger than this are answered 413 before any view reads them.
DATA_UPLOAD_MAX_MEMORY_SIZE = env_int("DATA_UPLOAD_MAX_MEMORY_SIZE", 64 * 1024, minimum=1024)

# --- email --------------------------------------------------------------------

EMAIL_BACKEND = env_class("EMAIL_BACKEND", "django.core.mail.backends.console.EmailBackend", must_have="send_messages")
EMAIL_HOST = env_str("EMAIL_HOST", "localhost")
EMAIL_PORT = env_int("EMAIL_PORT", 25, minimum=1)
EMAIL_HOST_USER = env_str("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = env_str("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", False)
EMAIL_TIMEOUT = env_int("EMAIL_TIMEOUT", 10, minimum=1)
DEFAULT_FROM_EMAIL = env_str("DEFAULT_FROM_EMAIL", "Splendor by post <splendor@localhost>")
SERVER_EMAIL = DEFAULT_FROM_EMAIL

# Game email (notifications.email.services): replies go to play+<seat token>@EMAIL_REPLY_DOMAIN,
# which the play-by-email work reads; Message-IDs use the same domain.
EMAIL_REPLY_DOMAIN = env_str("EMAIL_REPLY_DOMAIN", "localhost")
# A notification the mail server did not take is tried again after
# NOTIFICATION_RETRY_SECONDS, doubling each time, and given up after this many tries.
NOTIFICATION_MAX_ATTEMPTS = env_int("NOTIFICATION_MAX_ATTEMPTS", 6, minimum=1)
NOTIFICATION_RETRY_SECONDS = env_int("NOTIFICATION_RETRY_SECONDS", 60, minimum=1)
# How often the beat sends queued notifications whose next try is due.
NOTIFICATION_SEND_DUE_SECONDS = env_int("NOTIFICATION_SEND_DUE_SECONDS", 60, minimum=1)
# django-anymail's tracking webhooks (bounces) at /anymail/<esp>/tracking/, routed
# only when this shared secret (basic auth, "user:password") is set: anymail would
# otherwise take unauthenticated posts, and anyone could mark addresses undeliverable.
ANYMAIL_WEBHOOK_SECRET = env_str("ANYMAIL_WEBHOOK_SECRET", None)
ANYMAIL: dict[str, Any] = {"WEBHOOK_SECRET": ANYMAIL_WEBHOOK_SECRET} if ANYMAIL_WEBHOOK_SECRET else {}

# --- Celery -------------------------------------------------------------------

# Files the site writes at run time (the embedded broker's folders, beat's
# schedule); git-ignored, made by `manage.py serve` and on the first message.
VAR_DIR = Path(env_str("VAR_DIR", str(BASE_DIR / "var")) or "var").resolve()
# Where EMAIL_BACKEND=django.core.mail.backends.filebased.EmailBackend writes one
# file per message (the console backend, the default, prints them instead).
EMAIL_FILE_PATH = env_str("EMAIL_FILE_PATH", str(VAR_DIR / "mail"))
# The default broker is embedded: kombu's filesystem transport, a folder of
# message files under VAR_DIR that the web process and the worker started by
# `manage.py serve` share, so one command enforces deadlines and sends email
# with no server to install. Several machines: redis://... (docs/deploy.md).
CELERY_BROKER_URL = env_broker_url("CELERY_BROKER_URL", "filesystem://")
BROKER_FOLDERS = {
    "queue": VAR_DIR / "broker" / "queue",
    "control": VAR_DIR / "broker" / "control",
    "processed": VAR_DIR / "broker" / "processed",
}
# The in-process broker (memory://) has no worker behind it, so tasks run inline
# there; with any other broker a worker runs them.
CELERY_TASK_ALWAYS_EAGER = env_bool("CELERY_TASK_ALWAYS_EAGER", CELERY_BROKER_URL.startswith("memory://"))
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_RESULT_BACKEND = env_str("CELERY_RESULT_BACKEND", None)
CELERY_TASK_IGNORE_RESULT = CELERY_RESULT_BACKEND is None
CELERY_TASK_ACKS_LATE = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
# Database connections in a worker live as long as in a web process (CONN_MAX_AGE,
# with health checks): splendor_site.celery closes them between tasks only when
# Django would between requests. Without this Celery closes them before and after
# every task, and each task paid for a new PostgreSQL connection (most of a small
# task's cost, in the worker and in the database). Celery still reopens them after
# twice this many tasks.
CELERY_DB_REUSE_MAX = 10_000
# What tasks print (the console email backend) stays plain text on the worker's
# stdout rather than becoming WARNING log lines.
CELERY_WORKER_REDIRECT_STDOUTS = False
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# A worker whose broker goes away reconnects, however long it takes, with waits
# growing to 30 s between tries (Celery's default stops at 100 tries and starts over).
CELERY_BROKER_CONNECTION_MAX_RETRIES = None
CELERY_TIMEZONE = TIME_ZONE
# A request that queues a task must not wait long on a broker that is down or
# hung: the outbox keeps the event and redelivery queues it again
# (docs/operations.md). This bounds the connection and every read while publishing
# (BROKER_PUBLISH_TRANSPORT_OPTIONS, splendor_site.celery).
BROKER_TIMEOUT_SECONDS = env_seconds("BROKER_TIMEOUT_SECONDS", 0.5, maximum=30)
CELERY_BROKER_CONNECTION_TIMEOUT = BROKER_TIMEOUT_SECONDS
CELERY_BROKER_TRANSPORT_OPTIONS: dict[str, Any]
# Added to the transport options of the connections that publish (web requests,
# beat, tasks queueing tasks): short, so that publishing to a hung broker fails in
# BROKER_TIMEOUT_SECONDS. The worker's consumer keeps the longer read timeout below:
# it waits on the broker by design.
BROKER_PUBLISH_TRANSPORT_OPTIONS: dict[str, Any] = {}
if CELERY_BROKER_URL.startswith("filesystem://"):
    # One folder both ways: the web process writes messages where the worker reads them.
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(BROKER_FOLDERS["queue"]),
        "data_folder_out": str(BROKER_FOLDERS["queue"]),
        "control_folder": str(BROKER_FOLDERS["control"]),
        "processed_folder": str(BROKER_FOLDERS["processed"]),
        "store_processed": False,
        "polling_interval": 1.0,
    }
    # Remote control and worker events broadcast to every worker through fanout
    # queues: one embedded worker has no one to talk to, and each broadcast would
    # leave files behind.
    CELERY_WORKER_ENABLE_REMOTE_CONTROL = False
    CELERY_WORKER_SEND_TASK_EVENTS = False
else:
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "socket_connect_timeout": BROKER_TIMEOUT_SECONDS,
        "socket_timeout": max(BROKER_TIMEOUT_SECONDS, 5.0),
        # Redis: a task taken by a worker that died (acks_late: not acknowledged)
        # is given to another worker after this long. Longer than any task runs.
        "visibility_timeout": env_int("BROKER_VISIBILITY_TIMEOUT_SECONDS", 3600, minimum=1),
        # One connection attempt when a message is sent, not kombu's retries a
        # second apart: a move must not wait on a broker that is down. (The
        # worker's own consumer reconnects by broker_connection_retry.)
        "max_retries": 0,
    }
    BROKER_PUBLISH_TRANSPORT_OPTIONS = {
        "socket_connect_timeout": BROKER_TIMEOUT_SECONDS,
        "socket_timeout": BROKER_TIMEOUT_SECONDS,
    }
# Each class of work has a queue of its own and its own workers (docs/deploy.md,
# "Queues"), so that no class's backlog stands in front of another's work:
# DEFAULT_QUEUE: game email, the outbox's consumers, the stream, inbound email;
# WEBHOOKS_QUEUE: webhook attempts (slow receivers); BOTS_QUEUE: every move a bot
# makes (practice games, sandboxes, a seat a moderator handed to the bot, the
# takeover of a missed deadline), seconds of search each; BEAT_QUEUE: the periodic
# tasks beat sends, which only find due rows and queue or do small work.
DEFAULT_QUEUE = "celery"
WEBHOOKS_QUEUE = "webhooks"
BOTS_QUEUE = "bots"
BEAT_QUEUE = "beat"
CELERY_TASK_DEFAULT_QUEUE = DEFAULT_QUEUE
# Routes by task name (a glob for the bots' tasks); the periodic tasks are added to
# BEAT_QUEUE below, after the last entry of CELERY_BEAT_SCHEDULE.
CELERY_TASK_ROUTES: dict[str, dict[str, str]] = {
    "games.tasks.bot_*": {"queue": BOTS_QUEUE},
    "games.tasks.play_bots": {"queue": BOTS_QUEUE},
    "games.tasks.time_out_game": {"queue": BOTS_QUEUE},
    # A review's positions, one search per task (reviews.tasks), in line with the bots' moves.
    "reviews.tasks.bot_review_position": {"queue": BOTS_QUEUE},
}
# `celery beat` keeps when each entry last ran here (`manage.py serve` and the
# systemd units in docs/deploy.md pass it as --schedule).
CELERY_BEAT_SCHEDULE_FILENAME = str(VAR_DIR / "celerybeat-schedule")

# Periodic work, sent by `celery -A splendor_site beat` and run by the workers.
# Deadlines are swept, never scheduled as long ETA tasks (games.models.Game.deadline_at).
DEADLINE_SWEEP_SECONDS = env_int("DEADLINE_SWEEP_SECONDS", 60, minimum=1)
# Open games nobody has joined are aborted after this many days.
OPEN_GAME_EXPIRY_DAYS = env_int("OPEN_GAME_EXPIRY_DAYS", 14, minimum=1)
# How long an Idempotency-Key is honoured; older records are deleted.
IDEMPOTENCY_KEY_TTL_HOURS = env_int("IDEMPOTENCY_KEY_TTL_HOURS", 24, minimum=1)
# Outbox events a consumer has not finished (its worker or the broker was down)
# are queued again this often.
OUTBOX_REDELIVER_SECONDS = env_int("OUTBOX_REDELIVER_SECONDS", 60, minimum=1)
# Events older than this are not redelivered: news that old is no longer news.
OUTBOX_REDELIVER_MAX_HOURS = env_int("OUTBOX_REDELIVER_MAX_HOURS", 24, minimum=1)
# Claims held by a worker that died are taken again after their lease: an outbox
# event (per consumer), an email being sent, a webhook delivery being attempted.
# An event nobody claimed is queued again once it is this old (the broker or
# every worker was down when it was written). Shorter leases redeliver sooner
# but risk a second copy from a worker that is only slow.
OUTBOX_CLAIM_LEASE_SECONDS = env_int("OUTBOX_CLAIM_LEASE_SECONDS", 300, minimum=1)
OUTBOX_REDELIVER_AFTER_SECONDS = env_int("OUTBOX_REDELIVER_AFTER_SECONDS", 60, minimum=1)
NOTIFICATION_SEND_LEASE_SECONDS = env_int("NOTIFICATION_SEND_LEASE_SECONDS", 600, minimum=1)
WEBHOOK_CLAIM_LEASE_SECONDS = env_int("WEBHOOK_CLAIM_LEASE_SECONDS", 120, minimum=1)
# Clocks (docs/api.md, "Clocks and timeouts"). Times in seconds in POST /games/
# (move_timeout_seconds, time_bank_seconds, time_bank_cap_seconds) only when set:
# for end-to-end tests in real time, never in production.
GAME_CLOCK_SECONDS = env_bool("GAME_CLOCK_SECONDS", False)
# Vacation days per player per calendar year; a deadline that would pass takes one.
VACATION_DAYS_PER_YEAR = env_int("VACATION_DAYS_PER_YEAR", 14, minimum=0)
# The bot that plays for a person: a missed deadline, a seat a moderator handed to
# the bot. One of engine.bots.BOTS; the search bot (ismcts) thinks for
# TAKEOVER_BOT_PLAYOUTS playouts a move, a budget at which a sweep of 100 overdue
# games stays under a minute on one core (docs/benchmarks.md).
TAKEOVER_BOT = (env_str("TAKEOVER_BOT", "ismcts") or "").lower()
if TAKEOVER_BOT not in _engine_bots.BOTS:
    raise ImproperlyConfigured(
        f"TAKEOVER_BOT={TAKEOVER_BOT!r} is not one of the built-in bots: {', '.join(sorted(_engine_bots.BOTS))}."
    )
TAKEOVER_BOT_PLAYOUTS = env_int("TAKEOVER_BOT_PLAYOUTS", 200, minimum=1)
# The search bot's playouts a move where a player chose it as an opponent (practice
# games and sandboxes): 1,000, about half a second on one core, the budget whose
# strength docs/benchmarks.md measures. Played in a worker, never in a request.
PRACTICE_BOT_PLAYOUTS = env_int("PRACTICE_BOT_PLAYOUTS", 1000, minimum=1)
# Practice games and sandboxes one account may have in play at once: one more is
# refused (409 too_many_practice_games) until one ends, so that no account's bots
# take more than a fair share of the workers.
PRACTICE_GAMES_ACTIVE_PER_ACCOUNT = env_int("PRACTICE_GAMES_ACTIVE_PER_ACCOUNT", 5, minimum=1)
# Invited seats per account in the games it created in the last 24 hours.
INVITATIONS_PER_DAY = env_int("INVITATIONS_PER_DAY", 20, minimum=1)
# Pauses whose end has come are ended this often (games.tasks.end_pauses).
PAUSE_SWEEP_SECONDS = env_int("PAUSE_SWEEP_SECONDS", 60, minimum=1)
CELERY_BEAT_SCHEDULE: dict[str, dict[str, Any]] = {
    "games-sweep-deadlines": {
        "task": "games.tasks.sweep_deadlines",
        "schedule": float(DEADLINE_SWEEP_SECONDS),
        # A sweep still queued when the next one is due is dropped: the next one does its work.
        "options": {"expires": DEADLINE_SWEEP_SECONDS},
    },
    "games-end-pauses": {
        "task": "games.tasks.end_pauses",
        "schedule": float(PAUSE_SWEEP_SECONDS),
        "options": {"expires": PAUSE_SWEEP_SECONDS},
    },
    # A practice game's bot whose task was lost is queued again (games.services.bot_turns_requeue).
    "games-requeue-bot-turns": {
        "task": "games.tasks.requeue_bot_turns",
        "schedule": float(DEADLINE_SWEEP_SECONDS),
        "options": {"expires": DEADLINE_SWEEP_SECONDS},
    },
    "games-housekeeping": {
        "task": "games.tasks.housekeeping",
        "schedule": 3600.0,
        "options": {"expires": 3600},
    },
    "accounts-housekeeping": {
        "task": "accounts.tasks.housekeeping",
        "schedule": 3600.0,
        "options": {"expires": 3600},
    },
    "games-redeliver-events": {
        "task": "games.tasks.redeliver_events",
        "schedule": float(OUTBOX_REDELIVER_SECONDS),
        "options": {"expires": OUTBOX_REDELIVER_SECONDS},
    },
    "notifications-send-due": {
        "task": "notifications.tasks.send_due",
        "schedule": float(NOTIFICATION_SEND_DUE_SECONDS),
        "options": {"expires": NOTIFICATION_SEND_DUE_SECONDS},
    },
}


# --- Webhooks (docs/webhooks.md) ------------------------------------------------

# Webhooks go to public addresses only; tests (and a developer's machine) may
# allow loopback. Private, link-local and the rest are never allowed.
WEBHOOKS_ALLOW_LOOPBACK = env_bool("WEBHOOKS_ALLOW_LOOPBACK", False)
WEBHOOKS_MAX_PER_USER = env_int("WEBHOOKS_MAX_PER_USER", 10, minimum=1)
# The connect timeout and the longest wait for any one read of an attempt; a
# response body is read up to this many bytes.
WEBHOOKS_TIMEOUT_SECONDS = env_seconds("WEBHOOKS_TIMEOUT_SECONDS", 5.0, maximum=30)
WEBHOOKS_MAX_RESPONSE_BYTES = env_int("WEBHOOKS_MAX_RESPONSE_BYTES", 4096, minimum=0)
# The whole of one attempt (look-up, connection, TLS, the answer's headers and body)
# is cut at this: a receiver that trickles its answer holds a worker no longer.
WEBHOOKS_ATTEMPT_SECONDS = env_seconds("WEBHOOKS_ATTEMPT_SECONDS", 10.0, maximum=300)
# A claimed delivery (and its endpoint) is taken again after this lease: it must
# outlast any attempt, or a slow attempt and its retry would post the same message at once.
if WEBHOOK_CLAIM_LEASE_SECONDS <= WEBHOOKS_ATTEMPT_SECONDS:
    raise ImproperlyConfigured(
        f"WEBHOOK_CLAIM_LEASE_SECONDS={WEBHOOK_CLAIM_LEASE_SECONDS} must be longer than "
        f"WEBHOOKS_ATTEMPT_SECONDS={WEBHOOKS_ATTEMPT_SECONDS:g}: a delivery would be claimed again "
        "while its attempt is still running, and sent twice."
    )


# The only ports deliveries connect to (loopback, when allowed, keeps any port):
# a webhook URL cannot reach a public host's mail, database or admin ports.
WEBHOOKS_ALLOWED_PORTS = env_ports("WEBHOOKS_ALLOWED_PORTS", [80, 443])
# Attempts run on a queue of their own (WEBHOOKS_QUEUE), so that slow receivers never
# hold the workers that send game email and sweep deadlines. Its sweep of retries
# attempts them itself, so it stays there too, off beat's queue.
CELERY_TASK_ROUTES["webhooks.tasks.deliver"] = {"queue": WEBHOOKS_QUEUE}
CELERY_TASK_ROUTES["webhooks.tasks.deliver_due"] = {"queue": WEBHOOKS_QUEUE}


# After a failed attempt the next one waits the next of these delays; when they
# run out the delivery has failed (and its endpoint is disabled).
WEBHOOKS_RETRY_DELAYS_SECONDS = env_delays(
    "WEBHOOKS_RETRY_DELAYS_SECONDS", [5, 5 * 60, 30 * 60, 2 * 3600, 5 * 3600, 10 * 3600, 10 * 3600]
)
# An endpoint is also disabled after this many failed attempts in a row that
# span at least WEBHOOKS_DISABLE_AFTER_HOURS.
WEBHOOKS_DISABLE_AFTER_FAILURES = env_int("WEBHOOKS_DISABLE_AFTER_FAILURES", 15, minimum=1)
WEBHOOKS_DISABLE_AFTER_HOURS = env_int("WEBHOOKS_DISABLE_AFTER_HOURS", 24, minimum=1)
# How often the beat sends the deliveries whose retry is due, and how many at most each time.
WEBHOOKS_SWEEP_SECONDS = env_int("WEBHOOKS_SWEEP_SECONDS", 10, minimum=1)
WEBHOOKS_SWEEP_BATCH = env_int("WEBHOOKS_SWEEP_BATCH", 50, minimum=1)
CELERY_BEAT_SCHEDULE["webhooks-deliver-due"] = {
    "task": "webhooks.tasks.deliver_due",
    "schedule": float(WEBHOOKS_SWEEP_SECONDS),
    "options": {"expires": WEBHOOKS_SWEEP_SECONDS},
}

# --- Web Push (notifications.push, docs/notifications.md "Push") -------------------

# The server's VAPID key pair (RFC 8292), as `manage.py vapid_keys` prints it: the
# private key as the urlsafe base64 of its 32 raw bytes, the public key as the
# urlsafe base64 of its 65-byte uncompressed P-256 point (what a browser takes as
# applicationServerKey). Without them push is off: GET /api/v1/push/key/ says so
# and nothing is sent. VAPID_SUBJECT (mailto: or https:) tells push services whom
# to contact about this sender. A bad pair stops start-up (notifications.push.keys).
VAPID_PRIVATE_KEY = env_str("VAPID_PRIVATE_KEY", "") or ""
VAPID_PUBLIC_KEY = env_str("VAPID_PUBLIC_KEY", "") or ""
VAPID_SUBJECT = env_str("VAPID_SUBJECT", "") or ""

# The most browsers (push subscriptions) one account may have.
PUSH_SUBSCRIPTIONS_PER_ACCOUNT = env_int("PUSH_SUBSCRIPTIONS_PER_ACCOUNT", 10, minimum=1)
# How long a push service keeps a message for a device that is offline (its TTL header).
PUSH_TTL_SECONDS = env_int("PUSH_TTL_SECONDS", 86400, minimum=0)
# A push to the push service is outgoing HTTP to a server outside, like a webhook
# delivery: it runs on WEBHOOKS_QUEUE, with the same URL rules (WEBHOOKS_ALLOW_LOOPBACK,
# WEBHOOKS_ALLOWED_PORTS), timeouts and retry delays (WEBHOOKS_RETRY_DELAYS_SECONDS),
# and its retries are swept as often as webhooks' (WEBHOOKS_SWEEP_SECONDS).
CELERY_TASK_ROUTES["notifications.push.tasks.send"] = {"queue": WEBHOOKS_QUEUE}
CELERY_TASK_ROUTES["notifications.push.tasks.send_due"] = {"queue": WEBHOOKS_QUEUE}
CELERY_BEAT_SCHEDULE["notifications-push-send-due"] = {
    "task": "notifications.push.tasks.send_due",
    "schedule": float(WEBHOOKS_SWEEP_SECONDS),
    "options": {"expires": WEBHOOKS_SWEEP_SECONDS},
}

# --- Reminders and daily digests (notifications.reminders) ----------------------

# How often the beat sends the reminders that are due (each is due a player's
# chosen hours before a deadline), and the digests that are due (each at a
# player's digest hour in their time zone: the sweep's period is how late one may be).
REMINDER_SWEEP_SECONDS = env_int("REMINDER_SWEEP_SECONDS", 60, minimum=1)
DIGEST_SWEEP_SECONDS = env_int("DIGEST_SWEEP_SECONDS", 300, minimum=1)
CELERY_BEAT_SCHEDULE["notifications-send-due-reminders"] = {
    "task": "notifications.reminder_tasks.send_due_reminders",
    "schedule": float(REMINDER_SWEEP_SECONDS),
    "options": {"expires": REMINDER_SWEEP_SECONDS},
}
CELERY_BEAT_SCHEDULE["notifications-send-due-digests"] = {
    "task": "notifications.reminder_tasks.send_due_digests",
    "schedule": float(DIGEST_SWEEP_SECONDS),
    "options": {"expires": DIGEST_SWEEP_SECONDS},
}

# Play by email (docs/email.md, "Playing by email"): replies to game email, read by
# `manage.py smtpd`, the email provider's inbound webhook (/anymail/<esp>/inbound/,
# with ANYMAIL_WEBHOOK_SECRET) or an IMAP mailbox polled by the beat.
INBOUND_MAX_MESSAGE_BYTES = env_int("INBOUND_MAX_MESSAGE_BYTES", 1_000_000, minimum=10_000)
# At most this many error replies to one sender an hour; past it, errors go unanswered.
INBOUND_ERROR_REPLIES_PER_HOUR = env_int("INBOUND_ERROR_REPLIES_PER_HOUR", 5, minimum=1)
# How long a "confirm <code>" (resign, new game) stays valid.
INBOUND_CONFIRMATION_HOURS = env_int("INBOUND_CONFIRMATION_HOURS", 48, minimum=1)
# Who may play by email (docs/email.md, "Who is believed"): a command acts only when
# its From: domain is authenticated (DMARC-aligned DKIM or SPF); otherwise the account's
# owner is mailed a code to confirm it. Off only for a trial on one machine
# (check --deploy warns, splendor.W020).
INBOUND_REQUIRE_AUTHENTICATION = env_bool("INBOUND_REQUIRE_AUTHENTICATION", True)
# The authserv-id of the mail host whose Authentication-Results headers are believed
# (the IMAP mailbox's, the email provider's, or a relay's in INBOUND_TRUSTED_RELAYS);
# empty: nobody's.
INBOUND_AUTHSERV_ID = env_str("INBOUND_AUTHSERV_ID", "") or ""


# Clients of `manage.py smtpd` (a Postfix with OpenDKIM/OpenDMARC in front of it) whose
# Authentication-Results (INBOUND_AUTHSERV_ID) are believed; mail from any other client
# is checked by the receiver itself. Empty by default.
INBOUND_TRUSTED_RELAYS = env_networks("INBOUND_TRUSTED_RELAYS")
# Replies of every kind to one address an hour, and codes to confirm mailed to one
# address an hour (challenges, resign, new game): past them, nothing is sent.
INBOUND_REPLIES_PER_HOUR = env_int("INBOUND_REPLIES_PER_HOUR", 20, minimum=1)
INBOUND_CHALLENGES_PER_HOUR = env_int("INBOUND_CHALLENGES_PER_HOUR", 5, minimum=1)
INBOUND_IMAP_HOST = env_str("INBOUND_IMAP_HOST", "") or ""  # empty: no polling
INBOUND_IMAP_PORT = env_int("INBOUND_IMAP_PORT", 993, minimum=1)
INBOUND_IMAP_USER = env_str("INBOUND_IMAP_USER", "") or ""
INBOUND_IMAP_PASSWORD = env_str("INBOUND_IMAP_PASSWORD", "") or ""
INBOUND_IMAP_FOLDER = env_str("INBOUND_IMAP_FOLDER", "INBOX") or "INBOX"
INBOUND_IMAP_POLL_SECONDS = env_int("INBOUND_IMAP_POLL_SECONDS", 60, minimum=5)
# Stored messages whose processing task was lost are processed by this sweep.
CELERY_BEAT_SCHEDULE["notifications-inbound-pending"] = {
    "task": "notifications.inbound_tasks.process_pending",
    "schedule": 300.0,
    "options": {"expires": 300},
}
if INBOUND_IMAP_HOST:
    CELERY_BEAT_SCHEDULE["notifications-poll-imap"] = {
        "task": "notifications.inbound_tasks.poll_imap",
        "schedule": float(INBOUND_IMAP_POLL_SECONDS),
        "options": {"expires": INBOUND_IMAP_POLL_SECONDS},
    }

# --- Table talk (docs/chat.md, "Table talk") ------------------------------------

# At most this many chat messages a minute per person, all games together.
CHAT_MESSAGES_PER_MINUTE = env_int("CHAT_MESSAGES_PER_MINUTE", 10, minimum=1)

# --- Reviews of finished games by the search bot (docs/review.md) ----------------

# The search's playouts per position reviewed: the engine's budget by default
# (engine.review.DEFAULT_REVIEW_PLAYOUTS), which reviews a 60-move game in under a
# minute of one core (docs/benchmarks.md, "Reviews").
REVIEW_PLAYOUTS = env_int("REVIEW_PLAYOUTS", _engine_review.DEFAULT_REVIEW_PLAYOUTS, minimum=1)
# A move whose mover's chance of winning fell by at least this share is a mistake.
REVIEW_MISTAKE_DROP = env_fraction("REVIEW_MISTAKE_DROP", 0.10)
# Reviews one account may start in 24 hours; past it, 429 too_many_reviews. Asking
# for a game's review that exists or is under way costs nothing.
REVIEWS_PER_DAY = env_int("REVIEWS_PER_DAY", 20, minimum=1)
# A review whose next position was not stored for this long had its task lost: the
# beat's sweep queues it again (reviews.services.reviews_requeue).
REVIEW_STALE_SECONDS = env_int("REVIEW_STALE_SECONDS", 600, minimum=60)
CELERY_BEAT_SCHEDULE["reviews-requeue"] = {
    "task": "reviews.tasks.requeue_reviews",
    "schedule": float(DEADLINE_SWEEP_SECONDS),
    "options": {"expires": DEADLINE_SWEEP_SECONDS},
}

# --- Redis (optional; used by tests marked `redis` and by operators) -----------

REDIS_URL = env_str("REDIS_URL", None)

# --- The event stream (docs/stream.md) ------------------------------------------

# Events are kept this long for a client that reconnects with Last-Event-ID.
STREAM_REPLAY_HOURS = env_int("STREAM_REPLAY_HOURS", 24, minimum=1)
# A heartbeat at least this often on an open stream.
STREAM_HEARTBEAT_SECONDS = env_seconds("STREAM_HEARTBEAT_SECONDS", 15.0, maximum=60)
# The channel that wakes the processes serving streams: by default the broker's
# Redis when the broker is Redis; none on the embedded default, where each such
# process polls the database every STREAM_POLL_SECONDS instead (streams.bus).
STREAM_REDIS_URL = env_str(
    "STREAM_REDIS_URL", CELERY_BROKER_URL if CELERY_BROKER_URL.startswith(("redis://", "rediss://")) else None
) or None
STREAM_POLL_SECONDS = env_seconds("STREAM_POLL_SECONDS", 0.5, maximum=10)
# Under WSGI (the development server) each stream polls on its own this often.
STREAM_WSGI_POLL_SECONDS = env_seconds("STREAM_WSGI_POLL_SECONDS", 1.0, maximum=10)
# The game page's stream (streams.page_stream; docs/configuration.md).
STREAM_PAGE_POLL_SECONDS = env_seconds("STREAM_PAGE_POLL_SECONDS", 2.0, maximum=30)
GAME_PAGE_STREAM = env_bool("GAME_PAGE_STREAM", False)
CELERY_BEAT_SCHEDULE["streams-prune-events"] = {
    "task": "streams.tasks.prune_events",
    "schedule": 3600.0,
    "options": {"expires": 3600},
}

# Tournaments whose start has come start, and scheduled rounds open (docs/tournaments.md).
CELERY_BEAT_SCHEDULE["tournaments-start-due"] = {
    "task": "tournaments.tasks.start_due",
    "schedule": 300.0,
    "options": {"expires": 300},
}

# --- Beat's queue -----------------------------------------------------------------

# Every periodic task runs on BEAT_QUEUE, with a worker of its own, so that no
# user's work stands in front of the deadline sweep, reminders, digests, send_due,
# redelivery and pruning: each then starts within seconds of being sent, and its
# `expires` (a sweep still queued when the next is due is dropped) never fires.
# A periodic task that is itself a class's work keeps its class's queue: the webhook
# retries (their attempts wait on receivers) and any bot task (games.tasks.bot_*).
for _entry in CELERY_BEAT_SCHEDULE.values():
    if not any(fnmatch(_entry["task"], routed) for routed in CELERY_TASK_ROUTES):
        CELERY_TASK_ROUTES[_entry["task"]] = {"queue": BEAT_QUEUE}

# --- Limits on emails with a code --------------------------------------------------

# Emails with a code or a link (sign-up and token recovery codes, password reset
# links), whichever door asks for them (accounts.services.account_email_take): at
# most this many to one address, and at most this many asked for by one client
# address. Past either, nothing is sent and the answer stays the same.
ACCOUNT_EMAIL_ADDRESS_RATE = env_rate("ACCOUNT_EMAIL_ADDRESS_RATE", "5/hour")
ACCOUNT_EMAIL_CLIENT_RATE = env_rate("ACCOUNT_EMAIL_CLIENT_RATE", "10/hour")

# --- Metrics (docs/operations.md, "Metrics") -------------------------------------

# Every process of one machine (gunicorn's workers, the Celery workers) counts in
# files here, and /metrics adds them up (prometheus_client's multiprocess mode).
# Give the web and the workers of a machine the same directory; empty it when they
# all start (`manage.py serve` does). "" counts in each process alone.
PROMETHEUS_MULTIPROC_DIR = env_str("PROMETHEUS_MULTIPROC_DIR", str(VAR_DIR / "metrics")) or ""
# Who may read /metrics: callers with `Authorization: Bearer <METRICS_TOKEN>`, or
# from these networks (the connection's address, never X-Forwarded-For; a caller
# that is one of TRUSTED_PROXIES is opened by the token only). Anyone else gets a
# 404. Default: neither, so nobody, the machine itself included: a proxy on the
# same machine connects from loopback, and would pass everyone's requests on.
METRICS_ALLOWED_NETWORKS = env_networks("METRICS_ALLOWED_NETWORKS", [])
METRICS_TOKEN = env_str("METRICS_TOKEN", "") or ""
# /healthz says the beat is late once the last deadline sweep, and beat's own last
# start, are older than this (a restarted beat has this long for its first sweep).
BEAT_STALE_SECONDS = env_int("BEAT_STALE_SECONDS", 3 * DEADLINE_SWEEP_SECONDS, minimum=1)

# Proxies in front of the service whose X-Forwarded-For is believed: a count or
# networks (api.client_address). Default none: clients cannot choose their address.
TRUSTED_PROXIES = env_trusted_proxies("TRUSTED_PROXIES")

# Password guessing, per username and client address (accounts.services.login_check):
# after this many wrong passwords for one username from one address, passwords for
# it are not checked from there for a while, doubling each time up to the cap. A
# stranger's guesses never lock the owner out from another address.
LOGIN_FAILURES_BEFORE_LOCKOUT = env_int("LOGIN_FAILURES_BEFORE_LOCKOUT", 5, minimum=1)
LOGIN_LOCKOUT_SECONDS = env_int("LOGIN_LOCKOUT_SECONDS", 60, minimum=1)
LOGIN_LOCKOUT_MAX_SECONDS = env_int("LOGIN_LOCKOUT_MAX_SECONDS", 3600, minimum=1)
if LOGIN_LOCKOUT_MAX_SECONDS < LOGIN_LOCKOUT_SECONDS:
    raise ImproperlyConfigured(
        f"LOGIN_LOCKOUT_MAX_SECONDS={LOGIN_LOCKOUT_MAX_SECONDS} is less than LOGIN_LOCKOUT_SECONDS="
        f"{LOGIN_LOCKOUT_SECONDS}: the cap must be at least the first wait."
    )

# The account pages (accounts.pages): where a page that needs a login sends a
# visitor, where logging in and out lead, and how long a password reset link works.
LOGIN_URL = "/accounts/login/"
LOGIN_REDIRECT_URL = "/accounts/games/"
LOGOUT_REDIRECT_URL = "/accounts/login/"
PASSWORD_RESET_TIMEOUT = env_int("PASSWORD_RESET_TIMEOUT", 3600, minimum=300)

# --- production hardening (on by default when DEBUG is off and SITE_URL is https) ---

# A site whose address is http://... (a trial on one machine, over plain http) would
# redirect every page to an https that is not there, and browsers would never send
# its Secure cookies back (no admin login): so the https protections follow
# SITE_URL. `check --deploy` warns when they are off (splendor_site.checks). Each
# can still be set on its own.
HTTPS_BY_DEFAULT = not DEBUG and urlsplit(SITE_URL).scheme == "https"
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", HTTPS_BY_DEFAULT)
# A load balancer's health check speaks plain http to each web process: it must
# see 200 or 503, not a redirect; so must a Prometheus scraper reading /metrics.
SECURE_REDIRECT_EXEMPT = [r"^healthz$", r"^metrics$"]
SESSION_COOKIE_SECURE = env_bool("SESSION_COOKIE_SECURE", HTTPS_BY_DEFAULT)
CSRF_COOKIE_SECURE = env_bool("CSRF_COOKIE_SECURE", HTTPS_BY_DEFAULT)
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 31536000 if HTTPS_BY_DEFAULT else 0, minimum=0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", HTTPS_BY_DEFAULT)
SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", HTTPS_BY_DEFAULT)
# Only behind a proxy that always sets X-Forwarded-Proto; otherwise clients could spoof https.
# gunicorn believes no such header itself (splendor_site/gunicorn_conf.py): this is the one place.
SECURE_PROXY_SSL_HEADER = (
    ("HTTP_X_FORWARDED_PROTO", "https") if env_bool("SECURE_PROXY_SSL_HEADER", False) else None
)
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
