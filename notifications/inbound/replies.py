"""What play by email answers, and how a message's processing ends.

Every answer is a notification (``reply_*`` kinds, keyed by the inbound message,
rendered by notifications.inbound.reply_emails) and is counted: one address gets
at most INBOUND_REPLIES_PER_HOUR replies of any kind and INBOUND_ERROR_REPLIES_PER_HOUR
refusals, so no stream of messages, forged or not, turns into a stream of
email. ``inbound_message_finish`` records what became of a message and forgets
its raw text. Logs name messages by id and addresses redacted.
"""

from __future__ import annotations

import email.parser
import email.policy
import logging
import re
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.utils import timezone
from django.utils.translation import gettext, gettext_noop

from accounts.language import in_language_of
from core import metrics
from core.errors import DomainError
from games.models import Game, Seat
from notifications.addresses import address_redacted
from notifications.email.render import display_name
from notifications.email.services import notify
from notifications.inbound.text import visible_text
from notifications.models import InboundMessage, Notification

logger = logging.getLogger(__name__)

Status = InboundMessage.Status


class InboundRefusal(DomainError):
    """A command that cannot be carried out for a reason of the email door itself."""

    code = "email_command_refused"
    title = gettext_noop("The emailed command cannot be carried out")


_ADDRESS = re.compile(r"[^\s<>()'\"]+@[^\s<>()'\",]+")


def _redacted(text: str) -> str:
    """``text`` with every address in it redacted (it goes to a log line)."""
    return _ADDRESS.sub(lambda match: address_redacted(match.group(0)), text)


# What a dropped message's outcome counts as in splendor_inbound_replies_total
# (its reason label), by how the outcome begins.
_DROP_REASONS = (
    ("auto-reply", "auto_reply"),
    ("bulk or list mail", "auto_reply"),
    ("bounce", "bounce"),
    ("no sender address", "no_sender"),
    ("unreadable", "unreadable"),
    ("sender not authenticated", "unauthenticated"),
    ("sender is not the seat's player", "wrong_sender"),
    ("sender has no verified account", "unknown_sender"),
    ("reply address not valid", "bad_address"),
    ("error replies limit reached", "rate_limited"),
    ("no confirmation waits", "bad_code"),
    ("the code's account is no longer active", "account_inactive"),
    ("internal error", "internal_error"),
)
# A refused command's reason: its error code, these renamed.
_REFUSAL_REASONS = {"stale_version": "stale_turn", "too_many_requests": "rate_limited"}


def inbound_reason(status: str, outcome: str) -> str:
    """The reason label of a finished message: "" when applied; for a refusal its
    error code (the outcome begins with it); for a drop, by the table above."""
    if status == Status.APPLIED:
        return ""
    if status == Status.CHALLENGED:
        return "unauthenticated"
    if status == Status.REFUSED:
        code = outcome.split(":", 1)[0].strip()
        return _REFUSAL_REASONS.get(code, code or "other")
    for start, reason in _DROP_REASONS:
        if start in outcome[: len(start) + 40]:
            return reason
    if "codes limit per hour" in outcome:
        return "rate_limited"
    return "other"


def inbound_series() -> list[tuple[str, str]]:
    """One series of ``splendor_inbound_replies_total`` per outcome, exported at 0
    before their first count (core.metrics.series_declare): its reasons are open
    (a refused command's error code), so each outcome starts with the reason that
    takes in the rest."""
    return [(Status.APPLIED, ""), (Status.REFUSED, "other"), (Status.DROPPED, "other"),
            (Status.CHALLENGED, "unauthenticated")]  # fmt: skip


def inbound_counted(status: str, reason: str) -> None:
    metrics.INBOUND.labels(status, reason).inc()


def inbound_message_finish(
    inbound: InboundMessage, status: str, outcome: str, *, reason: str | None = None, **fields: Any
) -> str:
    """Record what became of the message (its status, and the outcome with every
    address in it redacted) and forget its raw text; count it
    (``splendor_inbound_replies_total``, ``reason`` or read from the outcome).
    Returns the status."""
    inbound_counted(status, reason if reason is not None else inbound_reason(status, outcome))
    outcome = _redacted(outcome)
    inbound.status = status
    inbound.outcome = outcome[:300]
    inbound.raw = None  # kept only until processed: it holds addresses and words
    for name, value in fields.items():
        setattr(inbound, name, value)
    inbound.save()
    logger.info("inbound message %s %s: %s", inbound.pk, status, outcome)
    return status


def reply_allowed(user_id: int) -> bool:
    """Whether one more reply may go to this account's address this hour: every
    kind counts (confirmations, boards, help, codes, warnings, errors), so no
    stream of messages, forged or not, turns into a stream of email."""
    since = timezone.now() - timedelta(hours=1)
    sent = Notification.objects.filter(user_id=user_id, kind__startswith="reply_", created_at__gte=since).count()
    return sent < settings.INBOUND_REPLIES_PER_HOUR


# --- threading: a reply sits under the message it answers ------------------------------

