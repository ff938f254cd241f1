"""The Celery app, configured from Django settings (every CELERY_* setting)."""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import Token
from typing import Any

from celery import Celery
from celery.apps import worker as celery_worker
from celery.apps.beat import Beat
from celery.signals import (
    after_setup_logger,
    after_setup_task_logger,
    beat_init,
    before_task_publish,
    task_postrun,
    task_prerun,
    worker_shutting_down,
)
from kombu.utils.objects import cached_property
from kombu import Connection
from kombu.transport import redis as kombu_redis

from core.log_context import LogContextFilter, log_context_current, log_context_reset, log_context_set, request_id_valid
from core.log_format import log_formatter
from core.redis_budget import BudgetedConnection, BudgetedSSLConnection

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "splendor_site.settings")


# The embedded brokers' URLs name no host (``filesystem://``, ``memory://``): they
# have none. kombu then warns "No hostname was supplied. Reverting to default
# 'localhost'" each time it copies such a connection (every start, every pool).
_HOSTLESS_BROKER = re.compile(r"^(filesystem|memory)://(?=/|$)", re.IGNORECASE)


def broker_url_for_kombu(url: str) -> str:
    """``url`` (one broker URL, or several separated by ``;``) with the host that
    kombu would fill in written out for the embedded brokers, which use none: the
    same broker, without kombu's warning. Any other URL is returned unchanged."""
    return ";".join(_HOSTLESS_BROKER.sub(r"\1://localhost", part.strip()) for part in url.split(";"))


class _BudgetedRedisChannel(kombu_redis.Channel):
    connection_class = BudgetedConnection
    connection_class_ssl = BudgetedSSLConnection
    _kept_client: Any = None

    @contextmanager
    def conn_or_acquire(self, client: Any = None) -> Iterator[Any]:
        """kombu's, but with one client per channel and pool: kombu builds a new
        ``redis.Redis`` (and its table of some 170 reply callbacks) for every
        message it publishes, a tenth of what queueing a task costs a request.
        A client holds no state of its own between commands (each takes a
        connection from the channel's pool), so one serves them all; a channel
        whose pool was replaced gets a client on the new one."""
        if client:
            yield client
            return
        pool = self.pool
        kept = self._kept_client
        if kept is None or kept.connection_pool is not pool:
            kombu_channel: Any = self  # kombu's stubs leave out _create_client
            kept = self._kept_client = kombu_channel._create_client()
        yield kept


class BudgetedRedisTransport(kombu_redis.Transport):
    """kombu's Redis transport whose connections wait within the request's Redis
    budget and fail at once while the broker's circuit is open (core.redis_budget)."""

    Channel = _BudgetedRedisChannel


def _logs_are_json() -> bool:
    from django.conf import settings

    return str(settings.LOG_FORMAT) == "json"


class SiteWorker(celery_worker.Worker):
    """`celery worker`, which with LOG_FORMAT=json writes nothing but JSON lines:
    no banner (its settings and task list are printed, not logged; the worker's
    "<name> ready." line is logged), a warning raised before Celery sets up its
    logging (running as root) logged through the site's handlers, and how it
    shuts down logged instead of printed."""

    def on_before_init(self, quiet: bool = False, **kwargs: Any) -> None:
        if _logs_are_json():
            from django.conf import settings
            from django.utils.log import configure_logging

            configure_logging(settings.LOGGING_CONFIG, settings.LOGGING)
            logging.captureWarnings(True)
            quiet = True
        super().on_before_init(quiet=quiet, **kwargs)

    def install_platform_tweaks(self, worker: Any) -> None:
        super().install_platform_tweaks(worker)
        if _logs_are_json():
            # Celery's handlers print "worker: Warm shutdown (MainProcess)" on the
            # terminal's descriptor; the same handlers, silent (_shutdown_logged says it).
            handlers: Any = celery_worker  # the stubs leave these out
            handlers.install_worker_term_handler(worker, verbose=False)
            handlers.install_worker_term_hard_handler(worker, verbose=False)


