"""Playing by email: an inbound message stored, then read and carried out.

Every way in (``manage.py smtpd``, the email provider's inbound webhook, the
IMAP poll) ends in ``inbound_message_receive``, which stores the message once
(a unique row per Message-ID, so a second delivery applies nothing) and queues
``inbound_message_process`` on commit. Processing reads the message with the
pure parser (notifications.inbound) and carries the command out through the
same services as the API (games.services).

A command acts only when its From: is the account's verified address *and*
that From: is authenticated: a DMARC-aligned DKIM or SPF pass, checked when the
message comes in (``sender_check``: by the SMTP receiver itself, or read from
the Authentication-Results header of the trusted INBOUND_AUTHSERV_ID). A
command about a game needs the seat's reply token too (in the address or in the
quoted Message-ID). A token from another address is refused and the seat's
owner told; a command from the right address that is not authenticated does
nothing but mail that address a challenge, ``confirm <code>``, which acts on the
code alone and re-checks everything when it is used. Auto-replies and bounces
get no answer at all, and replies, error replies and codes to one address are
limited per hour, so no mail loop can start and no forger can flood anyone.
Logs name messages by id and addresses redacted.
"""

from __future__ import annotations

import hashlib
import ipaddress
import logging
import re
import secrets
from dataclasses import dataclass, replace
from datetime import timedelta
from typing import Any
from urllib.parse import urlencode

import engine
from engine.notation import MOVE_PART_WORDS, MOVE_VERBS
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.mail import EmailMultiAlternatives
from django.db import DatabaseError, IntegrityError, transaction
from django.template.loader import render_to_string
from django.utils import timezone

from core.errors import DomainError
from games import errors as game_errors
from games import selectors
from games.models import Game, Seat
from games.services import game_create, game_resign, move_submit, seat_decline, seat_join, vacation_take
from notifications.addresses import address_digest, address_redacted
from notifications.inbound import Command, CommandKind, InboundEmail, inbound_parse
from notifications.inbound.authentication import (
    Resolver,
    SenderCheck,
    SystemResolver,
    sender_from_results,
    sender_verify,
)
from notifications.inbound.commands import CODE_ALPHABET
from notifications.inbound.message import DROP_UNREADABLE
from notifications.inbound.text import visible_text
from notifications.models import InboundMessage, InvitationOptOut, Notification, PendingConfirmation
from notifications.email.links import opt_out_url
from notifications.reply_tokens import seat_for_reply_token
from notifications.email.services import notify

logger = logging.getLogger(__name__)

Status = InboundMessage.Status
PROCESS_TASK = "notifications.inbound_tasks.process_inbound"
User = Any  # the auth user model (django-stubs cannot name it statically here)


class InboundRefusal(DomainError):
    """A command that cannot be carried out for a reason of the email door itself."""

    code = "email_command_refused"
    title = "The emailed command cannot be carried out"


def _reply_domain() -> str:
    return str(settings.EMAIL_REPLY_DOMAIN or "")


# --- receiving ------------------------------------------------------------------------


@dataclass(frozen=True)
class SmtpPeer:
    """What the SMTP session knew of the client that handed the message over."""

    client_ip: str
    helo: str
    mail_from: str


def relay_is_trusted(client_ip: str) -> bool:
    """Whether ``client_ip`` is in INBOUND_TRUSTED_RELAYS (an IPv4 address seen
    as IPv6, ::ffff:a.b.c.d, counts as itself)."""
    try:
        address = ipaddress.ip_address(client_ip.split("%")[0])
    except ValueError:
        return False
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return any(address in network for network in settings.INBOUND_TRUSTED_RELAYS)


def sender_check(raw: bytes, *, peer: SmtpPeer | None, resolver: Resolver | None = None) -> SenderCheck:
    """Whether the message's From: domain is authenticated. Mail handed over by
    an SMTP client that is not a trusted relay is checked here (DKIM, SPF for the
    session's client and envelope sender, DMARC alignment); anything else (a
    trusted relay, the IMAP poll, the provider's webhook) is believed from the
    Authentication-Results header of INBOUND_AUTHSERV_ID, and only from it."""
    resolver = resolver or SystemResolver()
    try:
        if peer is not None and not relay_is_trusted(peer.client_ip):
            return sender_verify(
                raw, client_ip=peer.client_ip, helo=peer.helo, mail_from=peer.mail_from, resolver=resolver
            )
        return sender_from_results(raw, authserv_id=settings.INBOUND_AUTHSERV_ID, resolver=resolver)
    except Exception as error:  # a check that breaks proves nothing; the message is still stored
        logger.warning("sender check failed (%s); the sender counts as not authenticated", type(error).__name__)
        return SenderCheck(False, "", f"not checked: {type(error).__name__}")


