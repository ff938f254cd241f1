"""Writes of table talk: posting a line, a person's choices about a game's chat,
reports, a moderator hiding a line, and what an erased author leaves behind.

A line is posted inside ``games.services.game_change``: the game row is locked,
the message row and its ``chat`` outbox event (``GameWrites.note``: the game's
version does not move, so a move chosen on it is still accepted) are written in
one transaction, and the consumers (stream, webhooks, email) hear of it as of any
event. The event names people by user id; its ``text`` is blanked wherever it was
copied (the outbox row, the accounts' stream rows) when a moderator hides the line
or its author's account is erased, each by the app that owns the rows
(``games.services.game_events_redact``, ``streams.redaction``,
``notifications.inbound.redaction``): this app writes only its own tables.
"""

from __future__ import annotations

import math
import unicodedata
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.db import transaction
from django.db.models import F
from django.utils import timezone
from django.utils.translation import gettext, ngettext

from chat import errors, selectors
from chat.models import (
    MAX_MESSAGE_LENGTH,
    MAX_REPORT_REASON_LENGTH,
    ChatEmailMark,
    ChatMessage,
    ChatPreference,
    ChatReport,
)
from core.errors import InvalidInput
from games import errors as game_errors
from games.audience import game_has_table_talk
from games.models import Game, GameEvent, ModerationEntry
from games.moderation import moderation_entry_record
from games.selectors import game_get_visible
from games.services import Redaction, game_change, game_events_redact
from notifications.email.services import notify
from notifications.inbound.redaction import inbound_says_forget_account
from notifications.models import Notification
from streams.redaction import stream_events_redact

if TYPE_CHECKING:
    from django.contrib.auth.models import User

Thread = ChatMessage.Thread


def text_clean(text: str, *, field: str = "text", most: int = MAX_MESSAGE_LENGTH) -> str:
    """The text as stored: line ends made ``\\n``, every other control character
    (and the invisible format characters that reorder text) removed, the ends
    trimmed; refused when empty or longer than ``most`` characters."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    kept = "".join(
        ch for ch in text if ch in "\n\t" or unicodedata.category(ch) not in ("Cc", "Cf", "Cs", "Co")
    ).replace("\t", " ")
    kept = "\n".join(line.rstrip() for line in kept.split("\n")).strip()
    if not kept:
        raise InvalidInput({field: [gettext("Write something: the message is empty.")]})
    if len(kept) > most:
        raise InvalidInput(
            {
                field: [
                    gettext("Keep a message to %(most)s characters; this one has %(length)s.")
                    % {"most": most, "length": len(kept)}
                ]
            }
        )
    return kept


def _rate_check(user_id: int, now: datetime) -> None:
    """At most CHAT_MESSAGES_PER_MINUTE lines a minute per person, all games together."""
    limit: int = settings.CHAT_MESSAGES_PER_MINUTE
    sent = selectors.messages_sent_since(user_id=user_id, since=now - timedelta(minutes=1))
    if len(sent) < limit:
        return
    free_at = sent[len(sent) - limit] + timedelta(minutes=1)
    wait = max(1, math.ceil((free_at - now).total_seconds()))
    raise errors.TooManyChatMessages(
        ngettext(
            "You can write %(limit)s chat message a minute; write again in %(wait)s seconds.",
            "You can write %(limit)s chat messages a minute; write again in %(wait)s seconds.",
            limit,
        )
        % {"limit": limit, "wait": wait},
        retry_after=wait,
        limit=limit,
    )


def _may_write(game: Game, user: User, thread: str) -> int | None:
    """The writer's seat index (None for a spectator), or the refusal."""
    if not game_has_table_talk(game):
        raise errors.ChatNotAllowed(gettext("Practice games and sandboxes have no table talk."))
    player = getattr(user, "player", None)
    if player is not None and player.is_suspended:
        raise game_errors.AccountSuspended(gettext("Your account is suspended: you cannot write in a game's chat."))
    seat = selectors.player_seat(game, user)
    if thread == Thread.PLAYERS:
        if seat is None:
            raise game_errors.NotAPlayer(gettext("Only the game's players write in their table talk."))
        return seat.index
    if not game.public:
        raise errors.ChatThreadNotFound()
    if seat is not None:
        raise errors.ChatNotAllowed(
            gettext("Players talk in the players' thread; the spectators' thread is for those who watch.")
        )
    return None


