"""Suite-wide test setup.

Service groups. Tests marked `postgres`, `redis` or `browser` need something
outside Python. When it is not there they are deselected (not skipped-as-passed)
and the run ends with one line per group saying what was left out and how to
include it. The whole suite runs on whatever DATABASE_URL names (SQLite by
default); `postgres` tests are included only when that is a reachable
PostgreSQL. `.ci/run` runs the suite on SQLite, then on PostgreSQL with Redis.

Redis: the tests marked `redis` are given REDIS_URL, which may be a database
other things live in. They never empty it (no FLUSHDB, no cache.clear() on Redis):
every key they write starts with TEST_KEY_PREFIX, unique to the run, and only
keys with that prefix are deleted (``cache_empty``).

Hypothesis: the "ci" profile (bounded, derandomised) when CI is set, else "dev".
"""

from __future__ import annotations

import os
import secrets
import shutil
import socket
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import pytest
from hypothesis import HealthCheck, settings as hypothesis_settings

from tests import db_template
from tests.e2e_support import databases as e2e_databases

if TYPE_CHECKING:
    from django.test import Client

    from games.models import Game

# No test depends on a broker or sends real email, whatever the environment says:
# tasks run inline (eager) on the in-process broker and email goes to
# django.core.mail.outbox. pytest-django has loaded the settings before this file,
# so they are set on the settings and the Celery app as well as in the environment
# (which the processes that tests start inherit; e2e tests give theirs explicitly).
_TEST_ENVIRONMENT = {
    "CELERY_BROKER_URL": "memory://",
    "CELERY_TASK_ALWAYS_EAGER": "true",
    "EMAIL_BACKEND": "django.core.mail.backends.locmem.EmailBackend",
}
os.environ.update(_TEST_ENVIRONMENT)


def _eager_tasks_and_local_email() -> None:
    from django.conf import settings

    from splendor_site.celery import app

    settings.CELERY_BROKER_URL = "memory://"
    settings.CELERY_TASK_ALWAYS_EAGER = True
    settings.CELERY_BROKER_TRANSPORT_OPTIONS = {}
    settings.EMAIL_BACKEND = _TEST_ENVIRONMENT["EMAIL_BACKEND"]
    app.conf.update(broker_url="memory://", task_always_eager=True, broker_transport_options={})


_eager_tasks_and_local_email()


def _metrics_of_this_process_alone() -> None:
    """Each test process counts its metrics in a folder of its own (removed at
    exit), so that two pytest-xdist workers never add up each other's counts
    and no test writes into a site's VAR_DIR. Nothing has been counted yet."""
    import atexit
    import shutil
    import tempfile

    from core import metrics

    folder = tempfile.mkdtemp(prefix="splendor-test-metrics-")
    metrics.configure(folder)
    atexit.register(shutil.rmtree, folder, ignore_errors=True)


_metrics_of_this_process_alone()

# The prefix of every cache key the tests write: unique to this run (and to each
# pytest-xdist worker), so that two runs pointed at one Redis never meet, and
# deleting "the tests' keys" can never reach anyone else's.
TEST_KEY_PREFIX = f"splendor-tests-{secrets.token_hex(6)}"


def _cache_under_test_prefix() -> None:
    from django.conf import settings

    # Whatever CACHE_URL names (locmem:// by default; a Redis if set), the suite's
    # keys carry the run's prefix, so the fixture below can delete only them.
    settings.CACHES["default"]["KEY_PREFIX"] = TEST_KEY_PREFIX


_cache_under_test_prefix()


def _static_files_without_collectstatic() -> None:
    from django.conf import settings

    # The suite never runs collectstatic, and Django's test runner turns DEBUG off,
    # with which the production storage would want collectstatic's manifest for
    # every {% static %}: plain names, found where the apps keep them, as with
    # DEBUG on, whatever DEBUG the environment gave the settings. (The tests of
    # the production storage set it, and run collectstatic, themselves.)
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }
    settings.WHITENOISE_USE_FINDERS = True
    settings.WHITENOISE_AUTOREFRESH = True


