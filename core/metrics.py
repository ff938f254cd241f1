"""The service's metrics: every name and label, defined once (docs/operations.md lists them).

Counters and histograms are counted where the thing happens, by the process it
happens in; with ``PROMETHEUS_MULTIPROC_DIR`` set (settings: ``VAR_DIR/metrics``
by default) each process writes its values to files there, and ``/metrics``
adds up every gunicorn and Celery process of the machine (prometheus_client's
multiprocess mode). Gauges that describe the database (active and overdue games,
the outbox's backlog, the beat's last runs) are read when ``/metrics`` is
scraped, by the collectors the apps register here (``scrape_collector_register``),
so that they agree whichever process answers.

Labels hold only words from fixed sets (routes by name, error codes, kinds,
reasons): never a username, address, token or game id.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime

from django.conf import settings

from prometheus_client import Counter, Histogram, values
from prometheus_client.metrics import MetricWrapperBase
from prometheus_client.metrics_core import Metric

# Where this process counts: "" for in the process alone (see ``configure``).
multiproc_dir = ""
# Whether this process has made the series exported before their first count
# (``series_start``, below).
_series_started = False


def _metrics_defined() -> list[MetricWrapperBase]:
    return [value for value in globals().values() if isinstance(value, MetricWrapperBase)]


def configure(directory: str) -> None:
    """Count in files under ``directory``, which every process of the machine given
    the same one adds up, or with "" in this process alone. Values this process
    made before are forgotten by it (in a folder, their counts stay in its files):
    every metric here has labels, so values are made at their first count or
    scrape, never at import. The settings' ``PROMETHEUS_MULTIPROC_DIR`` is applied
    when this module is imported; the tests give each process its own."""
    global multiproc_dir, _series_started
    with warnings.catch_warnings():
        # prometheus_client warns that clearing leaves the values in the files of
        # the folder: here that is the point (their counts stay where they were made).
        warnings.filterwarnings("ignore", "Clearing labels has not been implemented", UserWarning)
        for metric in _metrics_defined():
            metric.clear()
    # Let go of the files of the folder this process counted in until now.
    values.close_all_multiprocess_files()  # type: ignore[no-untyped-call]  # untyped in prometheus_client
    _series_started = False
    if directory:
        os.makedirs(directory, exist_ok=True)
        os.environ["PROMETHEUS_MULTIPROC_DIR"] = directory
        values.ValueClass = values.MultiProcessValue()  # type: ignore[no-untyped-call]  # untyped in prometheus_client
    else:
        os.environ.pop("PROMETHEUS_MULTIPROC_DIR", None)
        values.ValueClass = values.MutexValue
    multiproc_dir = directory


configure(getattr(settings, "PROMETHEUS_MULTIPROC_DIR", "") or "")


def counts_forget() -> int:
    """Empty the folder of counts (the files of processes that have stopped), as
    prometheus_client asks before the processes start: only when none of the
    machine's processes that count there runs. Returns how many files went."""
    if not multiproc_dir:
        return 0
    removed = 0
    for name in os.listdir(multiproc_dir):
        if name.endswith(".db"):
            os.remove(os.path.join(multiproc_dir, name))
            removed += 1
    return removed

PREFIX = "splendor_"

# Latency buckets, in seconds: a request or a task is expected well under a second.
FAST_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
# A webhook attempt is cut at WEBHOOKS_ATTEMPT_SECONDS (10 s by default, at most 300).
WEBHOOK_BUCKETS = (0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 300.0)

# --- HTTP ------------------------------------------------------------------------

HTTP_REQUESTS = Counter(
    "splendor_http_requests", "HTTP requests answered, by route name, method and status class (2xx, 4xx, ...).",
    ["route", "method", "status"],
)
HTTP_DURATION = Histogram(
    "splendor_http_request_duration_seconds", "Time from a request reaching Django to its answer, by route name.",
    ["route", "method"], buckets=FAST_BUCKETS,
)

# --- The game ----------------------------------------------------------------------

MOVES = Counter(
    "splendor_moves",
    "Moves submitted by players (REST API or email): outcome accepted (code ok) or refused (code: the error code).",
    ["outcome", "code"],
)
BOT_MOVES = Counter(
    "splendor_bot_moves", "Moves the built-in bot played for a seat, by reason (timeout, moderator).", ["reason"],
)
GAMES_STARTED = Counter("splendor_games_started", "Games dealt and started, by variant.", ["variant"])
GAMES_FINISHED = Counter("splendor_games_finished", "Games finished, by the result's reason.", ["reason"])
GAMES_ABORTED = Counter("splendor_games_aborted", "Games ended without a result, by reason.", ["reason"])
TIMEOUTS = Counter(
    "splendor_timeouts",
    "Deadlines that passed, by what was done: vacation (a vacation day taken), bot (the bot moved), forfeit.",
    ["action"],
)
FORFEITS = Counter(
    "splendor_forfeits", "Seats that left an active game, by reason (timeout, resignation, account-disabled).",
    ["reason"],
)

