"""``manage.py smtpd --host H --port P``: the built-in SMTP receiver for play by email.

It accepts mail only for addresses in EMAIL_REPLY_DOMAIN (550 for any other
recipient, so it is never an open relay), refuses messages over
INBOUND_MAX_MESSAGE_BYTES (552), checks who sent each message, stores it and
answers 250: the command is carried out by a worker (``process_inbound``), so
the SMTP session never waits for a game. Put it behind your MX, or forward the
reply domain's mail to it.

Who sent it: from a client in INBOUND_TRUSTED_RELAYS, the relay's
Authentication-Results (INBOUND_AUTHSERV_ID) are believed; from any other
client the receiver checks DKIM, SPF and their DMARC alignment itself
(notifications.inbound.authentication), during the session, as a mail server
with a DKIM/DMARC filter does.

aiosmtpd's own logger ("mail.log") writes every sender and recipient, reply
tokens among them, at INFO: it is kept to warnings, with addresses redacted.
How a session ended is logged here instead: a session that ends with QUIT, or
that never said HELO (a port probe, the controller's own check that it
listens), at DEBUG; one whose client went away in the middle, at INFO. A normal
run logs no warning.
"""

from __future__ import annotations

import asyncio
import logging
import re
import signal
import threading
from typing import Any

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import SMTP, Envelope, Session
from django.conf import settings
from django.core.management.base import BaseCommand, CommandParser
from django.db import close_old_connections, transaction

from notifications.addresses import address_redacted
from notifications.inbound.authentication import Resolver
from notifications.inbound.receive import SmtpPeer, inbound_message_receive

logger = logging.getLogger(__name__)

_ADDRESS = re.compile(r"[^\s<>()'\",:;\[\]]+@[^\s<>()'\",;\[\]]+")


class LibraryLogFilter(logging.Filter):
    """Keeps aiosmtpd's "mail.log" to warnings and errors, with every address
    in them redacted: its INFO and DEBUG lines name each sender and recipient
    (a reply address is a seat's token) and echo the session's lines."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno < logging.WARNING:
            return False
        try:
            text = record.getMessage()
        except Exception:
            text = str(record.msg)
        record.msg = _ADDRESS.sub(lambda match: address_redacted(match.group(0)), text)
        record.args = None
        return True


def library_log_quiet() -> None:
    """Install LibraryLogFilter on aiosmtpd's logger, once."""
    library = logging.getLogger("mail.log")
    if not any(isinstance(existing, LibraryLogFilter) for existing in library.filters):
        library.addFilter(LibraryLogFilter())


def _in_domain(address: str, domain: str) -> bool:
    return address.strip().strip("<>").rpartition("@")[2].lower() == domain.lower()


def _peer_address(session: Session) -> str:
    return str(session.peer[0] if isinstance(session.peer, tuple) and session.peer else session.peer or "")


class ReceiverSMTP(SMTP):
    """aiosmtpd's SMTP session, whose end is logged by the receiver, not by the
    library: its "connection lost" follows every session, a QUIT included."""

    said_quit = False  # set by InboundHandler.handle_QUIT

    def connection_lost(self, error: Exception | None) -> None:
        super().connection_lost(error)
        session = self.session
        if session is None:
            return
        if self.said_quit or (error is None and not session.host_name):
            logger.debug("smtpd session from %s ended", _peer_address(session))
        else:
            logger.info("smtpd connection from %s lost before QUIT%s", _peer_address(session),
                        f" ({type(error).__name__})" if error is not None else "")  # fmt: skip


class ReceiverController(Controller):
    """aiosmtpd's controller, serving ReceiverSMTP sessions."""

    def factory(self) -> SMTP:
        return ReceiverSMTP(self.handler, **self.SMTP_kwargs)


class InboundHandler:
    """aiosmtpd's handler: checks each recipient, stores each message."""

    def __init__(self, domain: str, *, resolver: Resolver | None = None) -> None:
        self.domain = domain
        self.resolver = resolver  # None: the machine's resolver (tests give a zone of their own)

    async def handle_RCPT(
        self, server: SMTP, session: Session, envelope: Envelope, address: str, rcpt_options: list[str]
    ) -> str:
        if not _in_domain(address, self.domain):
            logger.info("smtpd refused recipient %s: not in the reply domain", address_redacted(address))
            return "550 5.7.1 Relaying denied: this server takes mail for its own domain only"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_QUIT(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        if isinstance(server, ReceiverSMTP):
            server.said_quit = True
        return "221 Bye"

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        raw = envelope.original_content or b""
        if isinstance(raw, str):
            raw = raw.encode("utf-8", errors="replace")
        recipients = [str(r) for r in envelope.rcpt_tos]
        peer = SmtpPeer(client_ip=_peer_address(session), helo=str(session.host_name or ""),
                        mail_from=str(envelope.mail_from or ""))  # fmt: skip
        loop = asyncio.get_running_loop()
        try:
            await loop.run_in_executor(None, store, raw, recipients, peer, self.resolver)
        except Exception:
            logger.exception("smtpd could not store a message")
            return "451 4.3.0 Temporary failure; try again later"
        return "250 Message accepted"


def store(raw: bytes, recipients: list[str], peer: SmtpPeer | None = None, resolver: Resolver | None = None) -> None:
    close_old_connections()
    try:
        with transaction.atomic():
            inbound_message_receive(raw=raw, envelope_to=recipients, source="smtp", peer=peer, resolver=resolver)
    finally:
        close_old_connections()


def receiver_start(*, host: str, port: int, resolver: Resolver | None = None) -> Controller:
    """The receiver, listening (a thread of aiosmtpd's), with its library's log kept quiet."""
    library_log_quiet()
    controller = ReceiverController(
        InboundHandler(str(settings.EMAIL_REPLY_DOMAIN or ""), resolver=resolver),
        hostname=host,
        port=port,
        data_size_limit=settings.INBOUND_MAX_MESSAGE_BYTES,
        server_hostname=str(settings.EMAIL_REPLY_DOMAIN or ""),
        ready_timeout=10,
    )
    controller.start()
    return controller


class Command(BaseCommand):
    help = "Receive play-by-email replies over SMTP (only for EMAIL_REPLY_DOMAIN)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
        parser.add_argument("--port", type=int, default=8025, help="port to listen on (default 8025)")

    def handle(self, *args: Any, **options: Any) -> None:
        domain = str(settings.EMAIL_REPLY_DOMAIN or "")
        controller = receiver_start(host=options["host"], port=options["port"])
        stopped = threading.Event()

        def stop(signum: int, frame: Any) -> None:
            stopped.set()

        signal.signal(signal.SIGINT, stop)
        signal.signal(signal.SIGTERM, stop)
        # Logged, not printed: with LOG_FORMAT=json every line the process writes is JSON.
        logger.info("smtpd listening on %s:%s for @%s", options["host"], options["port"], domain)
        try:
            stopped.wait()
        finally:
            controller.stop()
            logger.info("smtpd stopped")
