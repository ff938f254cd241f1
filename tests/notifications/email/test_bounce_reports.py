"""Hard bounces mark an address undeliverable: delivery status notifications
(RFC 3464) on stdin, and the email provider's tracking webhooks (anymail)."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest
from anymail.signals import AnymailTrackingEvent, tracking
from django.core.management import call_command
from django.test import Client

from notifications.email.bounces import dsn_parse

FIXTURES = Path(__file__).parent / "fixtures"


def _raw(name: str) -> bytes:
    return (FIXTURES / name).read_bytes()


def test_a_user_unknown_bounce_names_the_address_status_and_diagnostic() -> None:
    assert dsn_parse(_raw("postfix_user_unknown.eml")) == [
        ("bob@example.com", "5.1.1", "smtp; 550 5.1.1 <bob@example.com>: Recipient address rejected: User unknown")
    ]


def test_a_delay_is_not_a_hard_bounce() -> None:
    assert dsn_parse(_raw("delayed.eml")) == []


def test_only_recipients_that_failed_for_good_are_reported() -> None:
    assert dsn_parse(_raw("sendmail_mixed.eml")) == [
        ("Alice@Example.com", "5.2.1", "smtp; 550 5.2.1 mailbox disabled")
    ]


def test_a_message_that_is_not_a_report_gives_nothing() -> None:
    assert dsn_parse(b"From: someone@example.com\r\nSubject: take WUG\r\n\r\ntake WUG\r\n") == []
    assert dsn_parse(b"\x00\xff not even a message") == []


def _bounce_command(raw: bytes) -> str:
    out = io.StringIO()
    stdin = io.TextIOWrapper(io.BytesIO(raw))
    call_command("notifications_bounce", stdin=stdin, stdout=out)
    return out.getvalue()


def test_the_bounce_command_marks_the_address_undeliverable(alice: Any, bob: Any) -> None:
    assert _bounce_command(_raw("postfix_user_unknown.eml")).strip() == "1 address marked undeliverable."
    bob.player.refresh_from_db()
    alice.player.refresh_from_db()
    assert bob.player.email_undeliverable_at is not None
    assert bob.player.email_undeliverable_reason == "bounced (5.1.1)"
    assert alice.player.email_undeliverable_at is None


def test_the_bounce_command_matches_addresses_whatever_their_case(alice: Any) -> None:
    _bounce_command(_raw("sendmail_mixed.eml"))
    alice.player.refresh_from_db()
    assert alice.player.email_undeliverable_reason == "bounced (5.2.1)"


def test_a_bounce_the_provider_reports_marks_the_address_undeliverable(bob: Any) -> None:
    event = AnymailTrackingEvent(event_type="bounced", recipient="bob@example.com", esp_event={})
    tracking.send(sender=object, event=event, esp_name="TestESP")
    bob.player.refresh_from_db()
    assert bob.player.email_undeliverable_reason == "bounced (reported by the email provider)"


@pytest.mark.parametrize(
    ("event_type", "reject_reason", "marked"),
    [("rejected", "invalid", True), ("rejected", "spam", False), ("deferred", None, False), ("opened", None, False)],
)
def test_only_hard_provider_events_mark_the_address(
    bob: Any, event_type: str, reject_reason: str | None, marked: bool
) -> None:
    event = AnymailTrackingEvent(event_type=event_type, recipient="bob@example.com", reject_reason=reject_reason)
    tracking.send(sender=object, event=event, esp_name="TestESP")
    bob.player.refresh_from_db()
    assert (bob.player.email_undeliverable_at is not None) is marked


def test_the_provider_webhooks_are_not_routed_without_a_shared_secret(db: None) -> None:
    # splendor_site.urls routes /anymail/ only when ANYMAIL_WEBHOOK_SECRET is set.
    assert Client().post("/anymail/postmark/tracking/", data="{}", content_type="application/json").status_code == 404