class SiteBeat(Beat):
    """`celery beat`, with no printed banner when LOG_FORMAT=json (beat logs
    "beat: Starting..." itself)."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs["quiet"] = bool(kwargs.get("quiet")) or _logs_are_json()
        super().__init__(**kwargs)


@worker_shutting_down.connect(weak=False)
def _shutdown_logged(sig: str = "", how: str = "", **kwargs: Any) -> None:
    if _logs_are_json():
        logging.getLogger("celery.apps.worker").info("worker: %s shutdown (%s)", how, sig)


class SiteCelery(Celery):
    """Celery with short timeouts on the connections that publish, the
    embedded brokers' URLs given the host kombu would otherwise warn about, and
    a worker and a beat that keep to LOG_FORMAT (SiteWorker, SiteBeat).

    Celery gives every connection the same transport options; a worker's consumer
    needs a read timeout of seconds (it waits on the broker by design), but a web
    request that queues a task must not wait on a hung broker for that long. Every
    message is published through ``connection_for_write`` (the producer pool,
    ``send_task``, beat, remote control, and ``connection()``), so the publishing
    options go there. The worker consumes through ``connection_for_read``.
    """

    @cached_property
    def Worker(self) -> Any:
        return self.subclass_with_self(SiteWorker)

    @cached_property
    def Beat(self) -> Any:
        return self.subclass_with_self(SiteBeat)

    def connection_for_read(self, url: str | None = None, **kwargs: Any) -> Connection:
        return super().connection_for_read(broker_url_for_kombu(url or self.conf.broker_read_url), **kwargs)

    def connection_for_write(self, url: str | None = None, **kwargs: Any) -> Connection:
        from django.conf import settings

        publishing: dict[str, Any] = getattr(settings, "BROKER_PUBLISH_TRANSPORT_OPTIONS", {})
        kwargs["transport_options"] = {**publishing, **(kwargs.get("transport_options") or {})}
        url = broker_url_for_kombu(url or self.conf.broker_write_url)
        if kwargs.get("transport") is None and url.lower().startswith(("redis://", "rediss://")):
            kwargs["transport"] = BudgetedRedisTransport
        return super().connection_for_write(url, **kwargs)


def _closed_redis_channels_raise_connection_errors() -> None:
    """A worker that loses Redis while it holds an unacknowledged task must not exit.

    On a connection loss, Celery 5.7's consumer collects its connection (the
    transport forgets it) and then closes it; kombu 5.7 keeps the connection's
    default channel through the collect, and closing that channel again tries to
    put the unacknowledged messages back, for which it asks the forgotten
    connection for the broker's address: ``AttributeError: 'NoneType' object has
    no attribute 'hostname'``. Celery takes that for a bug, not a connection
    error, and the worker exits ("Unrecoverable error"), once in a few outages
    under load. Here a channel whose transport has let go of its connection says
    so with a connection error, which the clean-up ignores, and the worker
    reconnects. The messages it could not put back return to the queue after
    BROKER_VISIBILITY_TIMEOUT_SECONDS, and their work is claimed again sooner
    (the claim leases), so nothing is lost.
    """
    # kombu's stubs leave these out: the transport's channel and the redis client module.
    channel: Any = kombu_redis.Channel
    client: Any = getattr(kombu_redis, "redis", None)
    if client is None or getattr(channel._connparams, "checks_closed", False):
        return
    connparams = channel._connparams
    closed = client.exceptions.ConnectionError

    def _connparams(self: Any, asynchronous: bool = False) -> Any:
        if self.connection.client is None:
            raise closed("the connection to the broker was closed")
        return connparams(self, asynchronous=asynchronous)

    _connparams.checks_closed = True  # type: ignore[attr-defined]
    channel._connparams = _connparams


_closed_redis_channels_raise_connection_errors()

app = SiteCelery("splendor_site")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()

# Every task's run time and failures (docs/operations.md, "Metrics"). After the
# settings are known: the metrics choose where to count from them.
import splendor_site.task_metrics  # noqa: E402,F401


@task_prerun.connect(weak=False)
@task_postrun.connect(weak=False)
def _close_old_connections(**kwargs: Any) -> None:
    """Each task is a request to Django's connection handling: a connection past
    CONN_MAX_AGE, or one that fails its health check, is closed; the others are
    kept for the next task (CELERY_DB_REUSE_MAX keeps Celery from closing them all).
    Tasks run inline (eager) are part of the request that runs them."""
    task = kwargs.get("task")
    request = getattr(task, "request", None)
    if getattr(request, "is_eager", False):
        return
    from django.db import close_old_connections

    close_old_connections()


@beat_init.connect(weak=False)
def _beat_start_record(**kwargs: Any) -> None:
    """Beat says when it starts (core.metrics.BEAT_START, a PeriodicRun row), so that
    /healthz counts the deadline sweep late only BEAT_STALE_SECONDS after this
    start, not after the last sweep of the run before (api.health). A database
    that cannot be written now does not keep beat from starting."""
    from core.metrics import BEAT_START
    from games.services import periodic_run_mark

    try:
        periodic_run_mark(BEAT_START)
    except Exception:
        logging.getLogger(__name__).warning("beat could not record its start", exc_info=True)


def broker_folders_make() -> None:
    """Make the embedded broker's folders under VAR_DIR when it is the broker
    (kombu's filesystem transport does not make them); nothing otherwise."""
    from django.conf import settings

    if not str(settings.CELERY_BROKER_URL).startswith("filesystem://"):
        return
    for folder in settings.BROKER_FOLDERS.values():
        folder.mkdir(parents=True, exist_ok=True)


# --- Log context across tasks (core.log_context) ----------------------------------
#
# The request id travels with the tasks a request queues (and the tasks they queue
# in turn), as a header of the message: before_task_publish writes it from the log
# context; a worker finds the message's headers as attributes of the task's request
# (celery.worker.request.Request keeps them, celery.app.trace hands them to the
# task's Context), and task_prerun sets the log context from it, with the task's
# name and id, until task_postrun. A task run inline (eager) has no message: it
# keeps the request id of the request that runs it.

REQUEST_ID_HEADER = "request_id"

# The log context each running task set, by task id, for task_postrun to reset.
_task_log_contexts: dict[str, Token[Mapping[str, object]]] = {}


@before_task_publish.connect(weak=False)
def _request_id_to_message(headers: dict[str, Any] | None = None, **kwargs: Any) -> None:
    request_id = log_context_current().get("request_id")
    if request_id is not None and headers is not None:
        headers.setdefault(REQUEST_ID_HEADER, request_id)


@task_prerun.connect(weak=False)
def _log_context_from_task(task_id: str | None = None, task: Any = None, **kwargs: Any) -> None:
    if task_id is None:
        return
    request = getattr(task, "request", None)
    values: dict[str, object] = {"task": getattr(task, "name", None), "task_id": task_id}
    request_id = request_id_valid(getattr(request, REQUEST_ID_HEADER, None))
    if request_id is not None:
        values["request_id"] = request_id
    _task_log_contexts[task_id] = log_context_set(**values)


@task_postrun.connect(weak=False)
def _log_context_after_task(task_id: str | None = None, **kwargs: Any) -> None:
    token = _task_log_contexts.pop(task_id, None) if task_id is not None else None
    if token is not None:
        try:
            log_context_reset(token)
        except ValueError:
            pass  # set in another context (a pool that moved the task): nothing of ours to undo


@after_setup_logger.connect(weak=False)
@after_setup_task_logger.connect(weak=False)
def _worker_logs_as_the_sites(logger: logging.Logger | None = None, **kwargs: Any) -> None:
    """A worker's and beat's own handlers (Celery sets them up, at --loglevel) write
    LOG_FORMAT's lines with the log context, as the site's handlers do."""
    from django.conf import settings

    if logger is None:
        return
    for handler in logger.handlers:
        handler.setFormatter(log_formatter(settings.LOG_FORMAT))
        handler.addFilter(LogContextFilter())
