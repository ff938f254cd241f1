"""What the replies to emailed commands show: the renderers of the ``reply_*``
kinds, registered with the email renderers (notifications.email.render) from
here; their templates are ``notifications/email/reply_*``.

Their key is ``inbound:<inbound message id>:<kind>:<user id>``; what the reply
says about the command is in that message's ``reply`` (written by
notifications.inbound.replies). The board is read when the reply is rendered, as
the recipient's seat sees it. Replies go to the service's own address
(``new@EMAIL_REPLY_DOMAIN``) unless they are about a seat.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import engine
from django.conf import settings
from django.urls import reverse
from django.utils.translation import npgettext, pgettext

from accounts.selectors import email_address_get
from games.models import Game, Seat
from notifications.email.render import (
    KindContext,
    board_for,
    game_url,
    local_time,
    move_examples,
    renderer,
    seat_of,
    site_url,
)
from notifications.models import InboundMessage, Notification

# Legal moves listed in full by "moves" at most (the rest are counted).
MOVES_LISTED = 60


def _inbound_reply(notification: Notification) -> dict[str, Any]:
    parts = notification.key.split(":")
    if len(parts) < 2 or parts[0] != "inbound" or not parts[1].isdigit():
        return {}
    reply = InboundMessage.objects.filter(pk=int(parts[1])).values_list("reply", flat=True).first()
    return dict(reply) if isinstance(reply, dict) else {}


def _service_address() -> str:
    return f"new@{settings.EMAIL_REPLY_DOMAIN}"


def _game_context(notification: Notification) -> tuple[Seat | None, dict[str, Any]]:
    game = notification.game
    if game is None:
        return None, {"board": None, "examples": [], "game_url": ""}
    seat = seat_of(game, notification.user_id)
    index = seat.index if seat is not None else None
    return seat, {
        "board": board_for(game, index),
        "examples": move_examples(game, index) if index is not None else [],
        "game_url": game_url(game, seat),
    }


def _thread(reply: dict[str, Any], *, own_subject: bool = False) -> dict[str, Any]:
    """The reply's threading: ``headers`` (In-Reply-To and References, naming the
    message answered) and ``reply_subject`` ("Re: " and its subject; "" keeps the
    kind's own subject: a subject from a sender not believed is not recorded, see
    notifications.inbound.replies, and a warning keeps its own, ``own_subject``)."""
    thread = reply.get("thread")
    thread = thread if isinstance(thread, dict) else {}
    headers = {}
    if thread.get("in_reply_to") and thread.get("references"):
        headers = {"In-Reply-To": str(thread["in_reply_to"]), "References": str(thread["references"])}
    subject = "" if own_subject else str(thread.get("subject") or "")
    return {"headers": headers, "reply_subject": subject}


def legal_move_texts(game: Game, seat_index: int) -> list[str]:
    """Every legal move of the seat in notation when it is to move, else none."""
    if game.state is None or game.status != Game.Status.ACTIVE or game.to_move != seat_index:
        return []
    state = engine.from_dict(game.state)
    if engine.is_over(state) or engine.to_move(state) != seat_index:
        return []
    return [engine.format_move(move) for move in engine.legal_moves(state)]


def _answer(notification: Notification, *, own_subject: bool = False, **extra: Any) -> KindContext:
    """The context every reply about a game (or none) has, threaded under the message it answers."""
    seat, context = _game_context(notification)
    reply = _inbound_reply(notification)
    thread = _thread(reply, own_subject=own_subject)
    return KindContext(
        {**context, "reply": reply, "reply_subject": thread["reply_subject"], **extra},
        seat=seat,
        reply_to=_service_address(),
        headers=thread["headers"],
        to=_answer_address(notification, reply),
    )


def _answer_address(notification: Notification, reply: dict[str, Any]) -> str:
    """The verified added address the message came from, while it is still the
    recipient's and verified: the answer goes there ("" is the primary address)."""
    address_id = reply.get("answer_address_id")
    if not isinstance(address_id, int):
        return ""
    entry = email_address_get(user=notification.user, address_id=address_id)
    return entry["address"] if entry is not None and entry["verified"] else ""


@renderer("reply_refused")
def render_reply_refused(notification: Notification) -> KindContext:
    return _answer(notification)