# A msg-id as a reply may repeat it in a header (RFC 5322 3.6.4, the dot-atom
# forms loosely): "<left@right>", printable ASCII without spaces or angle brackets.
_MSG_ID = re.compile(r"<[!-;=?A-~]{1,250}@[!-;=?A-~]{1,250}>")
# Reply prefixes mail clients write: Re/RE, Aw (German), R and Rif (Italian),
# Sv (Scandinavian), Antw (Dutch), Atb (Latvian), Odp (Polish), Vs (Finnish),
# Ynt (Turkish), Res (Portuguese), with a counter ("Re[2]:", "Re(2):") or a
# full-width colon. A forward prefix is no reply prefix and stays.
_REPLY_PREFIX = re.compile(
    r"^(?:re|aw|r|rif|sv|antw|atb|odp|vs|ynt|res)\s*(?:\[\d+\]|\(\d+\))?\s*[:\uff1a]\s*", re.IGNORECASE
)
# References kept from the message answered: its first (the thread's root) and
# the newest, as RFC 5322 3.6.4 allows trimming, so a long thread's header stays short.
REFERENCES_KEPT = 20
SUBJECT_LENGTH = 150


def reply_subject(subject: str) -> str:
    """"Re: " and the subject answered, its own reply prefixes taken off first (so
    never "Re: Re:", nor "Re: AW:"); "" for a subject with nothing left to answer."""
    subject = " ".join(visible_text(subject).split())
    while True:
        stripped = _REPLY_PREFIX.sub("", subject, count=1)
        if stripped == subject:
            break
        subject = stripped
    return f"Re: {subject[:SUBJECT_LENGTH]}" if subject else ""


def _header_values(message: Any, name: str) -> list[str]:
    try:
        return [str(value) for value in message.get_all(name) or []]
    except Exception:  # a header the email package cannot take apart is no header
        return []


def reply_thread(raw: bytes) -> dict[str, str]:
    """What a reply to the message ``raw`` needs to sit under it in the reader's
    mailbox (RFC 5322 3.6.4): ``in_reply_to`` its Message-ID; ``references`` its
    References (or, lacking them, its one In-Reply-To) followed by its Message-ID;
    ``subject`` "Re: " and its subject. A message with no Message-ID, or one not of
    the form <left@right>, gets no headers (a subject still); never an error."""
    try:
        message = email.parser.BytesHeaderParser(policy=email.policy.default).parsebytes(raw)
    except Exception:
        return {}
    thread: dict[str, str] = {}
    subjects = _header_values(message, "Subject")
    subject = reply_subject(subjects[0]) if subjects else ""
    if subject:
        thread["subject"] = subject
    ids = _MSG_ID.findall(" ".join(_header_values(message, "Message-ID")[:1]))
    if len(ids) != 1:
        return thread
    message_id = ids[0]
    references = _MSG_ID.findall(" ".join(_header_values(message, "References")))
    if not references:
        parents = _MSG_ID.findall(" ".join(_header_values(message, "In-Reply-To")))
        references = parents if len(parents) == 1 else []
    references = [reference for reference in references if reference != message_id]
    if len(references) >= REFERENCES_KEPT:
        references = references[:1] + references[-(REFERENCES_KEPT - 2) :]
    thread["in_reply_to"] = message_id
    thread["references"] = " ".join([*references, message_id])
    return thread


def _thread_of(inbound: InboundMessage) -> dict[str, str]:
    """The thread of the message being answered (read from its raw text, which
    is kept until the message is finished), or the one recorded already. Its
    subject only when the sender is believed: the service does not repeat a
    subject that anyone may have written (a challenge keeps its own)."""
    if inbound.raw is not None:
        thread = reply_thread(bytes(inbound.raw))
    else:
        recorded = inbound.reply.get("thread")
        thread = dict(recorded) if isinstance(recorded, dict) else {}
    if not (inbound.authenticated or not settings.INBOUND_REQUIRE_AUTHENTICATION):
        thread.pop("subject", None)
    return thread


def reply_send(inbound: InboundMessage, kind: str, user: Any, game: Game | None, **context: Any) -> bool:
    """Record what the reply shows and queue it; False when the hour's replies
    to the address are used up (nothing is sent). The reply threads under the
    message it answers (``thread``: its Message-ID, References and "Re:" subject,
    headers the sender wrote, nothing of the game)."""
    if not reply_allowed(user.pk):
        logger.info("inbound message %s: no %s sent, the replies limit per hour is reached", inbound.pk, kind)
        inbound.reply = {**inbound.reply, "not_sent": "replies limit reached"}
        inbound.save(update_fields=["reply"])
        return False
    inbound.reply = {**inbound.reply, **context, "thread": _thread_of(inbound)}
    inbound.save(update_fields=["reply"])
    notify(
        key=f"inbound:{inbound.pk}:{kind}:{user.pk}",
        kind=kind,
        user_id=user.pk,
        game_id=game.pk if game is not None else None,
    )
    return True


# --- refusals in the words of email ----------------------------------------------------

