"""The ways in: the SMTP receiver's checks, the email provider's inbound
webhook (anymail) and the IMAP poll, each ending in inbound_message_receive."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from anymail.inbound import AnymailInboundMessage  # type: ignore[import-untyped]
from anymail.signals import AnymailInboundEvent, inbound  # type: ignore[import-untyped]
from tests.notifications.inbound.mail_helpers import FakeImap

from notifications.inbound.tasks import imap_poll
from notifications.management.commands.smtpd import InboundHandler
from notifications.models import InboundMessage

FIXTURES = Path(__file__).parent / "fixtures"


class _Envelope:
    def __init__(self) -> None:
        self.rcpt_tos: list[str] = []


def _rcpt(address: str) -> tuple[str, list[str]]:
    envelope = _Envelope()
    answer = asyncio.run(
        InboundHandler("reply.splendor.test").handle_RCPT(None, None, envelope, address, [])  # type: ignore[arg-type]
    )
    return answer, envelope.rcpt_tos


def test_smtpd_takes_mail_for_its_own_domain() -> None:
    assert _rcpt("play+1-abc@reply.splendor.test") == ("250 OK", ["play+1-abc@reply.splendor.test"])
    assert _rcpt("new@REPLY.splendor.test")[0] == "250 OK"


@pytest.mark.parametrize("address", ["bob@example.com", "play+1-abc@reply.splendor.test.evil.example", "nobody"])
def test_smtpd_refuses_any_other_recipient_with_550(address: str) -> None:
    answer, accepted = _rcpt(address)
    assert answer.startswith("550 ")
    assert accepted == []


@pytest.mark.django_db
def test_a_message_from_the_providers_inbound_webhook_is_stored_once(commit: Any) -> None:
    raw = (FIXTURES / "auto_reply.eml").read_bytes()
    message = AnymailInboundMessage.parse_raw_mime_bytes(raw)
    event = AnymailInboundEvent(event_type="inbound", message=message)
    with commit():
        inbound.send(sender=object, event=event, esp_name="Postmark")
        inbound.send(sender=object, event=event, esp_name="Postmark")
    stored = InboundMessage.objects.get()
    assert stored.source == "webhook-postmark"
    assert (stored.status, stored.outcome) == (InboundMessage.Status.DROPPED, "auto-reply")


@pytest.mark.django_db
def test_the_inbound_webhook_is_routed_only_with_the_shared_secret(client: Any, settings: Any) -> None:
    # splendor_site/urls.py routes /anymail/ only when ANYMAIL_WEBHOOK_SECRET is set.
    if settings.ANYMAIL_WEBHOOK_SECRET:
        pytest.fail("the test settings should have no webhook secret")
    assert client.post("/anymail/postmark/inbound/", data="{}", content_type="application/json").status_code == 404


@pytest.mark.django_db
def test_the_imap_poll_stores_unseen_messages_and_marks_them_seen(commit: Any, settings: Any) -> None:
    settings.INBOUND_IMAP_FOLDER = "Replies"
    imap = FakeImap({b"7": (FIXTURES / "precedence_bulk.eml").read_bytes(), b"9": (FIXTURES / "bounce_dsn.eml").read_bytes()})
    with commit():
        assert imap_poll(client=imap) == 2  # type: ignore[arg-type]
    assert imap.folder == "Replies"
    assert sorted(imap.seen) == ["7", "9"]
    assert InboundMessage.objects.filter(source="imap").count() == 2
    with commit():
        assert imap_poll(client=imap) == 0  # type: ignore[arg-type]


def test_no_imap_host_means_no_poll(settings: Any) -> None:
    settings.INBOUND_IMAP_HOST = ""
    assert imap_poll() == 0


@pytest.mark.django_db
def test_a_message_over_the_size_limit_is_not_stored(settings: Any) -> None:
    from notifications.inbound.receive import inbound_message_receive

    settings.INBOUND_MAX_MESSAGE_BYTES = 10_000
    assert inbound_message_receive(raw=b"Subject: x\r\n\r\n" + b"a" * 20_000, envelope_to=None, source="test") is None
    assert not InboundMessage.objects.exists()


@pytest.mark.django_db
@pytest.mark.parametrize(("authserv_id", "status"), [("mx.splendor.test", "applied"), ("mx.evil.example", "challenged")])
def test_the_imap_poll_believes_only_the_results_of_its_own_authserv_id(
    authserv_id: str, status: str, clock: Any, commit: Any, alice: Any
) -> None:
    from tests.notifications.inbound.mail_helpers import reply_bytes

    raw = reply_bytes(None, sender=alice.email, body="vacation 2", to="new@reply.splendor.test", authenticated=False,
                      headers=(f"Authentication-Results: {authserv_id}; dmarc=pass header.from=example.com",))  # fmt: skip
    with commit():
        imap_poll(client=FakeImap({b"1": raw}))  # type: ignore[arg-type]
    assert InboundMessage.objects.get().status == status


@pytest.mark.django_db
@pytest.mark.parametrize(("authserv_id", "status"), [("mx.splendor.test", "applied"), ("mx.evil.example", "challenged")])
def test_the_providers_webhook_believes_only_the_results_of_its_own_authserv_id(
    authserv_id: str, status: str, clock: Any, commit: Any, alice: Any
) -> None:
    from tests.notifications.inbound.mail_helpers import reply_bytes

    raw = reply_bytes(None, sender=alice.email, body="vacation 2", to="new@reply.splendor.test", authenticated=False,
                      headers=(f"Authentication-Results: {authserv_id}; dmarc=pass header.from=example.com",))  # fmt: skip
    event = AnymailInboundEvent(event_type="inbound", message=AnymailInboundMessage.parse_raw_mime_bytes(raw))
    with commit():
        inbound.send(sender=object, event=event, esp_name="Postmark")
    assert InboundMessage.objects.get().status == status
