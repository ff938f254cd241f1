"""Reads of table talk: who may read or write which thread, the lines as each
reader may see them, who hears of a new line, and the lines a game email carries.

Who may do what (docs/chat.md, "Table talk"):

- The players' thread: read and written by the game's players (a joined seat);
  read by moderators (``games.moderate_game``), as they read games.
- The spectators' thread, public games only: read by anyone who sees the game
  (players too, unless they hid it); written by signed-in people who are not
  players of the game.
- Anyone else: a private game does not exist for them (404, as the game).
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import TYPE_CHECKING, Any, TypedDict

from django.contrib.auth import get_user_model
from django.db.models import QuerySet
from django.utils.translation import gettext

from chat import errors
from chat.models import ChatMessage, ChatPreference
from core.errors import InvalidInput
from games import errors as game_errors
from games.models import Game, GameEvent, Seat
from games.selectors import MODERATE_PERMISSION, game_get_visible

if TYPE_CHECKING:
    from django.contrib.auth.models import AnonymousUser, User

Thread = ChatMessage.Thread
THREADS = [choice.value for choice in Thread]
# Lines one read returns at most.
PAGE_SIZE = 100


class ChatLine(TypedDict):
    id: int
    thread: str
    author_id: int
    # The author's name as the games show it ("deleted player N" once erased).
    author: str
    seat: int | None
    # Empty when hidden by a moderator or erased with its author.
    text: str
    hidden: bool
    erased: bool
    created_at: str


def player_seat(game: Game, user: User | AnonymousUser | None) -> Seat | None:
    """The user's joined seat in the game (seats prefetched by game_get)."""
    if user is None or not user.is_authenticated:
        return None
    return next((s for s in game.seats.all() if s.user_id == user.pk and s.has_joined), None)


def is_moderator(user: User | AnonymousUser | None) -> bool:
    if user is None or not user.is_authenticated or not user.is_active:
        return False
    return bool(user.is_superuser or user.has_perm(MODERATE_PERMISSION))


def thread_check(thread: str) -> str:
    """The thread's name, or InvalidInput naming the two there are."""
    if thread not in THREADS:
        raise InvalidInput(
            {"thread": [gettext("%(thread)s is no thread; choose players or spectators.") % {"thread": repr(thread)}]}
        )
    return thread


def chat_game_for_reading(*, game_id: str, user: User | AnonymousUser | None, thread: str) -> Game:
    """The game, when ``user`` may read ``thread`` of it; else the refusal:
    GameNotFound (a stranger of a private game), ChatThreadNotFound (no
    spectators' thread in a private game) or NotAPlayer (the players' thread)."""
    thread_check(thread)
    game = game_get_visible(game_id=game_id, user=user)
    if thread == Thread.SPECTATORS:
        if not game.public:
            raise errors.ChatThreadNotFound()
        return game
    if player_seat(game, user) is None and not is_moderator(user):
        raise game_errors.NotAPlayer(gettext("Only the game's players read their table talk."))
    return game


def _names(user_ids: Iterable[int]) -> dict[int, str]:
    users = get_user_model().objects.filter(pk__in=set(user_ids)).select_related("player")
    return {
        user.pk: (getattr(getattr(user, "player", None), "display_name", "") or user.get_username()) for user in users
    }


def lines_of(messages: Iterable[ChatMessage]) -> list[ChatLine]:
    """Messages as lines anyone allowed to read them sees them: a hidden or erased
    message's text is never among them."""
    listed = list(messages)
    names = _names(m.author_id for m in listed)
    return [
        {
            "id": m.pk,
            "thread": m.thread,
            "author_id": m.author_id,
            "author": names.get(m.author_id, ""),
            "seat": m.seat,
            "text": "" if m.is_hidden or m.author_erased else m.text,
            "hidden": m.is_hidden,
            "erased": m.author_erased,
            "created_at": m.created_at.isoformat(),
        }
        for m in listed
    ]


def chat_lines(*, game: Game, thread: str, after: int | None = None, limit: int = PAGE_SIZE) -> list[ChatLine]:
    """The thread's lines after id ``after`` (the oldest first), or its latest ``limit``."""
    messages: QuerySet[ChatMessage] = ChatMessage.objects.filter(game=game, thread=thread)
    if after is not None:
        return lines_of(messages.filter(pk__gt=after).order_by("id")[:limit])
    return list(reversed(lines_of(messages.order_by("-id")[:limit])))


