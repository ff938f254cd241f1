"""Text taken back from the outbox: a line of table talk a moderator hid, or
whose author's account was erased, leaves its ``chat`` events blank.

The ``chat`` event is this app's (docs/events.md): its ``text`` is blanked and
``hidden: true`` or ``erased: true`` added. The chat app asks for it here
(chat.services), in the transaction that hides the line or erases the account,
so no other app writes ``GameEvent`` rows.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Literal

from games.models import GameEvent

# Why a line's text is gone, as the mark its copies carry: a moderator hid it, or
# its author's account was erased.
Redaction = Literal["hidden", "erased"]


def game_events_redact(*, message_ids: Collection[int], mark: Redaction) -> int:
    """Blank the text of the ``chat`` events of these lines (by ``message_id``),
    marking each ``hidden`` or ``erased``; the other payload keys stay. Returns
    how many events were rewritten."""
    if not message_ids:
        return 0
    redacted = 0
    for event in GameEvent.objects.filter(kind=GameEvent.Kind.CHAT, payload__message_id__in=list(message_ids)):
        event.payload = {**event.payload, "text": "", mark: True}
        event.save(update_fields=["payload"])
        redacted += 1
    return redacted
