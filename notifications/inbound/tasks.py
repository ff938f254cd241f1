"""Celery tasks of play by email: thin adapters over notifications.inbound.services
and notifications.inbound.receive.

- ``process_inbound``: reads and carries out one stored message (queued on commit
  by ``inbound_message_receive``).
- ``process_pending`` (beat): processes stored messages whose task was lost.
- ``poll_imap`` (beat, only when INBOUND_IMAP_HOST is set): fetches the unseen
  messages of an IMAP mailbox over SSL, stores each, and marks it seen.

Their names are the ones they had before notifications was grouped by channel
(``notifications.inbound_tasks.*``): the beat schedule and queued messages name them.
"""

from __future__ import annotations

import imaplib
import logging

from celery import shared_task
from django.conf import settings
from django.db import transaction

from notifications.inbound.receive import inbound_message_receive
from notifications.inbound.services import inbound_message_process, inbound_messages_process_pending

logger = logging.getLogger(__name__)


@shared_task(name="notifications.inbound_tasks.process_inbound", acks_late=True, ignore_result=True)
def process_inbound(inbound_id: int) -> str:
    return inbound_message_process(inbound_id=inbound_id)


@shared_task(name="notifications.inbound_tasks.process_pending", ignore_result=True)
def process_pending() -> int:
    return inbound_messages_process_pending()


def imap_poll(*, client: imaplib.IMAP4 | None = None, limit: int = 50) -> int:
    """Store the mailbox's unseen messages (at most ``limit``) and mark them seen.
    A message is marked seen only once it is stored, so a crash re-reads it
    (and the unique Message-ID row makes the re-read harmless). A message that
    cannot be read is stored all the same, as unreadable (``inbound_message_receive``
    never fails on a message's content), so it never holds up the ones behind it;
    only a database that takes nothing stops the poll. Returns how many were fetched."""
    host: str = settings.INBOUND_IMAP_HOST
    if not host and client is None:
        return 0
    imap = client or imaplib.IMAP4_SSL(host, settings.INBOUND_IMAP_PORT, timeout=30)
    fetched = 0
    try:
        if client is None:
            imap.login(settings.INBOUND_IMAP_USER, settings.INBOUND_IMAP_PASSWORD)
        imap.select(settings.INBOUND_IMAP_FOLDER)
        status, data = imap.uid("SEARCH", None, "UNSEEN")  # type: ignore[arg-type]
        if status != "OK" or not data or not data[0]:
            return 0
        for uid in data[0].split()[:limit]:
            status, parts = imap.uid("FETCH", uid.decode(), "(BODY.PEEK[])")
            raw = next((part[1] for part in parts if isinstance(part, tuple) and len(part) > 1), None)
            if status != "OK" or not isinstance(raw, bytes):
                continue
            with transaction.atomic():
                inbound_message_receive(raw=raw, envelope_to=None, source="imap")
            imap.uid("STORE", uid.decode(), "+FLAGS", "(\\Seen)")
            fetched += 1
    finally:
        if client is None:
            try:
                imap.logout()
            except (imaplib.IMAP4.error, OSError):
                pass
    logger.info("IMAP poll fetched %s message(s)", fetched)
    return fetched


@shared_task(name="notifications.inbound_tasks.poll_imap", ignore_result=True)
def poll_imap() -> int:
    return imap_poll()
