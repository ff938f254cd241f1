"""Playing by email: a stored message read and carried out.

``inbound_message_process`` reads a message stored by ``inbound_message_receive``
(notifications.inbound.receive) with the pure parser (notifications.inbound)
and decides whether its command may act; what each command then does is in
notifications.inbound.actions, through the same services as the API.

A command acts only when its From: is one of the account's verified addresses
(its primary address or a verified added one: accounts.models.EmailAddress)
*and* that From: is authenticated (checked as the message came in). A command about
a game needs the seat's reply token too (in the address or in the quoted
Message-ID). A token from another address is refused and the seat's owner told (at the
primary address: that the move was not played, and how to add and verify the
address it came from);
a command from the right address that is not authenticated is read first: one
that changes nothing (board, moves, help) or that would be refused is answered at
once, to that address, with no code; one that would act does nothing but mail
that address a challenge, ``confirm <code>`` (notifications.inbound.confirmations),
which acts on the code alone and re-checks everything when it is used.
Auto-replies and bounces get no answer at all, and replies, error replies and
codes to one address are limited per hour (notifications.inbound.replies), so
no mail loop can start and no forger can flood anyone.
"""

from __future__ import annotations

import logging
from dataclasses import replace
from typing import Any

from django.conf import settings
from django.utils import timezone
from django.utils.translation import gettext

from accounts.language import in_language_of
from accounts.selectors import email_address_verified, email_address_waiting, user_for_verified_address
from core.errors import DomainError
from games.models import Game, Seat
from games.services import game_resign
from notifications.addresses import address_redacted
from notifications.email.bounces import dsn_record
from notifications.inbound import Command, CommandKind, InboundEmail, command_from_text, inbound_parse
from notifications.inbound.actions import (
    COMMAND_HANDLERS,
    command_check,
    command_only_answers,
    command_run,
    new_game_create,
)
from notifications.inbound.commands import command_languages
from notifications.inbound.confirmations import confirmation_ask
from notifications.inbound.receive import reply_domain
from notifications.inbound.replies import (
    InboundRefusal,
    command_refuse,
    inbound_counted,
    inbound_message_finish,
    owner_warn,
    reply_send,
)
from notifications.inbound.reply_tokens import seat_for_reply_token
from notifications.models import InboundMessage, PendingConfirmation

logger = logging.getLogger(__name__)

Status = InboundMessage.Status


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
        inbound_counted(Status.DROPPED, "internal_error")
        return Status.DROPPED


def _process(inbound: InboundMessage) -> str:
    raw = bytes(inbound.raw or b"")
    parsed = inbound_parse(raw, reply_domain=reply_domain(), envelope_to=list(inbound.envelope_to))
    inbound.command = _command_record(parsed.command)
    if parsed.drop_reason:
        if parsed.is_dsn:
            dsn_record(raw)
        return inbound_message_finish(inbound, Status.DROPPED, parsed.drop_reason)
    user = _verified_user(parsed.sender)
    _answer_to_sender(inbound, user, parsed.sender)
    parsed = _in_language_of(parsed, user)
    inbound.command = _command_record(parsed.command)
    # What the services say while carrying it out (their refusals) is in the
    # sender's language, as the answer that repeats it (English for a stranger).
    with in_language_of(user):
        if parsed.command.kind is CommandKind.CONFIRM:
            return _confirm(inbound, parsed)
        if parsed.seat_token is not None:
            return _with_token(inbound, parsed, user)
        return _without_token(inbound, parsed, user)


def _in_language_of(parsed: InboundEmail, user: Any | None) -> InboundEmail:
    """The message's command read in its sender's language as well as English
    (``command_languages``): the parser, which knows no account, read English only.
    A command in their words on an earlier line comes first, as it would have been
    read first; a message with none in them keeps what English found."""
    languages = command_languages(user)
    if len(languages) == 1:
        return parsed
    command = command_from_text(parsed.text, subject=parsed.subject, languages=languages)
    if command.kind in (CommandKind.UNKNOWN, CommandKind.EMPTY) or command == parsed.command:
        return parsed
    return replace(parsed, command=command)