@renderer("reply_done")
def render_reply_done(notification: Notification) -> KindContext:
    return _answer(notification)


@renderer("reply_confirm")
def render_reply_confirm(notification: Notification) -> KindContext:
    reply = _inbound_reply(notification)
    details = reply.get("details")
    what = _asked_what(details if isinstance(details, dict) else {}, notification.game)
    # The line to send back, with the English command word every door reads
    # (the code may come back from any address, whoever's language it has).
    confirm_line = f"confirm {reply.get('confirm_code', '')}"
    return _answer(notification, what=what, confirm_line=confirm_line)


def _asked_what(details: dict[str, Any], game: Game | None) -> str:
    """What a challenged email asked for, in the reader's language, to follow
    "asked to" and "Please confirm:": the command as its sender wrote it and the
    game it names (nothing else of the game)."""
    kind = str(details.get("kind") or "")
    values = {
        "move": str(details.get("argument") or "")[:60],
        "text": str(details.get("text") or "")[:60],
        "id": game.pk if game is not None else "",
    }
    if kind == "help":
        return pgettext("asked to", "send you the list of commands")
    if kind == "vacation":
        argument = str(details.get("argument") or "").strip()
        days = int(argument) if argument.isdigit() else 0
        words = npgettext("asked to", "pause your games for %(days)s day", "pause your games for %(days)s days", days)
        return words % {"days": argument}
    with_game = {
        "move": pgettext("asked to", "play %(move)s in game %(id)s"),
        "board": pgettext("asked to", "send you the board in game %(id)s"),
        "moves": pgettext("asked to", "send you your legal moves in game %(id)s"),
        "accept": pgettext("asked to", "take your seat in game %(id)s"),
        "decline": pgettext("asked to", "decline the invitation in game %(id)s"),
    }
    without_game = {
        "move": pgettext("asked to", "play %(move)s"),
        "board": pgettext("asked to", "send you the board"),
        "moves": pgettext("asked to", "send you your legal moves"),
        "accept": pgettext("asked to", "take your seat"),
        "decline": pgettext("asked to", "decline the invitation"),
    }
    if game is not None:
        words = with_game.get(kind) or pgettext("asked to", 'carry out "%(text)s" in game %(id)s')
    else:
        words = without_game.get(kind) or pgettext("asked to", 'carry out "%(text)s"')
    return words % values


@renderer("reply_codes_limit")
def render_reply_codes_limit(notification: Notification) -> KindContext:
    """The hour's codes are used up: when they work again, in the recipient's time zone."""
    reply = _inbound_reply(notification)
    try:
        again = datetime.fromisoformat(str(reply.get("again_at") or ""))
    except ValueError:
        again = None
    return _answer(notification, again=local_time(again, notification.user))


@renderer("reply_board")
def render_reply_board(notification: Notification) -> KindContext:
    reply = _inbound_reply(notification)
    game = notification.game
    seat = seat_of(game, notification.user_id) if game is not None else None
    moves: list[str] = []
    if reply.get("show") == "moves" and game is not None and seat is not None and seat.index is not None:
        moves = legal_move_texts(game, seat.index)
    return _answer(
        notification,
        moves=moves[:MOVES_LISTED],
        more_moves=max(0, len(moves) - MOVES_LISTED),
        reply_domain=settings.EMAIL_REPLY_DOMAIN,
    )


@renderer("reply_unauthorised")
def render_reply_unauthorised(notification: Notification) -> KindContext:
    # No seat: the warning must not carry a reply address for the seat. It keeps
    # its own subject (the message it is about may be a forger's).
    reply = _inbound_reply(notification)
    context = {"reply": reply, "game_url": "", "emails_url": f"{site_url()}{reverse('accounts-email-addresses')}",
               "waiting_address": _waiting_address(notification, reply)}  # fmt: skip
    return KindContext(context, headers=_thread(reply, own_subject=True)["headers"])


def _waiting_address(notification: Notification, reply: dict[str, Any]) -> str:
    """The recipient's own added address the warned-about reply came from, while
    it is still theirs and not verified ("" otherwise). Read now, from its id:
    the message's record keeps no address."""
    address_id = reply.get("address_id")
    if not isinstance(address_id, int):
        return ""
    entry = email_address_get(user=notification.user, address_id=address_id)
    return entry["address"] if entry is not None and not entry["verified"] else ""
