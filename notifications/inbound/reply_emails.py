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

from typing import Any

import engine
from django.conf import settings

from games.models import Game, Seat
from notifications.email.render import KindContext, board_for, game_url, move_examples, renderer, seat_of
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


def legal_move_texts(game: Game, seat_index: int) -> list[str]:
    """Every legal move of the seat in notation when it is to move, else none."""
    if game.state is None or game.status != Game.Status.ACTIVE or game.to_move != seat_index:
        return []
    state = engine.from_dict(game.state)
    if engine.is_over(state) or engine.to_move(state) != seat_index:
        return []
    return [engine.format_move(move) for move in engine.legal_moves(state)]


@renderer("reply_refused")
def render_reply_refused(notification: Notification) -> KindContext:
    seat, context = _game_context(notification)
    return KindContext({**context, "reply": _inbound_reply(notification)}, seat=seat, reply_to=_service_address())


@renderer("reply_done")
def render_reply_done(notification: Notification) -> KindContext:
    seat, context = _game_context(notification)
    return KindContext({**context, "reply": _inbound_reply(notification)}, seat=seat, reply_to=_service_address())


@renderer("reply_confirm")
def render_reply_confirm(notification: Notification) -> KindContext:
    seat, context = _game_context(notification)
    return KindContext({**context, "reply": _inbound_reply(notification)}, seat=seat, reply_to=_service_address())


@renderer("reply_board")
def render_reply_board(notification: Notification) -> KindContext:
    seat, context = _game_context(notification)
    reply = _inbound_reply(notification)
    moves: list[str] = []
    if reply.get("show") == "moves" and notification.game is not None and seat is not None and seat.index is not None:
        moves = legal_move_texts(notification.game, seat.index)
    return KindContext(
        {**context, "reply": reply, "moves": moves[:MOVES_LISTED], "more_moves": max(0, len(moves) - MOVES_LISTED),
         "reply_domain": settings.EMAIL_REPLY_DOMAIN},
        seat=seat,
        reply_to=_service_address(),
    )  # fmt: skip


@renderer("reply_unauthorised")
def render_reply_unauthorised(notification: Notification) -> KindContext:
    # No seat: the warning must not carry a reply address for the seat.
    reply = _inbound_reply(notification)
    return KindContext({"reply": reply, "game_url": ""})