# --- Reviews of finished games (reviews) ---------------------------------------------

# A review's run time, request to last position: a few seconds to tens of minutes
# behind a busy bots queue.
REVIEW_BUCKETS = (1.0, 5.0, 15.0, 30.0, 60.0, 120.0, 300.0, 600.0, 1800.0, 3600.0)
REVIEWS = Counter(
    "splendor_reviews", "Reviews of finished games by the search bot that ended, by outcome: done, failed.", ["outcome"],
)
REVIEW_DURATION = Histogram(
    "splendor_review_duration_seconds",
    "Time from a review's start to its end (waits in the bots queue included), by outcome.",
    ["outcome"], buckets=REVIEW_BUCKETS,
)
REVIEW_SEARCH = Histogram(
    "splendor_review_search_seconds",
    "The search time of a review, summed over its positions (one core's work), by outcome.",
    ["outcome"], buckets=REVIEW_BUCKETS,
)
REVIEW_OUTCOMES = ("done", "failed")

# --- Mail ----------------------------------------------------------------------------

EMAILS = Counter(
    "splendor_emails",
    "Outgoing emails by kind and outcome: sent, retry (an attempt failed, another follows), failed (given up), "
    "bounced (refused for good by the mail server at send time), suppressed (not sent: preferences, a bounced "
    "address, the game moved on).",
    ["kind", "outcome"],
)
EMAIL_BOUNCES = Counter(
    "splendor_email_bounces",
    "Hard bounces recorded (the address gets no more email), by where they were learnt: smtp (at send time), "
    "dsn (a bounce message), provider (the email provider's webhook).",
    ["source"],
)
INBOUND = Counter(
    "splendor_inbound_replies",
    "Inbound emails by outcome (applied, refused, dropped, challenged) and reason.",
    ["outcome", "reason"],
)

# --- Webhooks --------------------------------------------------------------------------

PUSH = Counter(
    "splendor_push",
    "Web Push messages by kind and outcome: sent, retry (an attempt failed, another follows), failed (given up), "
    "gone (the push service said the subscription no longer exists: it was deleted), suppressed (not sent: "
    "the player's push preferences, a muted game).",
    ["kind", "outcome"],
)
PUSH_OUTCOMES = ("sent", "retry", "failed", "gone", "suppressed")
PUSH_KINDS = ("your_turn", "reminder", "invitation", "chat_line", "game_over", "tournament_round", "tournament_invitation")
WEBHOOK_DELIVERIES = Counter(
    "splendor_webhook_deliveries",
    "Webhook delivery attempts by outcome: delivered, retry (failed, another attempt follows), failed (given up).",
    ["outcome"],
)
WEBHOOK_DURATION = Histogram(
    "splendor_webhook_delivery_duration_seconds",
    "Time of one webhook attempt, look-up to the answer's body, by outcome (as splendor_webhook_deliveries_total).",
    ["outcome"], buckets=WEBHOOK_BUCKETS,
)
WEBHOOK_ENDPOINTS_DISABLED = Counter(
    "splendor_webhook_endpoints_disabled",
    "Webhook endpoints disabled by the service, by reason: failing, refused_url, port, account.",
    ["reason"],
)
CHAT_PLATFORM_POSTS = Counter(
    "splendor_chat_platform_posts",
    "Posts to Discord and Slack channels (webhooks of those formats), by format and outcome as "
    "splendor_webhook_deliveries_total: delivered, retry, failed.",
    ["format", "outcome"],
)
CHAT_PLATFORM_FORMATS = ("discord", "slack")

# --- Tasks -------------------------------------------------------------------------------

TASK_DURATION = Histogram(
    "splendor_task_duration_seconds", "Run time of Celery tasks, by task name.", ["task"], buckets=FAST_BUCKETS,
)
TASK_FAILURES = Counter("splendor_task_failures", "Celery tasks that raised, by task name.", ["task"])

# --- Read from the database when scraped (names given here, values by the apps) ---------

ACTIVE_GAMES = "splendor_active_games"
OVERDUE_GAMES = "splendor_overdue_games"
OUTBOX_UNCLAIMED = "splendor_outbox_unclaimed_events"
OUTBOX_OLDEST_AGE = "splendor_outbox_oldest_unclaimed_age_seconds"
BEAT_LAST_RUN = "splendor_beat_last_run_timestamp_seconds"

# The beat's jobs whose last run is kept (games.models.PeriodicRun) and shown.
BEAT_JOBS = ("deadline_sweep", "reminders", "redelivery")
# Kept beside them: when beat itself last started (splendor_site.celery), so that
# /healthz gives a restarted beat time for its first sweep (api.health).
BEAT_START = "beat_start"

ScrapeCollector = Callable[[], Iterable[Metric]]
_scrape_collectors: list[ScrapeCollector] = []
_beat_reader: list[Callable[[], dict[str, datetime]]] = []