def inbound_message_receive(
    *,
    raw: bytes,
    envelope_to: list[str] | None,
    source: str,
    peer: SmtpPeer | None = None,
    resolver: Resolver | None = None,
) -> InboundMessage | None:
    """Store one message, with whether its sender is authenticated, and queue
    its processing once the transaction commits. ``peer`` is the SMTP session's
    client (``manage.py smtpd``); the other ways in have none. Returns None for
    a message too large, or one stored already (a second delivery of the same
    Message-ID)."""
    if len(raw) > settings.INBOUND_MAX_MESSAGE_BYTES:
        logger.info("inbound message from %s refused: %s bytes is over the limit", source, len(raw))
        return None
    parsed = inbound_parse(raw, reply_domain=_reply_domain(), envelope_to=envelope_to)
    recipients = [visible_text(address).lower()[:320] for address in (envelope_to or [])][:20]
    check = sender_check(raw, peer=peer, resolver=resolver) if not parsed.drop_reason else None
    try:
        with transaction.atomic():
            inbound = InboundMessage.objects.create(
                message_key=parsed.message_key,
                source=source[:16],
                raw=raw,
                envelope_to=recipients,
                sender_digest=address_digest(parsed.sender) if parsed.sender else "",
                authenticated=check is not None and check.authenticated,
                authentication=visible_text(check.detail)[:200] if check is not None else "",
            )
    except IntegrityError:
        logger.info("inbound message from %s is a repeat delivery; nothing done", source)
        return None
    except DatabaseError as error:
        # Something in this one message the database will not take: it is
        # recorded without its content, so that the way in goes on to the next
        # message (an IMAP poll that failed on it would never get past it). If
        # the database takes nothing at all, this fails too and the way in
        # retries later.
        return _record_unstorable(raw=raw, source=source, error=error)
    inbound_id = inbound.pk
    transaction.on_commit(lambda: _queue_process(inbound_id))
    logger.info("inbound message %s received from %s; sender %s", inbound_id, source,
                f"authenticated: {check.detail}" if check and check.authenticated
                else f"not authenticated: {check.detail}" if check else "not checked")  # fmt: skip
    return inbound


def _record_unstorable(*, raw: bytes, source: str, error: Exception) -> InboundMessage | None:
    try:
        with transaction.atomic():
            inbound = InboundMessage.objects.create(
                message_key=hashlib.sha256(raw).hexdigest(),
                source=source[:16],
                raw=None,
                status=Status.DROPPED,
                processed_at=timezone.now(),
                outcome=f"{DROP_UNREADABLE}: could not be stored ({type(error).__name__})",
            )
    except IntegrityError:
        return None
    logger.warning("inbound message %s from %s could not be stored (%s); recorded without its content",
                   inbound.pk, source, type(error).__name__)  # fmt: skip
    return inbound


def _queue_process(inbound_id: int) -> None:
    from celery import current_app

    try:
        task = current_app.tasks.get(PROCESS_TASK)
        if task is not None:
            task.apply_async(args=(inbound_id,), retry=False)
        else:
            current_app.send_task(PROCESS_TASK, args=(inbound_id,), retry=False)
    except Exception:
        logger.warning("could not queue inbound message %s; process_pending will", inbound_id, exc_info=True)


def inbound_messages_process_pending(*, limit: int = 100) -> int:
    """Process messages stored but never processed (their task was lost)."""
    ids = list(
        InboundMessage.objects.filter(status=Status.RECEIVED, processed_at__isnull=True)
        .order_by("received_at")
        .values_list("pk", flat=True)[:limit]
    )
    return sum(1 for pk in ids if inbound_message_process(inbound_id=pk) != "not-due")


# --- processing -----------------------------------------------------------------------


