"""An email backend for tests that fails as told, then delivers to the locmem outbox."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.core.mail.backends.locmem import EmailBackend as LocmemBackend

# Exceptions to raise, one per send, before delivering normally.
FAILURES: list[BaseException] = []
PATH = "tests.notifications.flaky_backend.FlakyBackend"


class FlakyBackend(LocmemBackend):
    def send_messages(self, messages: Sequence[Any]) -> int:
        if FAILURES:
            raise FAILURES.pop(0)
        return super().send_messages(messages)
