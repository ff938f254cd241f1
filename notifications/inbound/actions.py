"""What each emailed command does, once the sender may act: a move, the board,
the legal moves, help, vacation, accepting or declining an invitation, and the
commands that first ask for a code (resign, a new game). Each handler takes the
stored message, the parsed email, the account and the seat the reply address
names, carries the command out through the games services (as the API does)
and answers; ``command_run`` picks the handler and turns a refusal into a reply.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Iterable
from datetime import timedelta
from typing import Any
from urllib.parse import urlencode

import engine
from engine.grammar import ENGLISH, grammar_for, word_key
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.mail import EmailMultiAlternatives
from django.db import transaction
from django.template.loader import render_to_string
from django.utils import timezone
from django.utils.translation import gettext, gettext_noop, ngettext

from core.errors import DomainError
from games import errors as game_errors
from games import selectors
from games.models import Game, Seat
from games.services import (
    game_create,
    move_check,
    move_submit,
    practice_game_create,
    seat_decline,
    seat_join,
    vacation_take,
)
from notifications.addresses import address_digest, address_redacted
from notifications.email.links import opt_out_url
from notifications.inbound import CommandKind, InboundEmail
from notifications.inbound.commands import Command, command_languages
from notifications.inbound.confirmations import confirmation_ask
from notifications.inbound.replies import InboundRefusal, command_refuse, inbound_message_finish, reply_send
from notifications.models import InboundMessage, InvitationOptOut, PendingConfirmation

logger = logging.getLogger(__name__)

Status = InboundMessage.Status


# commands.COMMAND_ERRORS, marked here for the catalog (the reader loads no Django).
_COMMAND_ERRORS = (
    gettext_noop('write the number of days alone after the word, e.g. "vacation 3"'),
    gettext_noop("%(word)s: give the number of seats once"),
    gettext_noop("%(word)s is not a variant or a number of seats"),
)


def _why(command: Command) -> str:
    """Why the command's arguments cannot be read, in the reader's language."""
    if command.error_template not in _COMMAND_ERRORS:
        return command.error
    why = gettext(command.error_template)
    return why % {"word": command.error_word} if "%(word)s" in why else why


def command_run(inbound: InboundMessage, parsed: InboundEmail, user: Any, seat: Seat | None) -> str:
    """Carry out the parsed command for ``user`` (who may act: the caller checked)
    and answer; a domain error becomes a refusal reply. Returns the message's status."""
    command = parsed.command
    try:
        if command.error:
            raise InboundRefusal(
                gettext("Could not read %(text)s: %(error)s.") % {"text": repr(command.text), "error": _why(command)},
                reason="no_command",
            )
        handler = COMMAND_HANDLERS.get(command.kind)
        if handler is None:
            if command.kind is CommandKind.UNKNOWN or command.kind is CommandKind.EMPTY:
                raise InboundRefusal(
                    gettext(
                        "No command found in your email. Write one command on the first line: a move such as "
                        '"take white blue green", or board, moves, resign, vacation <days> or help.'
                    ),
                    reason="no_command",
                )
            raise InboundRefusal(gettext("%(command)s cannot be used here.") % {"command": repr(command.kind.value)})
        return handler(inbound, parsed, user, seat)
    except DomainError as error:
        return command_refuse(inbound, user, seat, error)


def _needs_seat(seat: Seat | None) -> Seat:
    if seat is None:
        raise InboundRefusal(gettext("Reply to the game's email: its reply address names your seat."))
    return seat


def _move_checked(parsed: InboundEmail, user: Any, seat: Seat | None) -> tuple[Game, str]:
    """The game and the move's text as it would be played now; else the refusal
    it would meet (a domain error: not your turn, a turn that has passed, a game
    over, a move the rules forbid), found without playing anything."""
    seat = _needs_seat(seat)
    game = Game.objects.get(pk=seat.game_id)
    older = parsed.answers_version is not None and parsed.answers_version < game.version
    if game.status == Game.Status.ACTIVE and game.to_move != seat.index and not older:
        # Answering the game's latest email (or none) while another seat is to move.
        raise game_errors.NotYourTurn("It is not your turn.", to_move=game.to_move, your_seat=seat.index)
    passed = game.status != Game.Status.ACTIVE or game.to_move != seat.index or older
    if passed and game.status == Game.Status.ACTIVE:
        # A stale_version code: the refusal says "That turn has passed" (replies._STALE_CODES).
        raise game_errors.StaleVersion(
            "That turn has passed: the game has moved on since the email you answered. "
            "Here is the board as it is now.",
            current_version=game.version,
        )
    text = move_text_with_names(game, seat, parsed.command.argument, languages=command_languages(user))
    return game, text