def _claim(inbound_id: int) -> bool:
    return (
        InboundMessage.objects.filter(pk=inbound_id, processed_at__isnull=True).update(processed_at=timezone.now())
        == 1
    )


_ADDRESS = re.compile(r"[^\s<>()'\"]+@[^\s<>()'\",]+")


def _redacted(text: str) -> str:
    """``text`` with every address in it redacted (it goes to a log line)."""
    return _ADDRESS.sub(lambda match: address_redacted(match.group(0)), text)


def _finish(inbound: InboundMessage, status: str, outcome: str, **fields: Any) -> str:
    outcome = _redacted(outcome)
    inbound.status = status
    inbound.outcome = outcome[:300]
    inbound.raw = None  # kept only until processed: it holds addresses and words
    for name, value in fields.items():
        setattr(inbound, name, value)
    inbound.save()
    logger.info("inbound message %s %s: %s", inbound.pk, status, outcome)
    return status


def inbound_message_process(*, inbound_id: int) -> str:
    """Read one stored message and carry out its command. Returns the row's
    status, or "not-due" when it was processed already (safe to run twice)."""
    if not _claim(inbound_id):
        return "not-due"
    inbound = InboundMessage.objects.get(pk=inbound_id)
    try:
        return _process(inbound)
    except Exception:
        # A bug must not send the message round again (it might loop): it is kept
        # for an operator, and the sender gets no reply.
        logger.exception("inbound message %s could not be processed", inbound_id)
        InboundMessage.objects.filter(pk=inbound_id).update(status=Status.DROPPED, outcome="internal error")
        return Status.DROPPED


def _process(inbound: InboundMessage) -> str:
    raw = bytes(inbound.raw or b"")
    parsed = inbound_parse(raw, reply_domain=_reply_domain(), envelope_to=list(inbound.envelope_to))
    inbound.command = parsed.command.text[:200]
    if parsed.drop_reason:
        if parsed.is_dsn:
            from notifications.email.bounces import dsn_record

            dsn_record(raw)
        return _finish(inbound, Status.DROPPED, parsed.drop_reason)
    if parsed.command.kind is CommandKind.CONFIRM:
        return _confirm(inbound, parsed)
    user = _verified_user(parsed.sender)
    if parsed.seat_token is not None:
        return _with_token(inbound, parsed, user)
    return _without_token(inbound, parsed, user)


def _believed(inbound: InboundMessage) -> bool:
    """Whether the message's From: may act: authenticated, or a trial that
    turned the requirement off."""
    return inbound.authenticated or not settings.INBOUND_REQUIRE_AUTHENTICATION


def _verified_user(address: str) -> Any | None:
    """The active account whose verified address this is, or None."""
    if not address:
        return None
    users = list(
        get_user_model()
        .objects.select_related("player")
        .filter(email__iexact=address, is_active=True, player__email_verified_at__isnull=False,
                player__erased_at__isnull=True)[:2]
    )
    return users[0] if len(users) == 1 else None


def _with_token(inbound: InboundMessage, parsed: InboundEmail, user: Any | None) -> str:
    seat = seat_for_reply_token(parsed.seat_token or "")
    if seat is None:
        if user is not None:
            # From: alone: the account's owner is told (and it is the sender).
            _tell_owner(inbound, user_id=user.pk, game=None, reason="bad_token")
        return _finish(inbound, Status.DROPPED, "reply address not valid", user=user)
    if user is None or user.pk != seat.user_id:
        # The token alone: someone who is not the player has the address.
        _tell_owner(inbound, user_id=seat.user_id, game=seat.game, reason="other_sender")
        logger.warning(
            "inbound message %s for seat %s came from %s, not the player's address",
            inbound.pk, seat.pk, address_redacted(parsed.sender),
        )  # fmt: skip
        return _finish(inbound, Status.DROPPED, "sender is not the seat's player", game=seat.game)
    inbound.user = user
    inbound.game = seat.game
    if not _believed(inbound):
        return _challenge(inbound, parsed, user, seat)
    return _run(inbound, parsed, user, seat)