_static_files_without_collectstatic()


def cache_empty(cache: Any) -> None:
    """Delete the tests' keys from ``cache``: everything in a process-local cache,
    and in Redis only the keys under the cache's KEY_PREFIX, which must be the
    run's own. Never cache.clear() on Redis: it is FLUSHDB, and the database may
    hold a broker's queues or another cache."""
    from django.core.cache.backends.locmem import LocMemCache
    from django.core.cache.backends.redis import RedisCache

    if isinstance(cache, LocMemCache):
        cache.clear()
        return
    # Anything else, django.core.cache.cache (a proxy) included, is refused rather
    # than cleared: the proxy's clear() would be FLUSHDB when the default is Redis.
    if not isinstance(cache, RedisCache):
        raise TypeError(f"cache_empty takes a cache from django.core.cache.caches, not {cache!r}")
    assert cache.key_prefix.startswith("splendor-tests-"), (
        f"a Redis cache in the tests needs a KEY_PREFIX of the run's own, not {cache.key_prefix!r}"
    )
    client = cache._cache.get_client(write=True)
    # Django writes "<KEY_PREFIX>:<version>:<key>"; the prefix is hex, so no glob
    # character in it needs escaping.
    keys = list(client.scan_iter(match=f"{cache.key_prefix}:*", count=500))
    if keys:
        client.delete(*keys)