def inbound_messages_process_pending(*, limit: int = 100) -> int:
    """Process messages stored but never processed (their task was lost)."""
    ids = list(
        InboundMessage.objects.filter(status=Status.RECEIVED, processed_at__isnull=True)
        .order_by("received_at")
        .values_list("pk", flat=True)[:limit]
    )
    return sum(1 for pk in ids if inbound_message_process(inbound_id=pk) != "not-due")


def _claim(inbound_id: int) -> bool:
    return (
        InboundMessage.objects.filter(pk=inbound_id, processed_at__isnull=True).update(processed_at=timezone.now())
        == 1
    )


def _believed(inbound: InboundMessage) -> bool:
    """Whether the message's From: may act: authenticated, or a trial that
    turned the requirement off."""
    return inbound.authenticated or not settings.INBOUND_REQUIRE_AUTHENTICATION


def _verified_user(address: str) -> Any | None:
    """The active account one of whose verified addresses this is (its primary
    address or a verified added one: accounts.selectors), or None."""
    return user_for_verified_address(address=address)


def _answer_to_sender(inbound: InboundMessage, user: Any | None, sender: str) -> None:
    """A message from one of the account's verified added addresses is answered
    there (its challenge too, so that sending the code back shows the sender reads
    that mailbox): its row's id is noted for the replies (notifications.inbound.reply_emails),
    never the address itself."""
    added = email_address_verified(user_id=user.pk, address=sender) if user is not None else None
    if added is not None:
        inbound.reply = {**inbound.reply, "answer_address_id": added.pk}


def _with_token(inbound: InboundMessage, parsed: InboundEmail, user: Any | None) -> str:
    seat = seat_for_reply_token(parsed.seat_token or "")
    if seat is None:
        if user is not None:
            # From: alone: the account's owner is told (and it is the sender).
            owner_warn(inbound, user_id=user.pk, game=None, reason="bad_token")
        return inbound_message_finish(inbound, Status.DROPPED, "reply address not valid", user=user)
    if user is None or user.pk != seat.user_id:
        # The token alone: someone who is not the player has the address, or the
        # player wrote from an address of theirs that is not verified: nothing
        # acts, and the primary address is told which, and how to add the address.
        waiting = email_address_waiting(user_id=seat.user_id, address=parsed.sender)
        inbound.reply = {
            **inbound.reply,
            **({"address_id": waiting.pk} if waiting is not None else {"sender": address_redacted(parsed.sender)}),
        }
        reason = "unverified_address" if waiting is not None else "other_sender"
        owner_warn(inbound, user_id=seat.user_id, game=seat.game, reason=reason)
        logger.warning(
            "inbound message %s for seat %s came from %s, not the player's address",
            inbound.pk, seat.pk, address_redacted(parsed.sender),
        )  # fmt: skip
        outcome = "sender is not the seat's player" + (": an address of theirs, not verified" if waiting else "")
        return inbound_message_finish(inbound, Status.DROPPED, outcome, game=seat.game)
    inbound.user = user
    inbound.game = seat.game
    if not _believed(inbound):
        return _challenge(inbound, parsed, user, seat)
    return command_run(inbound, parsed, user, seat)


def _without_token(inbound: InboundMessage, parsed: InboundEmail, user: Any | None) -> str:
    if user is None:
        # An unknown or unverified sender gets nothing: an answer could be backscatter.
        return inbound_message_finish(inbound, Status.DROPPED, "sender has no verified account")
    inbound.user = user
    kind = parsed.command.kind
    if kind in (CommandKind.NEW, CommandKind.HELP, CommandKind.VACATION):
        if not _believed(inbound):
            return _challenge(inbound, parsed, user, None)
        return command_run(inbound, parsed, user, None)
    if not _believed(inbound):
        _not_proven(inbound)
    return command_refuse(
        inbound,
        user,
        None,
        InboundRefusal(
            gettext(
                "This command is about a game: reply to that game's email (its reply address names your seat). "
                'To the service\'s own address you can write "new", "vacation <days>" or "help".'
            )
        ),
    )


# --- challenges and confirmations -----------------------------------------------------


