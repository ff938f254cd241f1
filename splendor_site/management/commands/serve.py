"""manage.py serve [ADDRPORT] [--no-worker] [--noreload]

The README's one command: the development web server and, beside it, one Celery
worker with the beat scheduler embedded (``celery -A splendor_site worker -B``),
so turn emails, reminders, deadline sweeps and outbox redelivery happen with
nothing else to start. By default the broker is the embedded one (kombu's
filesystem transport, folders under VAR_DIR); with ``CELERY_BROKER_URL=redis://...``
the same two processes use Redis.

Both run as children, each in a process group of its own. Ctrl-C (SIGINT) or
SIGTERM stops both: each group gets SIGTERM, then SIGKILL if it has not exited
within STOP_SECONDS. If either child exits by itself, the other is stopped the
same way and the command exits non-zero.

The worker is started here, in the outer process, never by the web server: the
runserver child keeps Django's autoreloader (it restarts only its own inner
process when code changes), so there is always exactly one worker. The worker
does not reload; restart the command after changing tasks.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from argparse import ArgumentParser
from types import FrameType
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from splendor_site.celery import broker_folders_make

STOP_SECONDS = 10.0
POLL_SECONDS = 0.2


def worker_command() -> list[str]:
    """One worker with beat embedded, on the default queue. Solo pool: one task at
    a time, which suits SQLite's single writer and a development machine."""
    return [
        sys.executable, "-m", "celery", "-A", "splendor_site", "worker",
        "--beat", "--schedule-filename", settings.CELERY_BEAT_SCHEDULE_FILENAME,
        "--pool", "solo", "--queues", "celery",
        "--without-gossip", "--without-mingle",
        "--loglevel", "INFO",
    ]  # fmt: skip


def server_command(addrport: str, *, reload: bool) -> list[str]:
    command = [sys.executable, "manage.py", "runserver", addrport]
    if not reload:
        command.append("--noreload")
    return command


class Stop(Exception):
    """A signal asked the command to stop."""


class Command(BaseCommand):
    help = (
        "Run the web server and a Celery worker with beat (turn emails, reminders, "
        "deadlines) together; Ctrl-C stops both."
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

        commands = {"web server": server_command(options["addrport"], reload=not options["noreload"])}
        if with_worker:
            commands["worker"] = worker_command()
        exit_code = self._run(commands)
        if exit_code:
            raise CommandError(f"stopped: {self._why}", returncode=exit_code)

    _why = ""

    def _run(self, commands: dict[str, list[str]]) -> int:
        children: dict[str, subprocess.Popen[bytes]] = {}

        def stop(signum: int, frame: FrameType | None) -> None:
            raise Stop(signal.Signals(signum).name)

        previous = {sig: signal.signal(sig, stop) for sig in (signal.SIGINT, signal.SIGTERM)}
        try:
            for name, command in commands.items():
                # A process group of its own: the terminal's Ctrl-C reaches only this
                # command, which stops each child and everything the child started.
                children[name] = subprocess.Popen(command, cwd=settings.BASE_DIR, start_new_session=True)
                self.stdout.write(f"serve: started the {name} (pid {children[name].pid}): {' '.join(command[1:])}")
            while True:
                for name, child in children.items():
                    code = child.poll()
                    if code is not None:
                        self._why = f"the {name} exited with {code}"
                        self.stderr.write(f"serve: {self._why}; stopping the rest")
                        return code or 1
                time.sleep(POLL_SECONDS)
        except Stop as received:
            self.stdout.write(f"serve: {received} received; stopping")
            return 0
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)
            # Ignore further Ctrl-C while stopping, so that the children are always waited for.
            signal.signal(signal.SIGINT, signal.SIG_IGN)
            try:
                _stop_all(children)
            finally:
                signal.signal(signal.SIGINT, previous[signal.SIGINT])


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
