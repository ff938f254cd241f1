"""Text taken back from the accounts' streams: the copies of a ``chat`` event
(``StreamEvent.data``) of a line a moderator hid, or whose author's account was
erased, are blanked as the event is (games.services.game_events_redact).

A service of this app's own table: the chat app asks for it (chat.services), in
the transaction that hides the line or erases the account.
"""

from __future__ import annotations

from collections.abc import Collection

from games.models import GameEvent
from games.services import Redaction
from streams.models import StreamEvent


def stream_events_redact(*, message_ids: Collection[int], mark: Redaction) -> int:
    """Blank the text of the stream rows that copy these lines' ``chat`` events,
    marking each ``hidden`` or ``erased``; the other keys stay. Returns how many
    rows were rewritten."""
    if not message_ids:
        return 0
    redacted = 0
    for row in StreamEvent.objects.filter(kind=GameEvent.Kind.CHAT, data__message_id__in=list(message_ids)):
        row.data = {**row.data, "text": "", mark: True}
        row.save(update_fields=["data"])
        redacted += 1
    return redacted
