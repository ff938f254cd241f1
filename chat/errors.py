"""What the table-talk services refuse, as domain errors (codes are a contract
with clients: docs/chat.md, "Table talk")."""

from __future__ import annotations

from django.utils.translation import gettext, gettext_noop

from core.errors import DomainError, ErrorKind


class ChatNotAllowed(DomainError):
    """Known, but may not write in this thread (a player in the spectators' thread,
    a practice game, a suspended account)."""

    kind = ErrorKind.FORBIDDEN
    code = "chat_not_allowed"
    title = gettext_noop("You cannot write in this chat")


class ChatThreadNotFound(DomainError):
    """A private game has no spectators' thread."""

    kind = ErrorKind.NOT_FOUND
    code = "chat_thread_not_found"
    title = gettext_noop("This game has no such chat thread")
    default_message = gettext_noop("Only a public game has a spectators' thread.")


class ChatMessageNotFound(DomainError):
    kind = ErrorKind.NOT_FOUND
    code = "chat_message_not_found"
    title = gettext_noop("Chat message not found")

    @classmethod
    def for_id(cls, message_id: object) -> ChatMessageNotFound:
        return cls(gettext("There is no chat message %(id)s in this game.") % {"id": repr(message_id)})


class TooManyChatMessages(DomainError):
    """With Retry-After: the seconds until the last minute holds room for one more."""

    kind = ErrorKind.TOO_MANY
    code = "too_many_chat_messages"
    title = gettext_noop("You have written as many chat messages as you may in a minute")


class ChatNotOver(DomainError):
    """The export of table talk waits for the game's end."""

    kind = ErrorKind.CONFLICT
    code = "chat_export_not_ready"
    title = gettext_noop("The game is not over")
    default_message = gettext_noop("A game's table talk is exported once the game is over.")
