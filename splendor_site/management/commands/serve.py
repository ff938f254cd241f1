"""manage.py serve [ADDRPORT] [--no-worker] [--noreload]

The README's one command: the development web server and, beside it, the
workers, so turn emails, reminders, deadline sweeps, outbox redelivery, bot moves
and webhook deliveries happen with nothing else to start: a worker for each queue
(docs/deploy.md, "Queues"), so that no class of work waits behind another's: one on
the default queue (game email, the outbox, the stream), one on ``webhooks`` (a slow
receiver never holds up game email), one on ``bots`` (one move at a time, at a
lower CPU priority: practice games never slow the site) and one on ``beat`` with
the beat scheduler embedded (``celery -A splendor_site worker -B``), so that the
deadline sweep and the other periodic tasks never wait behind anyone's work. By
default the broker is the embedded one (kombu's filesystem transport, folders under
VAR_DIR, shared by every queue); with ``CELERY_BROKER_URL=redis://...`` the same
processes use Redis.

Each runs as a child in a process group of its own. Ctrl-C (SIGINT) or SIGTERM
stops them all: each group gets SIGTERM, then SIGKILL if it has not exited within
STOP_SECONDS. A worker that exits by itself (a crash, a kill) is started again,
after a wait that doubles with each exit in a row (RESTART_FIRST_SECONDS up to
RESTART_MAX_SECONDS; a worker that ran RESTART_RESET_SECONDS starts from the
first wait again), as the documented process managers restart theirs. If the
web server exits by itself (its port taken, a broken settings file), the rest
are stopped and the command exits non-zero.

Nothing is sent by email: unless EMAIL_BACKEND is set, every process prints each
message as a framed block of its To, its Subject and the lines with a link or a
code (``splendor_site.console_email``), and unless WORKER_ROUTINE_LOG_LEVEL is set
the workers log their routine lines (beat's sends, each task received and done)
only from WARNING up, so that those blocks stand out; ``serve_environment``.

The workers are started here, in the outer process, never by the web server: the
runserver child keeps Django's autoreloader (it restarts only its own inner
process when code changes), so there is always exactly one of each. The workers
do not reload; restart the command after changing tasks.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from argparse import ArgumentParser
from collections.abc import Callable
from types import FrameType
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from core import metrics
from splendor_site.celery import broker_folders_make

STOP_SECONDS = 10.0
POLL_SECONDS = 0.2
RESTART_FIRST_SECONDS = 1.0
RESTART_MAX_SECONDS = 30.0
RESTART_RESET_SECONDS = 60.0
WEB_SERVER = "web server"


# Each worker's pool is solo: one task at a time, which suits SQLite's single
# writer and a development machine.
_WORKER = [sys.executable, "-m", "celery", "-A", "splendor_site", "worker", "--pool", "solo"]
_QUIET = ["--without-gossip", "--without-mingle", "--loglevel", "INFO"]

# How much lower than the rest the bots worker runs (nice(1)): its seconds of search
# yield the CPU to the web server and game email. docs/deploy.md's unit says Nice=10.
BOTS_NICE = 10


def worker_command() -> list[str]:
    """One worker on the default queue: game email, the outbox's consumers, the stream."""
    return [*_WORKER, "--queues", settings.DEFAULT_QUEUE, "--hostname", "celery@%h", *_QUIET]


def webhooks_worker_command() -> list[str]:
    """One worker on the webhooks queue only: an attempt may take up to
    WEBHOOKS_ATTEMPT_SECONDS, and it takes it here, not from game email."""
    return [*_WORKER, "--queues", settings.WEBHOOKS_QUEUE, "--hostname", "webhooks@%h", *_QUIET]


def bots_worker_command() -> list[str]:
    """One worker on the bots queue, one move at a time (concurrency 1), started at
    BOTS_NICE: every bot's move is seconds of search, and it takes them here."""
    return [*_WORKER, "--concurrency", "1", "--queues", settings.BOTS_QUEUE, "--hostname", "bots@%h", *_QUIET]


def beat_worker_command() -> list[str]:
    """Beat, embedded in the one worker on the beat queue: the periodic tasks it
    sends run here, behind nobody's work."""
    return [
        *_WORKER, "--beat", "--schedule-filename", settings.CELERY_BEAT_SCHEDULE_FILENAME,
        "--queues", settings.BEAT_QUEUE, "--hostname", "beat@%h", *_QUIET,
    ]  # fmt: skip