hypothesis_settings.register_profile(
    "ci",
    max_examples=50,
    deadline=None,
    derandomize=True,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
hypothesis_settings.register_profile("dev", max_examples=100, deadline=None)
hypothesis_settings.load_profile("ci" if os.environ.get("CI") else "dev")


def _reachable(url: str, default_port: int) -> bool:
    parts = urlsplit(url)
    try:
        with socket.create_connection((parts.hostname or "127.0.0.1", parts.port or default_port), timeout=1):
            return True
    except OSError:
        return False


def _postgres_missing() -> str | None:
    url = os.environ.get("DATABASE_URL", "")
    if not url.startswith(("postgres://", "postgresql://", "pgsql://")):
        return "set DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres to run them"
    if not _reachable(url, 5432):
        return "DATABASE_URL names a PostgreSQL that does not answer"
    return None


def _redis_missing() -> str | None:
    url = os.environ.get("REDIS_URL", "")
    if not url.startswith(("redis://", "rediss://")):
        # A database number of the tests' own: never the broker's (0) or the cache's (1).
        return "set REDIS_URL=redis://127.0.0.1:6379/15 to run them"
    if not _reachable(url, 6379):
        return "REDIS_URL names a Redis that does not answer"
    return None


CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome", "chrome")


def chromium_path() -> str | None:
    return next((path for name in CHROMIUM_NAMES if (path := shutil.which(name))), None)


def _browser_missing() -> str | None:
    if chromium_path() is None:
        return "install Chromium (apt-get install chromium) to run them"
    return None


def _e2e_missing() -> str | None:
    # They start real processes (gunicorn, redis-server, Celery workers), so they
    # run once, in .ci/run's second pass, and on request.
    if not os.environ.get("E2E"):
        return "set E2E=1 to run them (they start gunicorn, redis-server or workers of their own)"
    return None


def _slow_not_asked_for() -> str | None:
    # Whole games played through the API, many-game databases, long property runs:
    # over 10 s each on a 2-core machine. `.ci/run` runs them in both passes.
    if not os.environ.get("SLOW"):
        return "set SLOW=1 to run them (each takes over 10 s; .ci/run does)"
    return None


SERVICE_MARKERS = {
    "postgres": _postgres_missing,
    "redis": _redis_missing,
    "browser": _browser_missing,
    "e2e": _e2e_missing,
    "slow": _slow_not_asked_for,
}

_left_out: dict[str, tuple[int, str]] = {}


# --- Test databases: a parallel run clones one migrated template (tests/db_template.py);
# the end-to-end tests' sites copy one of their own (tests/e2e_support/databases.py)


def pytest_configure(config: pytest.Config) -> None:
    db_template.plugin_register(config)
    e2e_databases.plugin_register(config)


@pytest.fixture(scope="session")
def django_db_setup(
    request: pytest.FixtureRequest,
    django_test_environment: None,
    django_db_blocker: Any,
    django_db_use_migrations: bool,
    django_db_keepdb: bool,
    django_db_createdb: bool,
) -> Iterator[None]:
    """pytest-django's fixture, except that each pytest-xdist worker clones the
    run's one migrated template instead of running every migration itself."""
    yield from db_template.databases_set_up(
        request,
        django_db_blocker,
        use_migrations=django_db_use_migrations,
        keepdb=django_db_keepdb,
        createdb=django_db_createdb,
    )


def _node_id_extend(item: pytest.Item, suffix: str) -> None:
    # pytest 9.2 keeps the id as a NodeId (item._id); parse the fuller one.
    item._id = type(item._id).parse(item.nodeid + suffix)  # type: ignore[attr-defined]


def _unique_node_ids(items: list[pytest.Item]) -> None:
    """Schemathesis's schema.parametrize() makes one item per API operation, all
    with the same node id ("[GET /api/v1/games/]" is only in the name). pytest-xdist
    sends tests to workers by node id, so it would run one operation and drop the
    rest. Give each its operation in the id, as pytest's own parametrize does."""
    for item in items:
        originalname = getattr(item, "originalname", item.name)
        suffix = item.name[len(originalname):]
        if suffix.startswith("[") and not item.nodeid.endswith(suffix):
            _node_id_extend(item, suffix)


# --- Which tests run on both databases ---------------------------------------------
#
# `.ci/run` runs the suite on SQLite (the README's command), then again on PostgreSQL,
# where only the tests with a reason to run twice go: those marked `both_databases`,
# and those that need PostgreSQL, Redis or real processes (`postgres`, `redis`,
# `e2e`, `browser`), which run only there. A test is `both_databases` when what it
# checks may behave differently on the two: a test that commits for real
# (`transactional_db`, `live_server`, `django_db(transaction=True)`: locks,
# constraints checked at commit, on_commit, concurrent writers), and every test of
# the modules below, named with their reason. The rest (rules, rendering, wording,
# permissions, serializers, inside one rolled-back transaction) run once.
BOTH_DATABASES_MODULES: dict[str, str] = {
    "tests/accounts/test_names.py": "case-insensitive uniqueness of names: a collation and an index",
    "tests/accounts/test_email_addresses.py": "unique addresses under a constraint",
    "tests/accounts/test_erasure.py": "cascades and SET_NULL through foreign keys",
    "tests/accounts/test_erasure_leaves_no_trace.py": "every table read back after an erasure",
    "tests/accounts/test_text_the_database_refuses.py": "PostgreSQL refuses NUL in text where SQLite keeps it",
    "tests/accounts/test_queries_per_request.py": "query counts, which the backend's features change",
    "tests/accounts/test_token_rows.py": "JSON and date columns read back through each backend's converters",
    "tests/games/test_games_text_the_database_refuses.py": "PostgreSQL refuses NUL in text where SQLite keeps it",
    "tests/games/test_games_queries_per_request.py": "query counts, which the backend's features change",
    "tests/games/test_games_concurrency.py": "row locks and concurrent moves",
    "tests/games/test_outbox.py": "claims unique per event and consumer, retaken by a conditional UPDATE",
    "tests/games/test_game_services.py": "the move's transaction: version checks and locks",
    "tests/games/test_clock_migration.py": "a data migration",
    "tests/games/test_migration_to_current_shapes.py": "a data migration",
    "tests/games/test_player_export.py": "JSON fields read back",
    "tests/chat/test_email_mark_migration.py": "a data migration",
    "tests/chat/test_row_ownership.py": "deletes across apps' tables",
    "tests/leagues/test_standings.py": "aggregates and ordering",
    "tests/leagues/test_ratings.py": "floating-point columns and aggregates",
    "tests/streams/test_stream.py": "the stream's rows and its clean-up query on the connection",
    "tests/streams/test_stream_leaks.py": "JSON payloads filtered per reader",
    "tests/webhooks/test_webhook_deliveries.py": "delivery rows claimed once",
    "tests/webhooks/test_webhook_attempts.py": "attempt rows claimed once",
    "tests/notifications/email/test_email_sending.py": "each notification sent once under its unique key",
    "tests/notifications/reminders/test_reminder_scheduling.py": "due times compared in the database",
    "tests/notifications/inbound/test_playing_by_email.py": "a reply applied once however often it arrives",
    "tests/plans/test_plan_firing.py": "a plan fired in the move's transaction",
    "tests/schema/test_api_conforms_to_schema.py": "fuzzed input reaches the database (NUL, lengths, large numbers)",
    "tests/site/test_hostile_bodies.py": "hostile input reaches the database",
    "tests/site/test_strict_input.py": "hostile input reaches the database",
    "tests/site/test_task_log_context.py": "tasks run on commit",
    "tests/site/test_with_real_services.py": "the real services themselves",
}
_COMMITS_FOR_REAL = ("transactional_db", "live_server", "django_db_serialized_rollback")


def _commits_for_real(item: pytest.Item) -> bool:
    if set(getattr(item, "fixturenames", ())) & set(_COMMITS_FOR_REAL):
        return True
    marker = item.get_closest_marker("django_db")
    return bool(marker and marker.kwargs.get("transaction"))


def _uses_the_test_database(item: pytest.Item) -> bool:
    """A test of a listed module that never opens the test database (one that races
    threads on a SQLite file of its own, say) does the same on either pass: once is enough."""
    # (One that commits for real is marked by _commits_for_real whatever its module.)
    return item.get_closest_marker("django_db") is not None or "db" in getattr(item, "fixturenames", ())


def _mark_both_databases(config: pytest.Config, items: list[pytest.Item]) -> None:
    root = config.rootpath
    for item in items:
        path = item.path.relative_to(root).as_posix() if item.path.is_relative_to(root) else ""
        if (path in BOTH_DATABASES_MODULES and _uses_the_test_database(item)) or _commits_for_real(item):
            item.add_marker(pytest.mark.both_databases)


# Not tryfirst: the folders' conftest hooks (tests/browser marks its tests `browser`
# and `e2e`) run before this one, and pytest's -m after it.
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    _unique_node_ids(items)
    _group_for_parallel_runs(items)
    _mark_both_databases(config, items)
    reasons = {marker: check() for marker, check in SERVICE_MARKERS.items()}
    keep: list[pytest.Item] = []
    dropped: list[pytest.Item] = []
    counts: dict[str, int] = {}
    for item in items:
        missing = [m for m, reason in reasons.items() if reason and item.get_closest_marker(m)]
        if missing:
            dropped.append(item)
            for marker in missing:
                counts[marker] = counts.get(marker, 0) + 1
        else:
            keep.append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = keep
    _order_for_parallel_runs(items)
    _groups_in_node_ids(config, items)
    for marker, count in counts.items():
        _left_out[marker] = (count, reasons[marker] or "")


# Parallel runs (pytest-xdist, `-n auto` in pyproject.toml, `--dist loadgroup`):
# - tests marked `serial` that start no processes, and the `redis` tests that start
#   none (they share the Redis database REDIS_URL names), go to one worker, one at a time;
# - `e2e` tests go to whichever worker is free, two at once on two workers (each has
#   its own ports, redis-server, database and folders), except that the tests of a
#   module with a module-scoped fixture of its own (processes started once for the
#   module) stay together on one worker;
# - an `e2e` test that measures time (an outage's cost, a delivery's delay) is marked
#   `serial`, and runs with no other end-to-end test beside it (`_e2e_turns`).
def _group_for_parallel_runs(items: list[pytest.Item]) -> None:
    for item in items:
        if item.get_closest_marker("e2e") is not None:
            if item.get_closest_marker("serial") is not None:
                item.add_marker(pytest.mark.xdist_group("e2e:serial"))
            elif _shares_module_fixture(item):
                item.add_marker(pytest.mark.xdist_group(f"e2e:{item.nodeid.split('::', 1)[0]}"))
        elif item.get_closest_marker("serial") or item.get_closest_marker("redis"):
            item.add_marker(pytest.mark.xdist_group("serial"))


# The order in which a parallel run hands the tests out (pyproject.toml turns off
# pytest-xdist's own, which puts the largest groups first): each worker takes the
# next unit when it is nearly done, so what comes first runs first.
# 1. The `serial` end-to-end tests, as one group: one worker runs them one after
#    another from the start, while the other runs tests that start no processes
#    (which do not wait for the lock, `_e2e_turns`). Anywhere else, each of them
#    would stop the other worker at its next end-to-end test for the minutes it runs.
# 2. The tests that start no processes: the slow ones and the groups first, so that
#    no long test starts last and leaves a worker idle while it runs.
# 3. The other end-to-end tests, the browser's (the longest) first.
_RUN_ORDER_SERIAL_E2E, _RUN_ORDER_LONG, _RUN_ORDER_REST, _RUN_ORDER_BROWSER, _RUN_ORDER_E2E = range(5)


def _run_order(item: pytest.Item) -> int:
    if item.get_closest_marker("e2e") is None:
        long = item.get_closest_marker("slow") or item.get_closest_marker("xdist_group")
        return _RUN_ORDER_LONG if long else _RUN_ORDER_REST
    if item.get_closest_marker("serial") is not None:
        return _RUN_ORDER_SERIAL_E2E
    return _RUN_ORDER_BROWSER if item.get_closest_marker("browser") else _RUN_ORDER_E2E


def _order_for_parallel_runs(items: list[pytest.Item]) -> None:
    items.sort(key=_run_order)  # stable: within each part, the order of collection


def _groups_in_node_ids(config: pytest.Config, items: list[pytest.Item]) -> None:
    """On a worker of a `--dist loadgroup` run: each test's xdist_group at the end of
    its node id ("...::test_x@serial"), which is how the controller tells the groups
    apart. pytest-xdist 3.8 writes it where pytest 9.2 no longer reads it (`_nodeid`;
    pytest-xdist issue 1386), so that without this every group was silently
    ignored: each test went to whichever worker was free."""
    if not hasattr(config, "workerinput") or not getattr(config.option, "loadgroup", False):
        return
    for item in items:
        names = sorted({str(mark.args[0] if mark.args else mark.kwargs.get("name", "default"))
                        for mark in item.iter_markers("xdist_group")})  # fmt: skip
        suffix = "@" + "_".join(names)
        if names and not item.nodeid.endswith(suffix):
            _node_id_extend(item, suffix)


def _shares_module_fixture(item: pytest.Item) -> bool:
    module = item.nodeid.split("::", 1)[0]
    info = getattr(item, "_fixtureinfo", None)
    definitions = info.name2fixturedefs.values() if info is not None else ()
    return any(d.scope == "module" and d.baseid == module for defs in definitions for d in defs)


@pytest.fixture(autouse=True)
def _e2e_turns(request: pytest.FixtureRequest) -> Iterator[None]:
    """End-to-end tests share the run's lock file: each holds it shared, so that
    two run at once, except one marked `serial`, which holds it alone."""
    import fcntl

    folder = e2e_databases.run_folder()
    if folder is None or request.node.get_closest_marker("e2e") is None:
        yield
        return
    alone = request.node.get_closest_marker("serial") is not None
    with (folder / "e2e-turns.lock").open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX if alone else fcntl.LOCK_SH)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def pytest_sessionfinish(session: pytest.Session) -> None:
    # On an xdist worker: hand what it left out to the controller, which prints it.
    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None:
        workeroutput["left_out"] = {marker: list(value) for marker, value in _left_out.items()}


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error) -> None:  # type: ignore[no-untyped-def]
    for marker, (count, reason) in getattr(node, "workeroutput", {}).get("left_out", {}).items():
        _left_out[marker] = (count, reason)  # every worker collects the same tests


