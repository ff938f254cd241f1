"""``manage.py smtpd --host H --port P``: the built-in SMTP receiver for play by email.

It accepts mail only for addresses in EMAIL_REPLY_DOMAIN (550 for any other
recipient, so it is never an open relay), refuses messages over
INBOUND_MAX_MESSAGE_BYTES (552), stores each message and answers 250 at once:
the command is carried out by a worker (``process_inbound``), so the SMTP
session never waits for a game. Put it behind your MX, or forward the reply
domain's mail to it.
"""

from __future__ import annotations

import asyncio
import logging
import signal
import threading
from typing import Any

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import SMTP, Envelope, Session
from django.conf import settings
from django.core.management.base import BaseCommand, CommandParser
from django.db import close_old_connections, transaction

from notifications.addresses import address_redacted
from notifications.inbound_services import inbound_message_receive

logger = logging.getLogger(__name__)


def _in_domain(address: str, domain: str) -> bool:
    return address.strip().strip("<>").rpartition("@")[2].lower() == domain.lower()


class InboundHandler:
    """aiosmtpd's handler: checks each recipient, stores each message."""

    def __init__(self, domain: str) -> None:
        self.domain = domain

    async def handle_RCPT(
        self, server: SMTP, session: Session, envelope: Envelope, address: str, rcpt_options: list[str]
    ) -> str:
        if not _in_domain(address, self.domain):
            logger.info("smtpd refused recipient %s: not in the reply domain", address_redacted(address))
            return "550 5.7.1 Relaying denied: this server takes mail for its own domain only"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        raw = envelope.original_content or b""
        if isinstance(raw, str):
            raw = raw.encode("utf-8", errors="replace")
        recipients = [str(r) for r in envelope.rcpt_tos]
        loop = asyncio.get_running_loop()
        try:
            await loop.run_in_executor(None, store, raw, recipients)
        except Exception:
            logger.exception("smtpd could not store a message")
            return "451 4.3.0 Temporary failure; try again later"
        return "250 Message accepted"


def store(raw: bytes, recipients: list[str]) -> None:
    close_old_connections()
    try:
        with transaction.atomic():
            inbound_message_receive(raw=raw, envelope_to=recipients, source="smtp")
    finally:
        close_old_connections()


class Command(BaseCommand):
    help = "Receive play-by-email replies over SMTP (only for EMAIL_REPLY_DOMAIN)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
        parser.add_argument("--port", type=int, default=8025, help="port to listen on (default 8025)")

    def handle(self, *args: Any, **options: Any) -> None:
        domain = str(settings.EMAIL_REPLY_DOMAIN or "")
        limit: int = settings.INBOUND_MAX_MESSAGE_BYTES
        controller = Controller(
            InboundHandler(domain),
            hostname=options["host"],
            port=options["port"],
            data_size_limit=limit,
            server_hostname=domain,
            ready_timeout=10,
        )
        controller.start()
        stopped = threading.Event()

        def stop(signum: int, frame: Any) -> None:
            stopped.set()

        signal.signal(signal.SIGINT, stop)
        signal.signal(signal.SIGTERM, stop)
        self.stdout.write(f"smtpd listening on {options['host']}:{options['port']} for @{domain}", ending="\n")
        self.stdout.flush()
        try:
            stopped.wait()
        finally:
            controller.stop()
            self.stdout.write("smtpd stopped")