# serve's name for each worker, its command and its niceness.
WORKERS: dict[str, tuple[Callable[[], list[str]], int]] = {
    "worker": (worker_command, 0),
    "webhooks worker": (webhooks_worker_command, 0),
    "bots worker": (bots_worker_command, BOTS_NICE),
    "beat worker": (beat_worker_command, 0),
}


CONSOLE_EMAIL_BACKEND = "splendor_site.console_email.EmailBackend"


def serve_environment(environ: dict[str, str]) -> dict[str, str]:
    """The environment of the processes serve starts: ``environ`` with the framed
    email blocks and quiet routine worker lines, unless it chose otherwise."""
    chosen = dict(environ)
    for name, value in (("EMAIL_BACKEND", CONSOLE_EMAIL_BACKEND), ("WORKER_ROUTINE_LOG_LEVEL", "WARNING")):
        if not chosen.get(name, "").strip():  # blank is unset, as the settings read it
            chosen[name] = value
    return chosen


def serve_notice(environ: dict[str, str]) -> list[str]:
    """What serve says once about where email and the workers' routine lines go."""
    said = []
    if environ.get("EMAIL_BACKEND") == CONSOLE_EMAIL_BACKEND:
        said.append(
            "serve: nothing is emailed; each email is printed below as a framed block of its To, its Subject and "
            "its lines with a link or a code (EMAIL_BACKEND=django.core.mail.backends.console.EmailBackend "
            "prints whole messages)"
        )
    if environ.get("WORKER_ROUTINE_LOG_LEVEL") == "WARNING":
        said.append(
            "serve: the workers' routine lines (beat's sends, each task received and done) are left out; "
            "WORKER_ROUTINE_LOG_LEVEL=INFO shows them"
        )
    return said


def server_command(addrport: str, *, reload: bool) -> list[str]:
    command = [sys.executable, "manage.py", "runserver", addrport]
    if not reload:
        command.append("--noreload")
    return command


class Stop(Exception):
    """A signal asked the command to stop."""


class Command(BaseCommand):
    help = (
        "Run the web server and a Celery worker for each queue together (game email; webhook "
        "deliveries; bot moves; beat's periodic tasks, with beat); a worker that exits is started "
        "again; Ctrl-C stops them all."
    )
    requires_system_checks: list[str] = []  # runserver runs them itself

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("addrport", nargs="?", default="127.0.0.1:8000", help="as runserver's (default 127.0.0.1:8000)")
        parser.add_argument("--no-worker", action="store_true", help="run the web server only (workers run elsewhere)")
        parser.add_argument("--noreload", action="store_true", help="no autoreloader in the web server")

    def handle(self, *args: Any, **options: Any) -> None:
        broker = str(settings.CELERY_BROKER_URL)
        with_worker = not options["no_worker"]
        if with_worker and settings.CELERY_TASK_ALWAYS_EAGER:
            self.stderr.write(
                "CELERY_TASK_ALWAYS_EAGER is on: tasks run inside the web process and no worker is "
                "started, so no deadline is swept and no reminder is sent. Unset it (and leave "
                "CELERY_BROKER_URL unset, or set it to redis://...) for the worker."
            )
            with_worker = False
        if broker.startswith("filesystem://"):
            broker_folders_make()
        os.makedirs(settings.VAR_DIR, exist_ok=True)
        # The counts of the processes a previous `serve` started (they have all stopped).
        metrics.counts_forget()

        commands = {WEB_SERVER: server_command(options["addrport"], reload=not options["noreload"])}
        niceness: dict[str, int] = {}
        if with_worker:
            for name, (command, nice) in WORKERS.items():
                commands[name] = command()
                niceness[name] = nice
        exit_code = self._run(commands, niceness)
        if exit_code:
            raise CommandError(f"stopped: {self._why}", returncode=exit_code)

    _why = ""

    def _run(self, commands: dict[str, list[str]], niceness: dict[str, int]) -> int:
        environ = serve_environment(dict(os.environ))
        for line in serve_notice(environ):
            self.stdout.write(line)
        supervisor = Supervisor(
            commands, say=self.stdout.write, warn=self.stderr.write, niceness=niceness, environ=environ
        )

        def stop(signum: int, frame: FrameType | None) -> None:
            raise Stop(signal.Signals(signum).name)

        previous = {sig: signal.signal(sig, stop) for sig in (signal.SIGINT, signal.SIGTERM)}
        try:
            supervisor.start_all()
            while (code := supervisor.step(time.monotonic())) is None:
                time.sleep(POLL_SECONDS)
            self._why = supervisor.why
            return code
        except Stop as received:
            self.stdout.write(f"serve: {received} received; stopping")
            return 0
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)
            # Ignore further Ctrl-C while stopping, so that the children are always waited for.
            signal.signal(signal.SIGINT, signal.SIG_IGN)
            try:
                _stop_all(supervisor.children)
            finally:
                signal.signal(signal.SIGINT, previous[signal.SIGINT])