def _command_record(command: Command) -> str:
    """What the message's record keeps of its command: as written, but a plan's
    lines are its owner's alone (docs/plans.md), so only the word "plan", and a
    table-talk line lives in the chat (where hiding it or erasing its author reaches
    it), so only the word "say"."""
    if command.kind in (CommandKind.PLAN, CommandKind.SAY):
        return command.kind.value
    return command.text[:200]


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
    if kind is CommandKind.PLAN:
        return f"store or show your plan{where}"
    if kind is CommandKind.SAY:
        return f"post your line in the table talk{where}"
    return f"carry out \"{command.text[:60]}\"{where}"


def _not_proven(inbound: InboundMessage) -> None:
    """The answer to this message says that it was not proven to come from its
    sender (notifications/email/_not_proven.txt): it answers, and nothing acted."""
    inbound.reply = {**inbound.reply, "not_proven": True}


def _challenge(inbound: InboundMessage, parsed: InboundEmail, user: Any, seat: Seat | None) -> str:
    """The From: is the account's address but could not be authenticated. The
    command is read first: one that changes nothing (the board, the moves, the
    help) or that would be refused (unreadable, not your turn, a turn that has
    passed, a move the rules forbid, a game over) is answered at once, with no
    code, to that address, saying that the email was not proven to be theirs.
    A command that would act does nothing yet: the address is mailed a code that
    carries it out when sent back. Whoever forged the From: gets nothing."""
    command = parsed.command
    _not_proven(inbound)
    if command.kind in (CommandKind.RESIGN, CommandKind.NEW):
        # These check what they can, then ask the owner for a code in any case:
        # that code is the challenge.
        return command_run(inbound, parsed, user, seat)
    if command.error or command.kind not in COMMAND_HANDLERS or command_only_answers(command):
        # A refusal before any handler, or a handler that only answers.
        return command_run(inbound, parsed, user, seat)
    try:
        command_check(parsed, user, seat)
    except DomainError as refusal:
        return command_refuse(inbound, user, seat, refusal)
    game = Game.objects.get(pk=seat.game_id) if seat is not None else None
    version = parsed.answers_version if parsed.answers_version is not None else (game.version if game else None)
    details = {
        "kind": command.kind.value,
        "text": "say" if command.kind is CommandKind.SAY else command.text[:200],
        # A table-talk line whole (the chat refuses it past 500 characters when confirmed).
        "argument": command.argument[: 2000 if command.kind is CommandKind.SAY else 200],
        "seat": seat.pk if seat is not None else None,
        "version": version,
        "summary": _summary(command, game),
    }
    return confirmation_ask(
        inbound, user, PendingConfirmation.Action.COMMAND, game, details, status=Status.CHALLENGED,
        outcome=f"{command.kind.value} waits for the owner's code: sender not authenticated ({inbound.authentication})",
    )  # fmt: skip


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
            return inbound_message_finish(inbound, Status.DROPPED, "no confirmation waits for that code")
        inbound.user = sender
        return command_refuse(
            inbound,
            sender,
            None,
            InboundRefusal(
                gettext(
                    "There is nothing waiting for that confirmation: the code is wrong, used or expired. "
                    "Send the command again for a new code."
                )
            ),
        )
    user = pending.user
    if _verified_user(user.email or "") != user:
        return inbound_message_finish(inbound, Status.DROPPED, "the code's account is no longer active")
    inbound.user = user
    inbound.game = pending.game
    try:
        if pending.action == PendingConfirmation.Action.RESIGN:
            assert pending.game is not None
            game_resign(game=pending.game, user=user)
            reply_send(inbound, "reply_done", user, pending.game, done="resign", understood=inbound.command)
            return inbound_message_finish(inbound, Status.APPLIED, "resigned")
        if pending.action == PendingConfirmation.Action.NEW_GAME:
            return new_game_create(inbound, user, pending.details)
    except DomainError as error:
        return command_refuse(inbound, user, None, error)
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
            refusal = InboundRefusal(gettext("That seat is no longer yours: nothing was done."))
            return command_refuse(inbound, user, None, refusal)
    inbound.command = _command_record(command)
    version = details.get("version")
    confirmed = replace(parsed, command=command, answers_version=version if isinstance(version, int) else None)
    return command_run(inbound, confirmed, user, seat)