def pytest_terminal_summary(terminalreporter, exitstatus, config) -> None:  # type: ignore[no-untyped-def]
    if hasattr(config, "workerinput"):
        return  # a worker's summary is not shown; the controller prints the lines
    for marker, (count, reason) in sorted(_left_out.items()):
        noun = "test" if count == 1 else "tests"
        terminalreporter.write_line(f"left out: {count} {noun} marked {marker} — {reason}")


@pytest.fixture(autouse=True)
def _fresh_cache() -> Iterator[None]:
    """Throttle counters live in the cache; each test starts with none."""
    from django.core.cache import caches

    # Looked up each time: a test may have pointed the default cache elsewhere.
    cache_empty(caches["default"])
    yield
    cache_empty(caches["default"])


@pytest.fixture(autouse=True)
def _redis_circuits_closed() -> Iterator[None]:
    """Each test starts with every Redis server's circuit closed, whatever servers
    the test before it found hung or stopped (core.redis_budget)."""
    from core.redis_budget import redis_circuits_reset

    redis_circuits_reset()
    yield
    redis_circuits_reset()


@pytest.fixture(autouse=True)
def _english_between_tests() -> Iterator[None]:
    """Each test starts in English, whatever language the one before it left active
    (a page rendered in Italian, a task that ran in a Latvian player's language)."""
    from django.utils import translation

    translation.activate("en")
    yield
    translation.activate("en")


