"""Table talk's tests: the email tests' settings, clock and ``commit`` (email in the
locmem outbox, Celery eager, on-commit work run when a change ends) and the
inbound tests' trusted mail host, so that a line goes from the page to email and
back by a reply.

Personas (tests/conftest.py): alice and bob play; charlie watches public games
and is the stranger of private ones; dave is a moderator where one is needed."""

from __future__ import annotations

from tests.notifications.conftest import _email_settings, clock, commit  # noqa: F401  (fixtures)
from tests.notifications.inbound.conftest import _inbound_settings, _offline_dns  # noqa: F401  (fixtures)
