"""Read one delivery status notification (a bounce, RFC 3464) on stdin and mark
the addresses it reports as failed for good undeliverable.

    manage.py notifications_bounce < bounce.eml
"""

from __future__ import annotations

import sys
from typing import Any

from django.core.management.base import BaseCommand

from notifications.email.bounces import dsn_record

# A DSN is small; a larger message on stdin is not one.
MAX_BYTES = 1024 * 1024


class Command(BaseCommand):
    # Tests pass a stream of their own (call_command(..., stdin=...)).
    stealth_options = ("stdin",)
    help = "Read a bounce (RFC 3464 delivery status notification) on stdin; mark hard-failed addresses undeliverable."

    def handle(self, *args: Any, **options: Any) -> None:
        stdin = options.get("stdin") or sys.stdin
        raw = getattr(stdin, "buffer", stdin).read(MAX_BYTES + 1)
        if isinstance(raw, str):
            raw = raw.encode("utf-8", "surrogateescape")
        if len(raw) > MAX_BYTES:
            self.stderr.write(f"The message is larger than {MAX_BYTES} bytes; it is not a bounce. Nothing recorded.")
            return
        count = dsn_record(raw)
        self.stdout.write(f"{count} address{'es' if count != 1 else ''} marked undeliverable.")