@pytest.fixture
def redis_cache(settings: Any) -> Iterator[Any]:
    """The default cache on REDIS_URL (tests marked `redis`), under the run's key
    prefix; the tests' keys in it are deleted before and after, and nothing else."""
    from django.core.cache import caches

    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": os.environ["REDIS_URL"],
            "KEY_PREFIX": TEST_KEY_PREFIX,
        }
    }
    cache = caches["default"]
    cache_empty(cache)
    yield cache
    cache_empty(cache)


@pytest.fixture(autouse=True)
def _greedy_takeover_bot(settings: Any) -> None:
    """The greedy bot takes over missed turns in the tests: it is quick, and the
    tests that watch its choices patch it. The search bot's own takeover test
    (tests/games/test_takeover_bot.py) sets TAKEOVER_BOT back to ismcts."""
    settings.TAKEOVER_BOT = "greedy"
    # A practice game's search bot thinks briefly in the tests (its strength is a benchmark).
    settings.PRACTICE_BOT_PLAYOUTS = 20
    # So does a review's (its budget is a benchmark too): a finished game's review,
    # searched inline when a test asks for it (eager tasks), takes a second or two.
    settings.REVIEW_PLAYOUTS = 8


@pytest.fixture(autouse=True)
def _tokens_read_each_request(settings: Any) -> None:
    """Each request reads its API token from the database, as a process that has not
    seen it within API_TOKEN_CACHE_SECONDS does: a test's query counts then do not
    depend on how fast the machine ran it. The token cache's own tests
    (tests/accounts/test_token_cache.py) turn it on, and the e2e tests' processes run
    with the shipped default."""
    settings.API_TOKEN_CACHE_SECONDS = 0


