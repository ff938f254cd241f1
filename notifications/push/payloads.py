"""What a push says: ``{"kind", "game_id", "version", "title", "body", "url"}``,
in the reader's language.

The words are the email's own (its kind's renderer and headline template,
notifications.email.render): the title is the game's (the email subject), the
body the headline ("Your turn in game X: Bob played <the move in words>") and,
for a turn or a reminder, the deadline in the reader's time zone. Moves are in
words as the reader's seat may see them (a blind reservation names the deck,
never the card). ``url`` is the game page's path without any token: the page
asks the browser's session who is looking. Nothing here carries a seat's link,
a token, the seed or another seat's hidden cards.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from django.template.loader import render_to_string
from django.utils.translation import gettext

from accounts.speaking import in_language_of
from notifications.email.render import base_context, game_subject, renderer_for
from notifications.models import Notification

MAX_BODY = 400


def _one_line(template: str, context: dict[str, Any]) -> str:
    return " ".join(render_to_string(template, context).split())


def _page_path(context: dict[str, Any]) -> str:
    """The path of the page a game-less notification is about (a tournament's), or the site's root."""
    page = str(context.get("tournament_url") or "")
    return urlsplit(page).path or "/"


def push_payload(notification: Notification) -> dict[str, Any]:
    """The JSON a push of this notification carries, for its recipient."""
    game = notification.game
    with in_language_of(notification.user):
        context = {**base_context(notification), **renderer_for(notification.kind)(notification).context}
        headline = _one_line(f"notifications/email/{notification.kind}_subject.txt", {**context, "reply_subject": ""})
        parts = [headline]
        if notification.kind == "chat_line":
            line = context.get("line")
            text = str(line.get("text", "")) if isinstance(line, dict) else ""
            if text:
                parts = [headline + ":", text]
        elif notification.kind in ("your_turn", "reminder") and context.get("deadline"):
            # Translators: the end of a push notification, e.g. "Play by Monday 3 March, 18:00 (Europe/Riga)."
            parts.append(gettext("Play by %(deadline)s.") % {"deadline": context["deadline"]})
        title = game_subject(game) if game is not None else headline
    body = " ".join(parts)
    if len(body) > MAX_BODY:
        body = body[: MAX_BODY - 1] + "…"
    return {
        "kind": notification.kind,
        "game_id": game.pk if game is not None else None,
        "version": game.version if game is not None else 0,
        "title": title,
        "body": body,
        "url": f"/games/{game.pk}/" if game is not None else _page_path(context),
    }