def _without_token(inbound: InboundMessage, parsed: InboundEmail, user: Any | None) -> str:
    if user is None:
        # An unknown or unverified sender gets nothing: an answer could be backscatter.
        return _finish(inbound, Status.DROPPED, "sender has no verified account")
    inbound.user = user
    kind = parsed.command.kind
    if kind in (CommandKind.NEW, CommandKind.HELP, CommandKind.VACATION):
        if not _believed(inbound):
            return _challenge(inbound, parsed, user, None)
        return _run(inbound, parsed, user, None)
    if not _believed(inbound):
        return _finish(inbound, Status.DROPPED, "sender not authenticated; nothing to confirm")
    return _refuse(
        inbound,
        user,
        None,
        InboundRefusal(
            "This command is about a game: reply to that game's email (its reply address names your seat). "
            "To the service's own address you can write \"new\", \"vacation <days>\" or \"help\"."
        ),
    )


def _tell_owner(inbound: InboundMessage, *, user_id: int, game: Game | None, reason: str) -> None:
    # Whoever has a player's reply address could otherwise flood them with warnings.
    since = timezone.now() - timedelta(hours=1)
    warned = Notification.objects.filter(kind="reply_unauthorised", user_id=user_id, created_at__gte=since).count()
    if warned >= settings.INBOUND_ERROR_REPLIES_PER_HOUR or not _reply_allowed(user_id):
        return
    inbound.reply = {**inbound.reply, "reason": reason}
    inbound.save(update_fields=["reply"])
    notify(
        key=f"inbound:{inbound.pk}:reply_unauthorised:{user_id}",
        kind="reply_unauthorised",
        user_id=user_id,
        game_id=game.pk if game is not None else None,
    )


# --- carrying out -----------------------------------------------------------------------


def _run(inbound: InboundMessage, parsed: InboundEmail, user: Any, seat: Seat | None) -> str:
    command = parsed.command
    try:
        if command.error:
            raise InboundRefusal(f"Could not read {command.text!r}: {command.error}.")
        handler = _HANDLERS.get(command.kind)
        if handler is None:
            raise InboundRefusal(
                "No command found in your email. Write one command on the first line: a move such as "
                "\"take white blue green\", or board, moves, resign, vacation <days> or help."
                if command.kind is CommandKind.UNKNOWN or command.kind is CommandKind.EMPTY
                else f"{command.kind.value!r} cannot be used here."
            )
        return handler(inbound, parsed, user, seat)
    except DomainError as error:
        return _refuse(inbound, user, seat, error)


def _needs_seat(seat: Seat | None) -> Seat:
    if seat is None:
        raise InboundRefusal("Reply to the game's email: its reply address names your seat.")
    return seat


def _reply_allowed(user_id: int) -> bool:
    """Whether one more reply may go to this account's address this hour: every
    kind counts (confirmations, boards, help, codes, warnings, errors), so no
    stream of messages, forged or not, turns into a stream of email."""
    since = timezone.now() - timedelta(hours=1)
    sent = Notification.objects.filter(user_id=user_id, kind__startswith="reply_", created_at__gte=since).count()
    return sent < settings.INBOUND_REPLIES_PER_HOUR


def _reply(inbound: InboundMessage, kind: str, user: Any, game: Game | None, **context: Any) -> bool:
    """Record what the reply shows and queue it; False when the hour's replies
    to the address are used up (nothing is sent)."""
    if not _reply_allowed(user.pk):
        logger.info("inbound message %s: no %s sent, the replies limit per hour is reached", inbound.pk, kind)
        inbound.reply = {**inbound.reply, "not_sent": "replies limit reached"}
        inbound.save(update_fields=["reply"])
        return False
    inbound.reply = {**inbound.reply, **context}
    inbound.save(update_fields=["reply"])
    notify(
        key=f"inbound:{inbound.pk}:{kind}:{user.pk}",
        kind=kind,
        user_id=user.pk,
        game_id=game.pk if game is not None else None,
    )
    return True


def _refuse(inbound: InboundMessage, user: Any, seat: Seat | None, error: DomainError, *, stale: bool = False) -> str:
    since = timezone.now() - timedelta(hours=1)
    replied = InboundMessage.objects.filter(
        sender_digest=inbound.sender_digest, error_replied=True, received_at__gte=since
    ).count()
    outcome = f"{error.code}: {error.message}"
    if replied >= settings.INBOUND_ERROR_REPLIES_PER_HOUR:
        return _finish(inbound, Status.DROPPED, f"error replies limit reached; {outcome}")
    game = seat.game if seat is not None else inbound.game
    sent = _reply(
        inbound,
        "reply_refused",
        user,
        game,
        understood=inbound.command,
        message=error.message,
        rule=str(error.fields.get("rule") or ""),
        code=error.code,
        choices=[str(choice) for choice in (error.fields.get("choices") or [])][:10],
        stale=stale,
    )
    return _finish(inbound, Status.REFUSED, outcome if sent else f"{outcome}; no reply (limit)", error_replied=sent)