@pytest.fixture(autouse=True)
def _fast_password_hashing(settings):
    """The real hasher is slow on purpose; tests need not be."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


# The personas, shared by every app's tests: alice creates games, bob and charlie
# join or are invited, dave is the fourth seat or the outsider.
def _persona(name: str) -> Any:
    from tests.games.game_helpers import make_player

    return make_player(name)


@pytest.fixture
def alice(db: None) -> Any:
    return _persona("alice")


@pytest.fixture
def bob(db: None) -> Any:
    return _persona("bob")


@pytest.fixture
def charlie(db: None) -> Any:
    return _persona("charlie")


@pytest.fixture
def dave(db: None) -> Any:
    return _persona("dave")


# --- Logs in each LOG_FORMAT -------------------------------------------------------


@pytest.fixture(params=["plain", "json"])
def log_format(request: pytest.FixtureRequest, caplog: pytest.LogCaptureFixture) -> Iterator[str]:
    """Run the test once with each LOG_FORMAT: caplog's handler gets the site's
    handler filter (the log context) and that format's formatter, so that
    ``caplog.text`` is what an operator would read, the JSON lines' extra
    fields included. A test that asserts a secret is absent from caplog.text
    then checks both forms."""
    from core.log_context import LogContextFilter
    from core.log_format import log_formatter

    handler = caplog.handler  # pytest's one capturing handler: restored after the test
    formatter, context = handler.formatter, LogContextFilter()
    handler.setFormatter(log_formatter(request.param))
    handler.addFilter(context)
    yield request.param
    handler.removeFilter(context)
    handler.setFormatter(formatter)


class GameExtensions:
    """The registered game extensions (games.extensions), swapped for one test;
    the ones the apps registered are put back after it."""

    def __init__(self, registered: tuple[Any, ...]) -> None:
        self.registered = registered

    def use(self, *extensions: Any) -> None:
        """Only these extensions, in this order."""
        from games.extensions import extensions_replace

        extensions_replace(tuple(extensions))

    def add(self, *added: Any) -> None:
        """These extensions after the registered ones."""
        from games.extensions import extensions, extensions_replace

        extensions_replace((*extensions(), *added))

    def hearing(self, *names: str) -> None:
        """Every extension keeps its hooks, but only the consumers named hear the
        outbox's events (the others are registered as if they handled none)."""
        from games.extensions import extensions, extensions_replace, handles_events

        extensions_replace(
            tuple(
                extension if extension.name in names or not handles_events(extension) else _deaf(extension)
                for extension in extensions()
            )
        )

    def named(self, name: str) -> Any:
        from games.extensions import extensions

        return next(extension for extension in extensions() if extension.name == name)


