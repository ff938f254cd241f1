"""Outgoing email is counted by kind and outcome (splendor_emails_total), and every
hard bounce by where it was learnt (splendor_email_bounces_total)."""

from __future__ import annotations

import io
import smtplib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from tests.metrics_helpers import value
from tests.notifications import flaky_backend
from tests.notifications.email_helpers import start_game

pytestmark = pytest.mark.django_db

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture
def flaky(settings: Any) -> Iterator[list[BaseException]]:
    settings.EMAIL_BACKEND = flaky_backend.PATH
    flaky_backend.FAILURES.clear()
    yield flaky_backend.FAILURES
    flaky_backend.FAILURES.clear()


def test_sent_emails_are_counted_by_kind(alice: Any, bob: Any, commit: Any, clock: Any) -> None:
    turns = value("splendor_emails_total", kind="your_turn", outcome="sent")
    start_game(commit, alice, bob)
    assert value("splendor_emails_total", kind="your_turn", outcome="sent") == turns + 1


def test_a_refusal_at_send_time_is_a_bounced_email_and_a_bounce_from_smtp(
    alice: Any, bob: Any, commit: Any, clock: Any, flaky: list[BaseException]
) -> None:
    bounced = value("splendor_emails_total", kind="invitation", outcome="bounced")
    smtp = value("splendor_email_bounces_total", source="smtp")
    flaky.append(smtplib.SMTPRecipientsRefused({"bob@example.com": (550, b"5.1.1 no such user")}))
    with commit():
        from games import services as games

        games.game_create(creator=alice, variant="base", seats=2, invited=[bob])
    assert value("splendor_emails_total", kind="invitation", outcome="bounced") == bounced + 1
    assert value("splendor_email_bounces_total", source="smtp") == smtp + 1


def test_a_failed_attempt_is_counted_as_a_retry(
    alice: Any, bob: Any, commit: Any, clock: Any, flaky: list[BaseException]
) -> None:
    retries = value("splendor_emails_total", kind="invitation", outcome="retry")
    flaky.append(smtplib.SMTPServerDisconnected("gone"))
    with commit():
        from games import services as games

        games.game_create(creator=alice, variant="base", seats=2, invited=[bob])
    assert value("splendor_emails_total", kind="invitation", outcome="retry") == retries + 1


def test_a_bounce_report_is_counted_as_a_bounce_from_a_dsn(alice: Any, bob: Any) -> None:
    dsn = value("splendor_email_bounces_total", source="dsn")
    stdin = io.TextIOWrapper(io.BytesIO((FIXTURES / "postfix_user_unknown.eml").read_bytes()))
    call_command("notifications_bounce", stdin=stdin, stdout=io.StringIO())
    assert value("splendor_email_bounces_total", source="dsn") == dsn + 1
