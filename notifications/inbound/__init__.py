"""Play by email: replies to game email, read and carried out.

The reader, pure (the standard library, ``mailparser_reply`` and the engine's
notation only; no Django, no database): raw RFC 822 bytes in, what to do out.
``inbound_parse`` gives an :class:`InboundEmail` (who sent it, the reply tokens
it carries, why it must be dropped if it must, and the command read from the
text the sender wrote, never from quoted history).

- ``message``: one email read (headers, parts, who sent it, why to drop it).
- ``text``: the sender's own words (quotes, signatures and hidden HTML left out).
- ``commands``: the commands a player may write, read from those words.
- ``authentication``: whether the From: domain is authenticated (DKIM, SPF, DMARC).

The rest works with Django, in the order a message travels:

- ``receive``: every way in stores the message once and queues its processing.
- ``provider_webhook``: the email provider's inbound webhook (anymail) as a way in.
- ``services``: a stored message read; whether its sender may act; challenges
  and ``confirm <code>``.
- ``actions``: what each command does (a move, the board, resign, a new game, ...).
- ``confirmations``: the codes mailed to confirm a command.
- ``replies``: the answers, their limits, and how a message's processing ends.
- ``reply_emails``: what those answers show (their renderers).
- ``reply_tokens``: the per-seat token in a game email's reply address.
- ``tasks``: the Celery tasks (process one, the ones left pending, the IMAP poll).
"""

from notifications.inbound.commands import Command, CommandKind, command_from_text
from notifications.inbound.message import InboundEmail, inbound_parse
from notifications.inbound.text import new_text

__all__ = ["Command", "CommandKind", "InboundEmail", "command_from_text", "inbound_parse", "new_text"]