def chat_preference(*, user: User | AnonymousUser | None, game_id: str) -> ChatPreference:
    """The user's choices for the game (the defaults when none were made)."""
    if user is None or not user.is_authenticated:
        return ChatPreference(game_id=game_id)
    found = ChatPreference.objects.filter(user_id=user.pk, game_id=game_id).first()
    return found or ChatPreference(user_id=user.pk, game_id=game_id)


def messages_sent_since(*, user_id: int, since: datetime) -> list[datetime]:
    """When the user's messages (any game) were written after ``since``, oldest first."""
    return list(
        ChatMessage.objects.filter(author_id=user_id, created_at__gt=since)
        .order_by("created_at")
        .values_list("created_at", flat=True)
    )


def thread_listeners(*, game_id: str, thread: str, author_id: int | None) -> set[int]:
    """Who hears of a new line: the game's players (joined seats, not the author),
    less those who muted the game's chat and, for the spectators' thread, those who
    hid it. Spectators follow no game, so they hear of nothing."""
    players = set(
        Seat.objects.filter(game_id=game_id, index__isnull=False, user__isnull=False).values_list("user_id", flat=True)
    )
    players.discard(author_id)
    choices = ChatPreference.objects.filter(game_id=game_id, user_id__in=players)
    quiet = {c.user_id for c in choices if c.muted or (thread == Thread.SPECTATORS and c.spectators_hidden)}
    return players - quiet


def chat_event_recipients(event: GameEvent) -> set[int]:
    """Who a ``chat`` event reaches on the stream and by webhook
    (chat.extension, games.audience): ``thread_listeners`` of its line."""
    payload: dict[str, Any] = event.payload if isinstance(event.payload, dict) else {}
    author = payload.get("author_id")
    return thread_listeners(
        game_id=event.game_id,
        thread=str(payload.get("thread") or Thread.PLAYERS),
        author_id=author if isinstance(author, int) else None,
    )


def lines_for_email(*, user_id: int, game: Game, after_id: int, up_to_id: int) -> list[ChatLine]:
    """The lines between two ids a game email to ``user_id`` carries: of the players'
    thread, and the spectators' unless hidden; none when the chat is muted; never
    the reader's own; hidden and erased lines left out."""
    choice = ChatPreference.objects.filter(user_id=user_id, game=game).first()
    if choice is not None and choice.muted:
        return []
    threads = [Thread.PLAYERS]
    if game.public and not (choice is not None and choice.spectators_hidden):
        threads.append(Thread.SPECTATORS)
    messages = (
        ChatMessage.objects.filter(game=game, thread__in=threads, pk__gt=after_id, pk__lte=up_to_id)
        .exclude(author_id=user_id)
        .filter(hidden_at__isnull=True, author_erased=False)
        .order_by("id")
    )
    return lines_of(messages)


def latest_message_id(*, game: Game) -> int:
    last = ChatMessage.objects.filter(game=game).order_by("-id").values_list("id", flat=True).first()
    return int(last or 0)


def exported_threads(game: Game, user: User | AnonymousUser | None) -> list[str]:
    """The threads of a finished game's table talk that ``user`` gets in its export:
    the players' thread as ``GET .../chat/`` gives it (its players and moderators),
    and a public game's spectators' thread."""
    threads: list[str] = []
    if player_seat(game, user) is not None or is_moderator(user):
        threads.append(Thread.PLAYERS)
    if game.public:
        threads.append(Thread.SPECTATORS)
    return threads


def chat_export(*, game: Game, user: User | AnonymousUser | None) -> list[ChatLine] | None:
    """The threads ``user`` may read (``exported_threads``), oldest first, once the
    game is over; None before (table talk is the players' own while they play)."""
    if not game.is_over:
        return None
    threads = exported_threads(game, user)
    return lines_of(ChatMessage.objects.filter(game=game, thread__in=threads).order_by("id"))


def game_export_chat(*, game: Game, user: User | AnonymousUser | None) -> dict[str, list[ChatLine] | None]:
    """The ``chat`` part of the game's export (chat.extension)."""
    return {"chat": chat_export(game=game, user=user)}