def _deaf(extension: Any) -> Any:
    """A copy of ``extension`` whose class handles no event (its other hooks kept)."""
    import copy

    from games.extensions import GameExtension

    cls = type(extension)
    deaf = copy.copy(extension)
    deaf.__class__ = type(f"Deaf{cls.__name__}", (cls,), {"handle_event": GameExtension.handle_event})
    return deaf


@pytest.fixture
def game_extensions() -> Iterator[GameExtensions]:
    """Swap the registered game extensions for one test (``use``, ``add``,
    ``hearing``): the tests' one way to change what apps add to games."""
    from games.extensions import extensions, extensions_replace

    registered = extensions()
    yield GameExtensions(registered)
    extensions_replace(registered)


# --- Shared fixtures: active_game, staff_client (tests/factories.py) -----------------
# One definition each for the whole suite; tests/test_shared_helpers.py fails if a
# test module defines them again. (fixed_clock, for the games tests only, is in
# tests/games/conftest.py.) This block ends at the end of the file.

@pytest.fixture
def active_game_options() -> dict[str, Any]:
    """What ``active_game`` is made with besides alice and bob: StartedGameFactory's
    keywords (``public``, ``variant``, ``move_timeout_hours``, ``forfeit_after`` ...).
    None here: a private game with the default clock. A module that needs another
    game overrides this fixture and says why."""
    return {}


@pytest.fixture
def active_game(alice: Any, bob: Any, active_game_options: dict[str, Any]) -> Game:
    """An active two-seat game: alice created it and invited bob, who joined, so it
    started (tests.factories.StartedGameFactory) and the clock of the seat to move
    runs; private unless the module's ``active_game_options`` say otherwise."""
    from tests.factories import StartedGameFactory

    game = StartedGameFactory.create(creator=alice, invited=[bob], **active_game_options)
    assert game.deadline_at is not None
    return game


@pytest.fixture
def staff_client(client: Client, db: None) -> Client:
    """The test client signed in as a superuser ("root"), so every admin page and
    action is open to it."""
    from django.contrib.auth import get_user_model

    admin = get_user_model().objects.create_superuser("root", "root@example.com", "pw-for-tests-only")
    client.force_login(admin)
    return client


# --- End of the shared fixtures -----------------------------------------------------
