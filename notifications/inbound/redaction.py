"""What an erased account said by email for the table talk (``say``) goes with it.

The answer to a say keeps the line until it is sent (``reply["said"]``, chat.emails),
and a say from a sender not yet proven keeps it until confirmed (the message's
``reply["details"]["argument"]`` and its ``PendingConfirmation``): neither outlives
the account. A service of this app's own tables: the chat app asks for it
(chat.services.chat_forget_account), in the erasing transaction.
"""

from __future__ import annotations

from notifications.models import InboundMessage, PendingConfirmation


def inbound_says_forget_account(*, user_id: int) -> None:
    """Blank the lines in the account's answered and unconfirmed says by email,
    and delete its codes that would post one."""
    for inbound in InboundMessage.objects.filter(user_id=user_id, reply__done="say"):
        inbound.reply = {**inbound.reply, "said": ""}
        inbound.save(update_fields=["reply"])
    for inbound in InboundMessage.objects.filter(user_id=user_id, reply__details__kind="say"):
        inbound.reply = {**inbound.reply, "details": {**inbound.reply["details"], "argument": ""}}
        inbound.save(update_fields=["reply"])
    PendingConfirmation.objects.filter(user_id=user_id, details__kind="say").delete()