def scrape_collector_register(collector: ScrapeCollector) -> ScrapeCollector:
    """Add a function that yields metric families read when ``/metrics`` is scraped."""
    if collector not in _scrape_collectors:
        _scrape_collectors.append(collector)
    return collector


def scrape_collectors() -> list[ScrapeCollector]:
    return list(_scrape_collectors)


def beat_reader_register(reader: Callable[[], dict[str, datetime]]) -> None:
    """The function that reads each beat job's last run (the games app gives it)."""
    _beat_reader[:] = [reader]


def beat_last_runs() -> dict[str, datetime]:
    """Each beat job's last run, as recorded; a job that never ran is missing."""
    return _beat_reader[0]() if _beat_reader else {}


def status_class(status: int) -> str:
    return f"{status // 100}xx"


# --- Series that exist before their first count --------------------------------------
#
# A labelled metric has no series until its first count: the panels of a new site's
# dashboard would read "No data", and rate() would miss each series' first count. So
# every counter and histogram whose label values form a fixed set is exported at 0:
# with the values below (docs/operations.md's table of metrics lists the same), and
# with those the apps know (email kinds, variants, task names: ``series_declare``).
# They are made by the process that answers a scrape, before its first answer
# (``series_start``): a process that never serves /metrics (a worker, a management
# command) writes no file of zeros into the folder of counts.

STATUS_CLASSES = ("2xx", "3xx", "4xx", "5xx")
EMAIL_OUTCOMES = ("sent", "retry", "failed", "bounced", "suppressed")
WEBHOOK_OUTCOMES = ("delivered", "retry", "failed")
# The refusals docs/operations.md names; any other error code appears at its first count.
MOVE_REFUSALS = (
    "illegal_move", "not_your_turn", "stale_version", "invalid_notation", "ambiguous_move", "game_not_active",
    "not_a_player", "account_suspended",
)  # fmt: skip

LabelValues = tuple[tuple[str, ...], ...]

# The HTTP metrics start with the scrape's own route, the one route every site
# answers; the others appear at their first answer (routes are many, and their
# methods and status classes more).
FIXED_SERIES: dict[MetricWrapperBase, LabelValues] = {
    HTTP_REQUESTS: tuple(("metrics", "GET", status) for status in STATUS_CLASSES),
    HTTP_DURATION: (("metrics", "GET"),),
    MOVES: (("accepted", "ok"), *(("refused", code) for code in MOVE_REFUSALS)),
    BOT_MOVES: (("timeout",), ("moderator",)),
    GAMES_FINISHED: tuple(
        (reason,) for reason in ("points", "gauntlet", "all-passed", "round-limit", "resignation", "timeout",
                                 "account-disabled", "adjudicated")
    ),  # fmt: skip
    GAMES_ABORTED: (("cancelled",), ("declined",), ("expired",), ("moderator",)),
    TIMEOUTS: (("vacation",), ("bot",), ("forfeit",)),
    FORFEITS: (("timeout",), ("resignation",), ("account-disabled",)),
    EMAIL_BOUNCES: (("smtp",), ("dsn",), ("provider",)),
    PUSH: tuple((kind, outcome) for kind in PUSH_KINDS for outcome in PUSH_OUTCOMES),
    WEBHOOK_DELIVERIES: tuple((outcome,) for outcome in WEBHOOK_OUTCOMES),
    WEBHOOK_DURATION: tuple((outcome,) for outcome in WEBHOOK_OUTCOMES),
    WEBHOOK_ENDPOINTS_DISABLED: (("failing",), ("refused_url",), ("port",), ("account",)),
    CHAT_PLATFORM_POSTS: tuple((kind, outcome) for kind in CHAT_PLATFORM_FORMATS for outcome in WEBHOOK_OUTCOMES),
    REVIEWS: tuple((outcome,) for outcome in REVIEW_OUTCOMES),
    REVIEW_DURATION: tuple((outcome,) for outcome in REVIEW_OUTCOMES),
    REVIEW_SEARCH: tuple((outcome,) for outcome in REVIEW_OUTCOMES),
}

_declared: list[tuple[MetricWrapperBase, Callable[[], Iterable[Sequence[str]]]]] = []


def series_declare(metric: MetricWrapperBase, label_values: Callable[[], Iterable[Sequence[str]]]) -> None:
    """Export ``metric`` at 0 for each of the label values ``label_values`` gives
    (called when the series are made, so it may read what is only known once every
    app is loaded: the kinds of email, the Celery tasks)."""
    global _series_started
    if (metric, label_values) not in _declared:
        _declared.append((metric, label_values))
        _series_started = False


def series_start() -> None:
    """Make every series of FIXED_SERIES and of the apps' declarations, at 0 (a
    series counted already keeps its count). Once per process, before its first
    scrape is answered; again after ``configure`` or a later declaration."""
    global _series_started
    if _series_started:
        return
    for metric, fixed in FIXED_SERIES.items():
        for labels in fixed:
            metric.labels(*labels)
    for metric, label_values in _declared:
        for declared in label_values():
            metric.labels(*declared)
    _series_started = True