class Supervisor:
    """Starts ``commands`` and watches them: a worker that exits is started again
    after a backoff, the web server's exit ends everything (``step`` returns the
    exit code then). ``children`` holds the running ones, for stopping; a name in
    ``niceness`` starts at that niceness (nice(1))."""

    def __init__(self, commands: dict[str, list[str]], *, say: Callable[[str], object],
                 warn: Callable[[str], object], niceness: dict[str, int] | None = None,
                 environ: dict[str, str] | None = None) -> None:  # fmt: skip
        self.commands = commands
        self.niceness = niceness or {}
        self.environ = environ
        self.say, self.warn = say, warn
        self.children: dict[str, subprocess.Popen[bytes]] = {}
        self.started_at: dict[str, float] = {}
        self.restart_at: dict[str, float] = {}
        self.waits: dict[str, float] = {}
        self.restarts: dict[str, int] = {}
        self.why = ""

    def start_all(self) -> None:
        for name in self.commands:
            self._start(name, time.monotonic())

    def _start(self, name: str, now: float) -> None:
        command = self.commands[name]
        # A process group of its own: the terminal's Ctrl-C reaches only this
        # command, which stops each child and everything the child started.
        nice = self.niceness.get(name, 0)
        self.children[name] = subprocess.Popen(
            command, cwd=settings.BASE_DIR, start_new_session=True, env=self.environ,
            preexec_fn=(lambda: _nice(nice)) if nice else None,
        )  # fmt: skip
        self.started_at[name] = now
        self.say(f"serve: started the {name} (pid {self.children[name].pid}): {' '.join(command[1:])}")

    def step(self, now: float) -> int | None:
        """Look at each child once; None while serving goes on, else the exit code."""
        for name, child in list(self.children.items()):
            code = child.poll()
            if code is None:
                continue
            if name == WEB_SERVER:
                self.why = f"the {name} exited with {code}"
                self.warn(f"serve: {self.why}; stopping the rest")
                return code or 1
            # What the worker started (the embedded beat, the pool) goes with it, so that
            # the new one never runs beside a leftover.
            _signal_group(child, signal.SIGKILL)
            del self.children[name]
            ran = now - self.started_at[name]
            wait = RESTART_FIRST_SECONDS if ran >= RESTART_RESET_SECONDS else self.waits.get(name, RESTART_FIRST_SECONDS)
            self.waits[name] = min(wait * 2, RESTART_MAX_SECONDS)
            self.restart_at[name] = now + wait
            self.restarts[name] = self.restarts.get(name, 0) + 1
            self.warn(f"serve: the {name} exited with {code}; starting it again in {wait:g} s")
        for name, when in list(self.restart_at.items()):
            if now >= when:
                del self.restart_at[name]
                self._start(name, now)
        return None


def _nice(increment: int) -> None:
    """In the child before it runs its command: a lower CPU priority."""
    os.nice(increment)


def _signal_group(child: subprocess.Popen[bytes], sig: int) -> None:
    try:
        os.killpg(child.pid, sig)
    except ProcessLookupError:
        pass


def _stop_all(children: dict[str, subprocess.Popen[bytes]]) -> None:
    """SIGTERM each child's group, wait up to STOP_SECONDS, then SIGKILL what is left;
    always reap every child, so that none is left behind."""
    for child in children.values():
        _signal_group(child, signal.SIGTERM)
    deadline = time.monotonic() + STOP_SECONDS
    for child in children.values():
        try:
            child.wait(timeout=max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            pass
    for child in children.values():
        # The group too: a child that exited may have left a process of its own
        # (the autoreloader's inner server, the embedded beat).
        _signal_group(child, signal.SIGKILL)
        child.wait()