def _move(inbound: InboundMessage, parsed: InboundEmail, user: Any, seat: Seat | None) -> str:
    game, text = _move_checked(parsed, user, seat)
    played = move_submit(game_id=game.pk, user=user, text=text, expected_version=game.version)
    move_text = played.move.text  # canonical and public: a blind reservation names no card
    reply_send(inbound, "reply_done", user, game, done="move", move=move_text, understood=inbound.command)
    return inbound_message_finish(inbound, Status.APPLIED, f"played {move_text}")


_CARD_REF = re.compile(r"^([1-3]-\d\d|deck ?[1-3]|[1-3]x|level ?[1-3] ?deck|[1-3][a-d]|h[1-3])$", re.IGNORECASE)
_DECK_REF = re.compile(r"^(\S+?) ?([1-3])$")


def _suffix(part_words: Iterable[str]) -> re.Pattern[str]:
    """Where a move's later parts begin (" return ", " noble ", " J:", in any language)."""
    return re.compile(r"\s(%s)\s|\sj:" % "|".join(map(re.escape, sorted(part_words))), re.IGNORECASE)


def _norm(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", text.lower())


def move_text_with_names(game: Game, seat: Seat, text: str, *, languages: Iterable[str] = (ENGLISH,)) -> str:
    """``buy Gamora``: a card named as the player sees it (the market, their own
    reserve) becomes its id, so a name never reaches a card they cannot see.
    A name that fits several visible cards is refused with the candidates.
    The move's words are read in English and ``languages`` (engine.grammar)."""
    grammar = grammar_for(languages)
    words = text.split(None, 1)
    if len(words) < 2 or grammar.verbs.get(word_key(words[0])) not in ("buy", "reserve") or game.state is None:
        return text
    padded = " " + words[1] + " "
    match = _suffix(grammar.parts).search(padded)
    argument = padded if match is None else padded[: match.start()]
    rest = "" if match is None else padded[match.start() :].rstrip()
    argument = argument.strip()
    deck = _DECK_REF.match(argument)
    if not argument or _CARD_REF.match(argument) or (deck is not None and word_key(deck.group(1)) in grammar.decks):
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
            gettext("%(argument)s fits several cards you can see: %(cards)s. Name one of them.")
            % {"argument": repr(argument), "cards": ", ".join(candidates)},
            rule="",
            choices=[f"{words[0]} {cid}{rest}" for cid in sorted(found)],
        )
    raise game_errors.InvalidNotation(
        gettext("No card named %(argument)s is in the market or your reserve.") % {"argument": repr(argument)}
    )


def _resign(inbound: InboundMessage, parsed: InboundEmail, user: Any, seat: Seat | None) -> str:
    seat = _needs_seat(seat)
    game = Game.objects.get(pk=seat.game_id)
    if game.status != Game.Status.ACTIVE:
        raise game_errors.GameNotActive(gettext("You can resign only while the game is being played."))
    return confirmation_ask(inbound, user, PendingConfirmation.Action.RESIGN, game, {})


def _board(inbound: InboundMessage, parsed: InboundEmail, user: Any, seat: Seat | None) -> str:
    seat = _needs_seat(seat)
    show = "moves" if parsed.command.kind is CommandKind.MOVES else "board"
    reply_send(inbound, "reply_board", user, seat.game, show=show)
    return inbound_message_finish(inbound, Status.APPLIED, f"sent the {show}")


def _help(inbound: InboundMessage, parsed: InboundEmail, user: Any, seat: Seat | None) -> str:
    reply_send(inbound, "reply_board", user, seat.game if seat is not None else None, show="help")
    return inbound_message_finish(inbound, Status.APPLIED, "sent help")


def _vacation(inbound: InboundMessage, parsed: InboundEmail, user: Any, seat: Seat | None) -> str:
    vacation_take(user=user, days=int(parsed.command.argument))
    return inbound_message_finish(inbound, Status.APPLIED, f"vacation of {parsed.command.argument} days")


def _accept(inbound: InboundMessage, parsed: InboundEmail, user: Any, seat: Seat | None) -> str:
    seat = _needs_seat(seat)
    game = Game.objects.get(pk=seat.game_id)
    seat_join(game=game, user=user)
    reply_send(inbound, "reply_done", user, game, done="accept", understood=inbound.command)
    return inbound_message_finish(inbound, Status.APPLIED, "joined")


def _decline(inbound: InboundMessage, parsed: InboundEmail, user: Any, seat: Seat | None) -> str:
    seat = _needs_seat(seat)
    seat_decline(game_id=seat.game_id, user=user)
    return inbound_message_finish(inbound, Status.APPLIED, "declined")


# --- new games by email ---------------------------------------------------------------


