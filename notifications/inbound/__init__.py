"""Reading a player's email: raw RFC 822 bytes in, what to do out.

Pure: the standard library, ``mailparser_reply`` and the engine's notation
(its move verbs) only, no Django, no database. ``inbound_parse`` gives an :class:`InboundEmail` (who sent it, the
reply tokens it carries, why it must be dropped if it must, and the command
read from the text the sender wrote, never from quoted history).
"""

from notifications.inbound.commands import Command, CommandKind, command_from_text
from notifications.inbound.message import InboundEmail, inbound_parse
from notifications.inbound.text import new_text

__all__ = ["Command", "CommandKind", "InboundEmail", "command_from_text", "inbound_parse", "new_text"]