def _move(inbound: InboundMessage, parsed: InboundEmail, user: Any, seat: Seat | None) -> str:
    seat = _needs_seat(seat)
    game = Game.objects.get(pk=seat.game_id)
    passed = (
        game.status != Game.Status.ACTIVE
        or game.to_move != seat.index
        or (parsed.answers_version is not None and parsed.answers_version < game.version)
    )
    if passed and game.status == Game.Status.ACTIVE:
        return _refuse(
            inbound,
            user,
            seat,
            game_errors.StaleVersion(
                "That turn has passed: the game has moved on since the email you answered. "
                "Here is the board as it is now.",
                current_version=game.version,
            ),
            stale=True,
        )
    text = move_text_with_names(game, seat, parsed.command.argument)
    played = move_submit(game_id=game.pk, user=user, text=text, expected_version=game.version)
    move_text = played.move.text  # canonical and public: a blind reservation names no card
    _reply(inbound, "reply_done", user, game, done="move", move=move_text, understood=inbound.command)
    return _finish(inbound, Status.APPLIED, f"played {move_text}")


_CARD_REF = re.compile(r"^([1-3]-\d\d|deck ?[1-3]|[1-3]x|level ?[1-3] ?deck|[1-3][a-d]|h[1-3])$", re.IGNORECASE)
_SUFFIX = re.compile(r"\s(%s)\s|\sj:" % "|".join(map(re.escape, MOVE_PART_WORDS)), re.IGNORECASE)
# The verbs of a move that names a card (buy, reserve and their synonyms).
_CARD_VERBS = frozenset(verb for verb, action in MOVE_VERBS.items() if action in ("buy", "reserve"))