def _new(inbound: InboundMessage, parsed: InboundEmail, user: Any, seat: Seat | None) -> str:
    command = parsed.command
    variant = command.variant or "base"
    if variant not in engine.VARIANTS:
        raise InboundRefusal(
            gettext("%(variant)s is not a variant; choose one of: %(variants)s.")
            % {"variant": repr(variant), "variants": ", ".join(engine.VARIANTS)}
        )
    invite = [address for address in command.invite if address != (user.email or "").lower()]
    if command.bots:
        if invite:
            raise InboundRefusal(gettext("A game is against people or against bots, not both: name addresses or bots."))
        bots = list(command.bots)
        if command.seats is not None and command.seats != 1 + len(bots):
            raise InboundRefusal(
                ngettext(
                    "A practice game has your seat and one per bot: %(bots)s bot makes %(seats)s seats, not %(asked)s.",
                    "A practice game has your seat and one per bot: %(bots)s bots make %(seats)s seats, not %(asked)s.",
                    len(bots),
                )
                % {"bots": len(bots), "seats": 1 + len(bots), "asked": command.seats}
            )
        if len(bots) > 3:
            raise InboundRefusal(gettext("A practice game has at most 3 bots beside you."))
        details_practice = {"variant": variant, "seats": 1 + len(bots), "invite": [], "bots": bots}
        return confirmation_ask(inbound, user, PendingConfirmation.Action.NEW_GAME, None, details_practice)
    seats = command.seats or max(2, 1 + len(invite))
    if len(invite) > seats - 1:
        raise InboundRefusal(
            ngettext(
                "You invited %(n)s player but a %(seats)s-seat game has %(free)s besides yours.",
                "You invited %(n)s players but a %(seats)s-seat game has %(free)s besides yours.",
                len(invite),
            )
            % {"n": len(invite), "seats": seats, "free": seats - 1}
        )
    details = {"variant": variant, "seats": seats, "invite": invite}
    # From: can be forged: nobody is invited until the account's owner confirms.
    return confirmation_ask(inbound, user, PendingConfirmation.Action.NEW_GAME, None, details)


def new_game_create(inbound: InboundMessage, user: Any, details: dict[str, Any]) -> str:
    """The confirmed ``new``: create the game, invite the players who have an
    account and mail the other addresses a link to sign up (after commit); or,
    with bots, a practice game against them (it sends no turn email)."""
    bots = [str(name) for name in details.get("bots", [])]
    if bots:
        practice = practice_game_create(creator=user, variant=str(details.get("variant", "base")), bots=bots)
        inbound.game = practice
        reply_send(
            inbound, "reply_done", user, practice, done="practice_game", bots=bots, understood=inbound.command
        )
        return inbound_message_finish(inbound, Status.APPLIED, f"created practice game {practice.pk}")
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
            ngettext(
                "You can invite at most %(limit)s player a day and have invited %(sent)s in the last 24 hours.",
                "You can invite at most %(limit)s players a day and have invited %(sent)s in the last 24 hours.",
                limit,
            )
            % {"limit": limit, "sent": sent}
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
    reply_send(inbound, "reply_done", user, game, done="new_game", invited=len(addresses), understood=inbound.command)
    return inbound_message_finish(inbound, Status.APPLIED, f"created game {game.pk}")


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


# The handler of each command kind that acts (confirm is carried out by
# notifications.inbound.services; unknown and empty are refused). Apps above games
# add theirs with command_handler_register (say: chat.inbound).
CommandHandler = Callable[[InboundMessage, InboundEmail, Any, "Seat | None"], str]
COMMAND_HANDLERS: dict[CommandKind, CommandHandler] = {
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


def command_only_answers(command: Command) -> bool:
    """Whether carrying the command out changes nothing and only answers: the
    board, the legal moves, the help, the plan shown (``plan`` alone)."""
    if command.kind is CommandKind.PLAN:
        return not command.argument.strip()
    return command.kind in (CommandKind.BOARD, CommandKind.MOVES, CommandKind.HELP)


def command_check(parsed: InboundEmail, user: Any, seat: Seat | None) -> None:
    """Raise the refusal (a domain error) that carrying out the command now would
    meet, as far as it is known without acting: for a command that waits for a
    code (its sender not proven), so that a refusal is answered at once rather
    than after the code. A move is checked as it would be played (whose turn,
    which email it answers, the rules: games.services.move_check); the other
    commands are checked when carried out."""
    command = parsed.command
    if command.kind is CommandKind.MOVE:
        game, text = _move_checked(parsed, user, seat)
        move_check(game_id=game.pk, user=user, text=text, expected_version=game.version)


def command_handler_register(kind: CommandKind, handler: CommandHandler) -> None:
    """Have ``handler(inbound, parsed, user, seat)`` carry out ``kind`` (an app's own
    command, such as table talk's ``say``); it returns the message's status."""
    COMMAND_HANDLERS[kind] = handler
