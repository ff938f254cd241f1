"""Table talk in email: the lines a player's game email has not yet carried, shown
above the footer of the next one and counted as carried once it is sent
(``email_section_register``, ``chat.models.ChatEmailMark``); the email
for each line, for a player who asked for one (kind ``chat_line``); and the
answer to a ``say`` by email (kind ``chat_said``).

Plain text only: the text part shows the lines as written; the HTML part escapes
them and breaks what mail programs turn into links (``://``, ``www.``, ``@``) with
a zero-width joiner, so that no line becomes a clickable link.
"""

from __future__ import annotations

from django.template.loader import render_to_string
from django.utils.safestring import SafeString, mark_safe
from django.utils.html import escape

from chat import selectors, services
from chat.models import ChatMessage
from chat.selectors import ChatLine
from games.audience import game_has_table_talk
from notifications.email.render import (
    EmailSection,
    KindContext,
    email_section_register,
    game_url,
    renderer,
    renderer_for,
    seat_of,
)
from notifications.models import Notification

# The most lines one game email shows; the page has the rest.
MAX_EMAILED_LINES = 20
# Kinds that show a line of their own rather than the lines since the last email.
OWN_LINE_KINDS = frozenset({"chat_line", "chat_said"})
_ZWJ = "\u200d"


def unlinked_html(text: str) -> SafeString:
    """``text`` escaped for HTML, with what mail programs make links of broken by
    an invisible joiner; line ends kept as ``<br>``."""
    escaped: str = escape(text)
    for found, broken in (("://", ":" + _ZWJ + "//"), ("www.", "www" + _ZWJ + "."), ("@", "@" + _ZWJ)):
        escaped = escaped.replace(found, broken)
    return mark_safe(escaped.replace("\n", "<br>"))  # noqa: S308 (escaped above)


def _shown(lines: list[ChatLine]) -> list[dict[str, object]]:
    return [{**line, "html": unlinked_html(line["text"])} for line in lines]


def chat_section(notification: Notification) -> EmailSection | None:
    """The lines the player's game email has not yet carried (not their own, not
    of a muted chat, not of a hidden spectators' thread; ``chat_email_lines_take``),
    or None."""
    game = notification.game
    if game is None or not game_has_table_talk(game) or notification.kind in OWN_LINE_KINDS:
        return None
    if not any(seat.user_id == notification.user_id and seat.has_joined for seat in game.seats.all()):
        return None
    choice = selectors.chat_preference(user=notification.user, game_id=game.pk)
    if choice.email_each_line:
        # Each line had an email of its own: none is owed should they turn it off.
        services.chat_email_lines_pass(user_id=notification.user_id, game=game)
        return None
    lines = services.chat_email_lines_take(notification_id=notification.pk, user_id=notification.user_id, game=game)
    if not lines:
        return None
    shown = _shown(lines[-MAX_EMAILED_LINES:])
    context = {"lines": shown, "earlier": len(lines) - len(shown), "game_url": game_url(game, seat_of(game, notification.user_id))}
    return EmailSection(
        text=render_to_string("chat/email/_lines.txt", context).strip(),
        html=mark_safe(render_to_string("chat/email/_lines.html", context)),  # noqa: S308 (a template's output)
    )


def _line_of(notification: Notification) -> ChatLine | None:
    event = notification.event
    payload = event.payload if event is not None and isinstance(event.payload, dict) else {}
    message_id = payload.get("message_id")
    message = ChatMessage.objects.filter(pk=message_id).first() if isinstance(message_id, int) else None
    if message is None:
        return None
    return selectors.lines_of([message])[0]


@renderer("chat_line")
def render_chat_line(notification: Notification) -> KindContext:
    """One new line, for a player who asked for an email for each."""
    game = notification.game
    if game is None:
        raise ValueError("a chat_line notification needs a game")
    seat = seat_of(game, notification.user_id)
    line = _line_of(notification)
    return KindContext(
        {"line": _shown([line])[0] if line is not None else None, "game_url": game_url(game, seat)}, seat=seat
    )


@renderer("chat_said")
def render_chat_said(notification: Notification) -> KindContext:
    """The answer to ``say`` by email: the reply's own threading (as reply_done's),
    and the line as it was posted."""
    answer = renderer_for("reply_done")(notification)
    said = str(answer.context.get("reply", {}).get("said", ""))
    return KindContext(
        {**answer.context, "said": said, "said_html": unlinked_html(said)},
        seat=answer.seat,
        reply_to=answer.reply_to,
        headers=answer.headers,
        to=answer.to,
    )


def chat_section_sent(notification: Notification) -> None:
    """The email is sent: the reader's mark moves past the lines it carried."""
    if notification.game_id is not None and notification.kind not in OWN_LINE_KINDS:
        services.chat_email_lines_sent(
            notification_id=notification.pk, user_id=notification.user_id, game_id=notification.game_id
        )


email_section_register(chat_section, sent=chat_section_sent)
