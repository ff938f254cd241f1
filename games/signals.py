"""Signals the games app sends; other apps listen instead of being imported here."""

from django.dispatch import Signal

# Sent after the transaction that changed a game commits, with ``game_id`` and
# ``version``. The durable record of the change is its GameEvent outbox row.
game_changed = Signal()