def chat_message_post(
    *, game_id: str, user: User, text: str, thread: str = Thread.PLAYERS, now: datetime | None = None
) -> ChatMessage:
    """Post one line in a thread of the game, as ``user``; its ``chat`` event goes
    out with it. Refusals: GameNotFound (a stranger of a private game), NotAPlayer,
    ChatThreadNotFound, ChatNotAllowed, InvalidInput (empty, too long),
    TooManyChatMessages."""
    selectors.thread_check(thread)
    cleaned = text_clean(text)
    game_get_visible(game_id=game_id, user=user)  # a private game is no one else's business
    now = now or timezone.now()
    with game_change(game_id, with_seats=True) as writes:
        game = writes.game
        seat = _may_write(game, user, thread)
        _rate_check(user.pk, now)
        message = ChatMessage.objects.create(
            game=game, thread=thread, author=user, seat=seat, text=cleaned, created_at=now
        )
        writes.note(
            GameEvent.Kind.CHAT,
            {"message_id": message.pk, "thread": thread, "author_id": user.pk, "seat": seat, "text": cleaned},
        )
    return message


def chat_preferences_set(
    *,
    game_id: str,
    user: User,
    muted: bool | None = None,
    spectators_hidden: bool | None = None,
    email_each_line: bool | None = None,
) -> ChatPreference:
    """A player's choices about the game's chat; the ones not given stay."""
    game = game_get_visible(game_id=game_id, user=user)
    if selectors.player_seat(game, user) is None:
        raise game_errors.NotAPlayer(gettext("Only the game's players choose how its table talk reaches them."))
    with transaction.atomic():
        choice, _ = ChatPreference.objects.select_for_update().get_or_create(user=user, game=game)
        for name, value in (("muted", muted), ("spectators_hidden", spectators_hidden), ("email_each_line", email_each_line)):
            if value is not None:
                setattr(choice, name, value)
        choice.save()
    return choice


def chat_message_report(*, game_id: str, message_id: int, user: User, reason: str = "") -> ChatReport:
    """Report a line to the moderators (once per line and person: a second report
    keeps the first). Only someone who may read the line may report it."""
    message = ChatMessage.objects.filter(pk=message_id, game_id=game_id).first()
    if message is None:
        game_get_visible(game_id=game_id, user=user)
        raise errors.ChatMessageNotFound.for_id(message_id)
    selectors.chat_game_for_reading(game_id=game_id, user=user, thread=message.thread)
    reason = reason.strip()
    if reason:
        reason = text_clean(reason, field="reason", most=MAX_REPORT_REASON_LENGTH)
    report, _ = ChatReport.objects.get_or_create(
        message=message, reporter=user, defaults={"reason": reason, "created_at": timezone.now()}
    )
    return report


def _copies_blank(message_ids: list[int], mark: Redaction) -> None:
    """Blank the text of these lines' ``chat`` events wherever it was copied: the
    outbox rows (what webhooks send) and the accounts' stream rows. Each app
    blanks its own rows."""
    game_events_redact(message_ids=message_ids, mark=mark)
    stream_events_redact(message_ids=message_ids, mark=mark)


def chat_message_hide(*, message_id: int, by_user: User, reason: str, now: datetime | None = None) -> bool:
    """A moderator hides a line, with a reason written to the game's moderation
    log; its text is shown to nobody after (players see "hidden by a moderator").
    Its reports are resolved. False when it was hidden already. Who may do this
    is the caller's business (the admin: ``games.moderate_game``)."""
    now = now or timezone.now()
    with transaction.atomic():
        message = ChatMessage.objects.select_for_update().get(pk=message_id)
        if message.is_hidden:
            return False
        entry = moderation_entry_record(
            by_user=by_user,
            action=ModerationEntry.Action.CHAT_MESSAGE_HIDDEN,
            reason=reason,
            game_id=message.game_id,
            target_user_id=message.author_id,
            details={"message_id": message.pk, "thread": message.thread},
            now=now,
        )
        message.hidden_at, message.hidden_by_id, message.hidden_reason = now, by_user.pk, entry.reason
        message.save(update_fields=["hidden_at", "hidden_by_id", "hidden_reason"])
        ChatReport.objects.filter(message=message, resolved_at__isnull=True).update(resolved_at=now)
        _copies_blank([message.pk], "hidden")
    return True


def chat_reports_dismiss(*, report_ids: list[int], now: datetime | None = None) -> int:
    """A moderator read the reports and leaves their lines as they are."""
    return ChatReport.objects.filter(pk__in=report_ids, resolved_at__isnull=True).update(
        resolved_at=now or timezone.now()
    )


def chat_forget_account(*, user_id: int) -> int:
    """An account is being erased (``accounts.signals.account_erased``, in the
    erasing transaction): its lines lose their text (they show as from "deleted
    player N", the erased account's name), everywhere the text was copied too
    (its events, the streams, the answers to its say by email), and its reports
    their reasons. Returns how many lines were blanked."""
    ids = list(ChatMessage.objects.filter(author_id=user_id).values_list("pk", flat=True))
    ChatMessage.objects.filter(pk__in=ids).update(text="", author_erased=True)
    _copies_blank(ids, "erased")
    ChatReport.objects.filter(reporter_id=user_id).update(reason="")
    # The answer to a say by email keeps the line until it is sent (chat.emails), and
    # a say from a sender not yet proven keeps it until confirmed: neither outlives them.
    inbound_says_forget_account(user_id=user_id)
    return len(ids)