# The codes of a move made on a game that has moved on: the reply's first line says
# "That turn has passed." and its words say nothing of versions.
_STALE_CODES = frozenset({"stale_version", "precondition_failed", "precondition_required"})
# Words of the API that a refusal shared with it may hold: a path, a method, a header.
_API_WORDS = re.compile(r"/api/|\b(?:GET|POST|PUT|PATCH|DELETE)\b|legal-moves|If-Match|Idempotency-Key")


def _words_without_api(message: str) -> str:
    """``message`` without its clauses that speak to an API client; one that sent
    the reader to the legal moves sends them to the ``moves`` command instead."""
    clauses = re.split(r"(?<=[.;!?])\s+", message.strip())
    kept = [clause for clause in clauses if not _API_WORDS.search(clause)]
    if len(kept) == len(clauses):
        return message
    text = " ".join(kept).strip()
    if text.endswith(";"):
        text = text[:-1] + "."
    if "legal-moves" in message:
        moves = gettext('Reply "moves" for the moves you can play now.')
        text = f"{text} {moves}".strip()
    return text


def refusal_words(error: DomainError, game: Game | None) -> str:
    """What a refusal says by email: the same reason as the API gives (the rule
    id beside it), in the words of a player who answers an email, so no version
    numbers, seat indexes, paths or methods."""
    code = error.code
    if code in _STALE_CODES:
        return gettext("The game has moved on since the email you answered: here is the board as it is now.")
    if code == "not_your_turn" and game is not None:
        to_move = error.fields.get("to_move")
        seat = Seat.objects.select_related("user", "user__player").filter(game=game, index=to_move).first()
        if seat is not None and isinstance(to_move, int):
            return gettext(
                "It is not your turn: %(name)s is to move. You will get an email when it is your turn."
            ) % {"name": display_name(seat.user)}
        return gettext("It is not your turn. You will get an email when it is your turn.")
    if code == "game_not_active":
        status = error.fields.get("game_status")
        if status == Game.Status.FINISHED:
            return gettext("This game is over: nothing more can be played in it.")
        if status == Game.Status.ABORTED:
            return gettext("This game was called off: nothing can be played in it.")
        if status == Game.Status.OPEN:
            return gettext("This game has not started yet: it starts when every seat is taken.")
    return _words_without_api(error.message)


def _refusal_words_for(user: Any, error: DomainError, game: Game | None) -> str:
    """The refusal in the words of the reader's language (``Player.language``)."""
    with in_language_of(user):
        return refusal_words(error, game)


def command_refuse(
    inbound: InboundMessage, user: Any, seat: Seat | None, error: DomainError, *, stale: bool = False
) -> str:
    """Answer a refused command with what was understood, why not (the rule, the
    engine's words) and the board, then finish the message as refused; past the
    sender's error replies for the hour, it is dropped unanswered."""
    since = timezone.now() - timedelta(hours=1)
    replied = InboundMessage.objects.filter(
        sender_digest=inbound.sender_digest, error_replied=True, received_at__gte=since
    ).count()
    outcome = f"{error.code}: {error.message}"
    reason = str(error.fields.get("reason") or _REFUSAL_REASONS.get(error.code, error.code))
    if replied >= settings.INBOUND_ERROR_REPLIES_PER_HOUR:
        return inbound_message_finish(
            inbound, Status.DROPPED, f"error replies limit reached; {outcome}", reason="rate_limited"
        )
    game = seat.game if seat is not None else inbound.game
    sent = reply_send(
        inbound,
        "reply_refused",
        user,
        game,
        understood=inbound.command,
        message=_refusal_words_for(user, error, game),
        rule=str(error.fields.get("rule") or ""),
        code=error.code,
        choices=[str(choice) for choice in (error.fields.get("choices") or [])][:10],
        stale=stale or error.code in _STALE_CODES,
    )
    if not sent:
        outcome = f"{outcome}; no reply (limit)"
    return inbound_message_finish(inbound, Status.REFUSED, outcome, reason=reason, error_replied=sent)


def owner_warn(inbound: InboundMessage, *, user_id: int, game: Game | None, reason: str) -> None:
    """Tell the account's owner that someone else used their reply address (or
    that their reply address was not valid), without a code."""
    # Whoever has a player's reply address could otherwise flood them with warnings.
    since = timezone.now() - timedelta(hours=1)
    warned = Notification.objects.filter(kind="reply_unauthorised", user_id=user_id, created_at__gte=since).count()
    if warned >= settings.INBOUND_ERROR_REPLIES_PER_HOUR or not reply_allowed(user_id):
        return
    inbound.reply = {**inbound.reply, "reason": reason}
    if reason == "bad_token":
        # The owner's own address sent it: the warning answers their message.
        inbound.reply["thread"] = _thread_of(inbound)
    inbound.save(update_fields=["reply"])
    notify(
        key=f"inbound:{inbound.pk}:reply_unauthorised:{user_id}",
        kind="reply_unauthorised",
        user_id=user_id,
        game_id=game.pk if game is not None else None,
    )
