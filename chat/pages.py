"""Table talk on the game page: the panel beside the board (chat.extension)
and ``POST /games/<id>/chat/``, where its forms post (they work without
JavaScript: each answers with a redirect back to the game page).

The page's reader is the seat's player (a seat link or their account), or a
spectator: a signed-in account, or nobody, of a public game. A line that cannot be
posted comes back in the panel with the refusal, the text kept in the box."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth.views import redirect_to_login
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.urls import reverse
from django.utils.translation import gettext
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_POST

from chat import errors, selectors, services
from chat.models import MAX_MESSAGE_LENGTH, ChatMessage
from core.errors import DomainError
from games.audience import game_has_table_talk
from games.extensions import PageViewer, Panel
from games.pages.session import LoginNeeded, page_viewer

Thread = ChatMessage.Thread
# The session key of what the last post left to show: a refusal and the text as typed.
_NOTICE = "chat_notice"


def _reader(request: HttpRequest, viewer: PageViewer) -> Any:
    """Who reads the page: the seat's player, else the signed-in account, else None."""
    if viewer.seat is not None and viewer.seat.has_joined:
        return viewer.seat.user
    user = getattr(request, "user", None)
    return user if user is not None and user.is_authenticated else None


def game_page_panel(request: HttpRequest, viewer: PageViewer) -> Panel | None:
    """The chat panel: the players' thread for a player, a public game's spectators'
    thread (unless a player hid it), the form to write, the mute and hide toggles
    and a report button per line. Practice games have none."""
    game = viewer.game
    if not game_has_table_talk(game):
        return None
    reader = _reader(request, viewer)
    playing = viewer.seat is not None and viewer.seat.has_joined
    choice = selectors.chat_preference(user=reader, game_id=game.pk)
    notice = request.session.pop(_NOTICE, None) if hasattr(request, "session") else None
    notice = notice if isinstance(notice, dict) and notice.get("game_id") == game.pk else {}
    show_spectators = game.public and not (playing and choice.spectators_hidden)
    threads = []
    if not choice.muted:
        if playing:
            threads.append(
                {
                    "name": Thread.PLAYERS.value,
                    "title": gettext("Players"),
                    "lines": selectors.chat_lines(game=game, thread=Thread.PLAYERS),
                    "can_write": True,
                }
            )
        if show_spectators:
            threads.append(
                {
                    "name": Thread.SPECTATORS.value,
                    "title": gettext("Spectators"),
                    "lines": selectors.chat_lines(game=game, thread=Thread.SPECTATORS),
                    "can_write": reader is not None and not playing,
                }
            )
    if not threads and not playing:
        return None
    return {
        "template": "chat/_panel.html",
        "context": {
            "action_url": reverse("game-chat-page", kwargs={"game_id": game.pk}),
            "threads": threads,
            "playing": playing,
            "signed_in": reader is not None,
            "muted": choice.muted,
            "public": game.public,
            "spectators_hidden": choice.spectators_hidden,
            "max_length": MAX_MESSAGE_LENGTH,
            "error": str(notice.get("error") or ""),
            "error_thread": str(notice.get("thread") or ""),
            "typed": str(notice.get("text") or ""),
            "done": str(notice.get("done") or ""),
        },
    }


def _back(game_id: str) -> HttpResponse:
    return HttpResponseRedirect(reverse("game-page", kwargs={"game_id": game_id}) + "#chat")


@never_cache
@require_POST
def game_chat_page(request: HttpRequest, game_id: str) -> HttpResponse:
    """``POST /games/<id>/chat/``: ``action`` is ``say`` (``thread``, ``text``), ``mute``,
    ``unmute``, ``hide_spectators``, ``show_spectators`` or ``report`` (``message_id``)."""
    try:
        viewer = page_viewer(request, game_id)
    except LoginNeeded:
        if not request.user.is_authenticated:
            return redirect_to_login(reverse("game-page", kwargs={"game_id": game_id}), settings.LOGIN_URL)
        raise Http404 from None
    except DomainError:
        raise Http404 from None
    reader = _reader(request, viewer)
    action = request.POST.get("action", "")
    thread = request.POST.get("thread", Thread.PLAYERS.value)
    text = request.POST.get("text", "")
    notice: dict[str, Any] = {"game_id": viewer.game.pk}
    try:
        if reader is None:
            raise errors.ChatNotAllowed(gettext("Log in to write in the spectators' thread."))
        if action == "say":
            services.chat_message_post(game_id=viewer.game.pk, user=reader, text=text, thread=thread)
        elif action in ("mute", "unmute"):
            services.chat_preferences_set(game_id=viewer.game.pk, user=reader, muted=action == "mute")
        elif action in ("hide_spectators", "show_spectators"):
            services.chat_preferences_set(
                game_id=viewer.game.pk, user=reader, spectators_hidden=action == "hide_spectators"
            )
        elif action == "report":
            message_id = request.POST.get("message_id", "")
            if not message_id.isdigit():
                raise errors.ChatMessageNotFound.for_id(message_id)
            services.chat_message_report(game_id=viewer.game.pk, message_id=int(message_id), user=reader)
            notice["done"] = gettext("Reported to the moderators. Thank you.")
        else:
            notice["error"] = gettext("That form sent no action this page knows.")
    except DomainError as error:
        notice.update({"error": error.message, "thread": thread, "text": text[: MAX_MESSAGE_LENGTH * 2]})
    request.session[_NOTICE] = notice
    return _back(viewer.game.pk)