def chat_line_emails_send(*, event: GameEvent) -> int:
    """The ``chat`` event's email for each player who asked for one per line (and
    hears of the line: not muted, not its author); a line hidden or erased since is
    not sent. Keyed per event and recipient, so handling it twice sends nothing more."""
    payload: dict[str, Any] = event.payload if isinstance(event.payload, dict) else {}
    message_id = payload.get("message_id")
    message = ChatMessage.objects.filter(pk=message_id).first() if isinstance(message_id, int) else None
    if message is None or message.is_hidden or message.author_erased:
        return 0
    listeners = selectors.thread_listeners(game_id=event.game_id, thread=message.thread, author_id=message.author_id)
    wanting = ChatPreference.objects.filter(game_id=event.game_id, user_id__in=listeners, email_each_line=True)
    sent = 0
    for user_id in sorted(wanting.values_list("user_id", flat=True)):
        if notify(
            key=f"event:{event.pk}:chat_line:{user_id}", kind="chat_line", user_id=user_id,
            game_id=event.game_id, event_id=event.pk,
        ):
            sent += 1
    return sent


# --- the lines in game email ------------------------------------------------------------


def _mark_settle(mark: ChatEmailMark) -> None:
    """Bring the mark up to date with what became of the email carrying lines: sent,
    the mark moves past them (had the worker stopped before ``chat_email_lines_sent``);
    given up, suppressed or gone, the lines are free for the next email. Should be
    called while holding a SELECT FOR UPDATE lock on the mark."""
    if mark.carrying_notification_id is None:
        return
    status = (
        Notification.objects.filter(pk=mark.carrying_notification_id).values_list("status", flat=True).first()
    )
    if status == Notification.Status.QUEUED:
        return  # still on its way (or waiting for its retry)
    if status == Notification.Status.SENT:
        mark.last_mailed_id = max(mark.last_mailed_id, mark.carrying_up_to_id)
    mark.carrying_notification_id = None
    mark.carrying_up_to_id = 0


def chat_email_lines_take(*, notification_id: int, user_id: int, game: Game) -> list[selectors.ChatLine]:
    """The lines game email ``notification_id`` carries to ``user_id``: those after
    the reader's mark (``ChatEmailMark``) up to the latest now, claimed for this
    email until it is sent or given up; the same lines again when it is rendered
    again for a retry; none while another email to them about the game is on its
    way with lines (those follow in the next). Lines the reader is never shown
    (their own, hidden, erased, of a muted chat or hidden thread) are passed over:
    an email with nothing to show moves the mark past them at once."""
    ChatEmailMark.objects.bulk_create([ChatEmailMark(user_id=user_id, game=game)], ignore_conflicts=True)
    with transaction.atomic():
        mark = ChatEmailMark.objects.select_for_update().get(user_id=user_id, game=game)
        _mark_settle(mark)
        if mark.carrying_notification_id == notification_id:
            up_to = mark.carrying_up_to_id
        elif mark.carrying_notification_id is not None:
            mark.save(update_fields=["last_mailed_id", "carrying_notification_id", "carrying_up_to_id"])
            return []
        else:
            up_to = selectors.latest_message_id(game=game)
        lines = selectors.lines_for_email(user_id=user_id, game=game, after_id=mark.last_mailed_id, up_to_id=up_to)
        if lines:
            mark.carrying_notification_id, mark.carrying_up_to_id = notification_id, up_to
        else:
            mark.last_mailed_id = max(mark.last_mailed_id, up_to)
            mark.carrying_notification_id, mark.carrying_up_to_id = None, 0
        mark.save(update_fields=["last_mailed_id", "carrying_notification_id", "carrying_up_to_id"])
    return lines


def chat_email_lines_pass(*, user_id: int, game: Game) -> None:
    """Move ``user_id``'s mark past every line of the game there is now, sending
    none: a player who asked for an email for each line was sent them that way."""
    latest = selectors.latest_message_id(game=game)
    ChatEmailMark.objects.bulk_create([ChatEmailMark(user_id=user_id, game=game)], ignore_conflicts=True)
    ChatEmailMark.objects.filter(user_id=user_id, game=game, last_mailed_id__lt=latest).update(
        last_mailed_id=latest, carrying_notification_id=None, carrying_up_to_id=0
    )


def chat_email_lines_sent(*, notification_id: int, user_id: int, game_id: str) -> bool:
    """Game email ``notification_id`` was handed to the mail server: the reader's
    mark moves past the lines it carried. One conditional UPDATE, so it counts only
    for the email that holds the claim. Returns whether it carried lines."""
    moved = ChatEmailMark.objects.filter(
        user_id=user_id, game_id=game_id, carrying_notification_id=notification_id
    ).update(last_mailed_id=F("carrying_up_to_id"), carrying_notification_id=None, carrying_up_to_id=0)
    return moved == 1
