"""Table talk by email: ``say`` (``di``, ``saki``) in a reply to a game email posts
the rest of the line, and the lines after it up to the quoted email or the
signature, in the players' thread of the game the reply address names; the answer
says what was posted (kind ``chat_said``, chat.emails)."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext

from chat.services import chat_message_post
from games.models import Game, Seat
from notifications.inbound import CommandKind, InboundEmail
from notifications.inbound.actions import command_handler_register
from notifications.inbound.replies import InboundRefusal, inbound_message_finish, reply_send
from notifications.models import InboundMessage


def say(inbound: InboundMessage, parsed: InboundEmail, user: Any, seat: Seat | None) -> str:
    if seat is None:
        raise InboundRefusal(gettext("Reply to the game's email: its reply address names your seat."))
    if not parsed.command.argument.strip():
        raise InboundRefusal(gettext('Write your message after the word, e.g. "say Good luck!".'))
    message = chat_message_post(game_id=seat.game_id, user=user, text=parsed.command.argument)
    # The message's record keeps the word "say", not the line (notifications.inbound
    # records it so): the line lives in the chat, where hiding it and erasing its
    # author reach it.
    game = Game.objects.get(pk=seat.game_id)
    reply_send(inbound, "chat_said", user, game, done="say", said=message.text)
    return inbound_message_finish(inbound, InboundMessage.Status.APPLIED, f"chat message {message.pk}")


command_handler_register(CommandKind.SAY, say)