def _norm(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", text.lower())


def move_text_with_names(game: Game, seat: Seat, text: str) -> str:
    """``buy Gamora``: a card named as the player sees it (the market, their own
    reserve) becomes its id, so a name never reaches a card they cannot see.
    A name that fits several visible cards is refused with the candidates."""
    words = text.split(None, 1)
    if len(words) < 2 or words[0].lower() not in _CARD_VERBS or game.state is None:
        return text
    padded = " " + words[1] + " "
    match = _SUFFIX.search(padded)
    argument = padded if match is None else padded[: match.start()]
    rest = "" if match is None else padded[match.start() :].rstrip()
    argument = argument.strip()
    if not argument or _CARD_REF.match(argument):
        return text
    state = engine.from_dict(game.state)
    visible: list[str] = [cid for row in state.market for cid in row if cid is not None]
    if seat.index is not None:
        visible += [cid for cid, _blind in state.players[seat.index].reserved]
    cards = state.variant.cards
    wanted = _norm(re.sub(r"^the\s+|\s+in\s+marvel$", "", argument, flags=re.IGNORECASE))
    if not wanted or not any(cards[cid].name for cid in visible if cid in cards):
        return text
    named = {cid: cards[cid].name for cid in visible if cid in cards and cards[cid].name}
    exact = [cid for cid, name in named.items() if _norm(name) == wanted]
    found = exact or [cid for cid, name in named.items() if wanted in _norm(name)]
    if len(found) == 1:
        return f"{words[0]} {found[0]}{rest}"
    if len(found) > 1:
        candidates = [f"{named[cid]} ({cid})" for cid in sorted(found)]
        raise game_errors.AmbiguousMove(
            f"{argument!r} fits several cards you can see: {', '.join(candidates)}. Name one of them.",
            rule="",
            choices=[f"{words[0]} {cid}{rest}" for cid in sorted(found)],
        )
    raise game_errors.InvalidNotation(f"No card named {argument!r} is in the market or your reserve.")


def confirmation_code() -> tuple[str, str]:
    """A new code: as shown (``K7QD-2XMA-9FPT``, 12 letters of Crockford's base 32,
    60 bits) and as stored (lower case, no dashes: confirmation_code_normalize)."""
    letters = "".join(secrets.choice(CODE_ALPHABET) for _ in range(12))
    return "-".join(letters[start : start + 4] for start in (0, 4, 8)), letters.lower()


def _codes_allowed(user_id: int) -> bool:
    """Codes mailed to one address are limited per hour: a challenge is an email
    that anyone can make the service send, by forging the address."""
    since = timezone.now() - timedelta(hours=1)
    made = PendingConfirmation.objects.filter(user_id=user_id, created_at__gte=since).count()
    return made < settings.INBOUND_CHALLENGES_PER_HOUR


def _pending(
    inbound: InboundMessage,
    user: Any,
    action: str,
    game: Game | None,
    details: dict[str, Any],
    *,
    status: str = Status.APPLIED,
    outcome: str = "",
) -> str:
    if not _codes_allowed(user.pk):
        return _finish(inbound, Status.DROPPED, f"{action}: the codes limit per hour is reached; nothing sent")
    shown, stored = confirmation_code()  # bound to the account, for INBOUND_CONFIRMATION_HOURS
    PendingConfirmation.objects.create(
        code=stored,
        action=action,
        user=user,
        game=game,
        details=details,
        expires_at=timezone.now() + timedelta(hours=settings.INBOUND_CONFIRMATION_HOURS),
    )
    _reply(inbound, "reply_confirm", user, game, action=action, confirm_code=shown, details=details,
           hours=settings.INBOUND_CONFIRMATION_HOURS)  # fmt: skip
    return _finish(inbound, status, outcome or f"{action} waits for confirmation")


def _summary(command: Command, game: Game | None) -> str:
    """What the owner is asked to confirm, in a few words: the command as its
    sender wrote it, and the game it names (nothing else of the game)."""
    where = f" in game {game.pk}" if game is not None else ""
    kind = command.kind
    if kind is CommandKind.MOVE:
        return f"play {command.argument[:60]}{where}"
    if kind is CommandKind.BOARD:
        return f"send you the board{where}"
    if kind is CommandKind.MOVES:
        return f"send you your legal moves{where}"
    if kind is CommandKind.HELP:
        return "send you the list of commands"
    if kind is CommandKind.VACATION:
        return f"pause your games for {command.argument} days"
    if kind is CommandKind.ACCEPT:
        return f"take your seat{where}"
    if kind is CommandKind.DECLINE:
        return f"decline the invitation{where}"
    return f"carry out \"{command.text[:60]}\"{where}"


def _challenge(inbound: InboundMessage, parsed: InboundEmail, user: Any, seat: Seat | None) -> str:
    """The From: is the account's address but could not be authenticated:
    nothing acts, and that address is mailed a code that carries the command
    out when sent back. Whoever forged the From: gets nothing."""
    command = parsed.command
    if command.error or command.kind not in _HANDLERS:
        return _finish(inbound, Status.DROPPED, "sender not authenticated; nothing to confirm")
    if command.kind in (CommandKind.RESIGN, CommandKind.NEW):
        # These ask the owner for a code in any case: that code is the challenge.
        return _run(inbound, parsed, user, seat)
    game = Game.objects.get(pk=seat.game_id) if seat is not None else None
    version = parsed.answers_version if parsed.answers_version is not None else (game.version if game else None)
    details = {
        "kind": command.kind.value,
        "text": command.text[:200],
        "argument": command.argument[:200],
        "seat": seat.pk if seat is not None else None,
        "version": version,
        "summary": _summary(command, game),
    }
    return _pending(
        inbound, user, PendingConfirmation.Action.COMMAND, game, details, status=Status.CHALLENGED,
        outcome=f"{command.kind.value} waits for the owner's code: sender not authenticated ({inbound.authentication})",
    )  # fmt: skip


def _resign(inbound: InboundMessage, parsed: InboundEmail, user: Any, seat: Seat | None) -> str:
    seat = _needs_seat(seat)
    game = Game.objects.get(pk=seat.game_id)
    if game.status != Game.Status.ACTIVE:
        raise game_errors.GameNotActive(f"This game is {game.status}; you can resign only while it is active.")
    return _pending(inbound, user, PendingConfirmation.Action.RESIGN, game, {})


def _confirm(inbound: InboundMessage, parsed: InboundEmail) -> str:
    """``confirm <code>``: the code alone acts, whoever sends it back (it was
    mailed only to the account's verified address), once, before it expires,
    for the account it was made for."""
    code = parsed.command.argument
    now = timezone.now()
    pending = (
        PendingConfirmation.objects.select_related("user", "game")
        .filter(code=code, done_at__isnull=True, expires_at__gt=now)
        .first()
        if code
        else None
    )
    claimed = (
        pending is not None
        and PendingConfirmation.objects.filter(pk=pending.pk, done_at__isnull=True).update(done_at=now) == 1
    )
    if pending is None or not claimed:
        sender = _verified_user(parsed.sender)
        if sender is None:
            return _finish(inbound, Status.DROPPED, "no confirmation waits for that code")
        inbound.user = sender
        return _refuse(
            inbound,
            sender,
            None,
            InboundRefusal(
                "There is nothing waiting for that confirmation: the code is wrong, used or expired. "
                "Send the command again for a new code."
            ),
        )
    user = pending.user
    if _verified_user(user.email or "") != user:
        return _finish(inbound, Status.DROPPED, "the code's account is no longer active")
    inbound.user = user
    inbound.game = pending.game
    try:
        if pending.action == PendingConfirmation.Action.RESIGN:
            assert pending.game is not None
            game_resign(game=pending.game, user=user)
            _reply(inbound, "reply_done", user, pending.game, done="resign", understood=inbound.command)
            return _finish(inbound, Status.APPLIED, "resigned")
        if pending.action == PendingConfirmation.Action.NEW_GAME:
            return _new_game_create(inbound, user, pending.details)
    except DomainError as error:
        return _refuse(inbound, user, None, error)
    return _confirmed_command(inbound, parsed, user, pending)


def _confirmed_command(inbound: InboundMessage, parsed: InboundEmail, user: Any, pending: PendingConfirmation) -> str:
    """A challenged command, carried out now as if it had just come in
    authenticated, against the version it was made for: a turn that has passed
    since is answered so."""
    details = pending.details
    command = Command(CommandKind(str(details.get("kind"))), text=str(details.get("text", "")),
                      argument=str(details.get("argument", "")))  # fmt: skip
    seat: Seat | None = None
    if details.get("seat") is not None:
        seat = Seat.objects.select_related("game").filter(pk=details["seat"], user=user).first()
        if seat is None:
            return _refuse(inbound, user, None, InboundRefusal("That seat is no longer yours: nothing was done."))
    inbound.command = command.text[:200]
    version = details.get("version")
    confirmed = replace(parsed, command=command, answers_version=version if isinstance(version, int) else None)
    return _run(inbound, confirmed, user, seat)


def _board(inbound: InboundMessage, parsed: InboundEmail, user: Any, seat: Seat | None) -> str:
    seat = _needs_seat(seat)
    show = "moves" if parsed.command.kind is CommandKind.MOVES else "board"
    _reply(inbound, "reply_board", user, seat.game, show=show)
    return _finish(inbound, Status.APPLIED, f"sent the {show}")


def _help(inbound: InboundMessage, parsed: InboundEmail, user: Any, seat: Seat | None) -> str:
    _reply(inbound, "reply_board", user, seat.game if seat is not None else None, show="help")
    return _finish(inbound, Status.APPLIED, "sent help")


def _vacation(inbound: InboundMessage, parsed: InboundEmail, user: Any, seat: Seat | None) -> str:
    vacation_take(user=user, days=int(parsed.command.argument))
    return _finish(inbound, Status.APPLIED, f"vacation of {parsed.command.argument} days")


def _accept(inbound: InboundMessage, parsed: InboundEmail, user: Any, seat: Seat | None) -> str:
    seat = _needs_seat(seat)
    game = Game.objects.get(pk=seat.game_id)
    seat_join(game=game, user=user)
    _reply(inbound, "reply_done", user, game, done="accept", understood=inbound.command)
    return _finish(inbound, Status.APPLIED, "joined")


def _decline(inbound: InboundMessage, parsed: InboundEmail, user: Any, seat: Seat | None) -> str:
    seat = _needs_seat(seat)
    seat_decline(game_id=seat.game_id, user=user)
    return _finish(inbound, Status.APPLIED, "declined")


# --- new games by email -----------------------------------------------------------------


def _new(inbound: InboundMessage, parsed: InboundEmail, user: Any, seat: Seat | None) -> str:
    command = parsed.command
    variant = command.variant or "base"
    if variant not in engine.VARIANTS:
        raise InboundRefusal(f"{variant!r} is not a variant; choose one of: {', '.join(engine.VARIANTS)}.")
    invite = [address for address in command.invite if address != (user.email or "").lower()]
    seats = command.seats or max(2, 1 + len(invite))
    if len(invite) > seats - 1:
        raise InboundRefusal(f"You invited {len(invite)} players but a {seats}-seat game has {seats - 1} besides yours.")
    details = {"variant": variant, "seats": seats, "invite": invite}
    # From: can be forged: nobody is invited until the account's owner confirms.
    return _pending(inbound, user, PendingConfirmation.Action.NEW_GAME, None, details)


def _new_game_create(inbound: InboundMessage, user: Any, details: dict[str, Any]) -> str:
    addresses: list[str] = [str(a) for a in details.get("invite", [])]
    opted_out = set(
        InvitationOptOut.objects.filter(address_digest__in=[address_digest(a) for a in addresses]).values_list(
            "address_digest", flat=True
        )
    )
    addresses = [a for a in addresses if address_digest(a) not in opted_out]
    users_by_address = {
        u.email.lower(): u
        for u in get_user_model().objects.filter(email__in=addresses, is_active=True)
        if u.email
    }
    strangers = [a for a in addresses if a not in users_by_address]
    now = timezone.now()
    limit: int = settings.INVITATIONS_PER_DAY
    sent = len(selectors.invitations_sent_since(user_id=user.pk, since=now - timedelta(days=1)))
    if strangers and sent + len(addresses) > limit:
        raise game_errors.TooManyInvitations(
            f"You can invite at most {limit} players a day and have invited {sent} in the last 24 hours."
        )
    game = game_create(
        creator=user,
        variant=str(details.get("variant", "base")),
        seats=int(details.get("seats", 2)),
        invited=list(users_by_address.values()),
    )
    inbound.game = game
    game_id = game.pk

    def send_signup_invitations() -> None:
        for address in strangers:
            signup_invitation_send(address=address, game_id=game_id, inviter=user)

    transaction.on_commit(send_signup_invitations)
    _reply(inbound, "reply_done", user, game, done="new_game", invited=len(addresses), understood=inbound.command)
    return _finish(inbound, Status.APPLIED, f"created game {game.pk}")


def signup_invitation_send(*, address: str, game_id: str, inviter: Any) -> None:
    """An invitation to someone with no account: a link to sign up that leads
    to the game, and a link to opt out of all invitations."""
    site = str(getattr(settings, "SITE_URL", "")).rstrip("/")
    context = {
        "inviter": getattr(getattr(inviter, "player", None), "display_name", "") or inviter.username,
        "signup_url": f"{site}/accounts/signup/?{urlencode({'next': f'/games/{game_id}/'})}",
        "opt_out_url": opt_out_url(address_digest=address_digest(address)),
        "game_id": game_id,
        "site_url": site,
    }
    message = EmailMultiAlternatives(
        subject=f"{context['inviter']} invites you to a game of Splendor",
        body=render_to_string("notifications/email/reply_signup_invitation.txt", context),
        to=[address],
        headers={"Auto-Submitted": "auto-generated", "X-Auto-Response-Suppress": "All"},
    )
    message.attach_alternative(render_to_string("notifications/email/reply_signup_invitation.html", context), "text/html")
    try:
        message.send()
    except Exception:
        logger.warning("signup invitation to %s for game %s not sent", address_redacted(address), game_id, exc_info=True)
    else:
        logger.info("signup invitation to %s for game %s sent", address_redacted(address), game_id)


_HANDLERS = {
    CommandKind.MOVE: _move,
    CommandKind.RESIGN: _resign,
    CommandKind.BOARD: _board,
    CommandKind.MOVES: _board,
    CommandKind.HELP: _help,
    CommandKind.VACATION: _vacation,
    CommandKind.ACCEPT: _accept,
    CommandKind.DECLINE: _decline,
    CommandKind.NEW: _new,
}
