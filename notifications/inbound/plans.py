"""Conditional moves ("plans", docs/plans.md) by email.

A reply whose first command is ``if <move> then <move>`` (``se … allora …``,
``ja … tad …``) stores the plan those lines make, replacing the seat's plan; a
line indented deeper than the one above it is one of that line's ``next`` lines.
``plan`` alone answers with the stored plan, ``plan clear`` clears it. The
answer (kind ``reply_plan``) lists the plan as stored.

A plan is its owner's alone: the message's record keeps the word "plan" as its
command, never the lines, and the answer reads the plan from the seat when it is
written. Every later email about the game to the plan's owner says what the plan
did in the last round (``plan_section``). The email stores and clears plans
through ``games.services`` and fires none: a plan fires in the turn machinery,
inside the change that applies the move before its seat's turn (``games.plans``).
"""

from __future__ import annotations

from typing import Any, cast

import engine
from django.template.loader import render_to_string
from django.utils.safestring import mark_safe
from django.utils.translation import gettext

from core.errors import InvalidInput
from engine.grammar import grammar_for, plan_text_read, word_key
from games import errors as game_errors
from games.models import Game, Seat
from games.plans.lines import PlanOutcome, line_rows, outcome_sentence, plan_stored
from games.services import plan_clear, plan_store
from notifications.email.render import EmailSection, KindContext, email_section_register, renderer, renderer_for, seat_of
from notifications.inbound import CommandKind, InboundEmail
from notifications.inbound.actions import command_handler_register
from notifications.inbound.commands import command_languages
from notifications.inbound.replies import InboundRefusal, inbound_message_finish, reply_send
from notifications.models import InboundMessage, Notification



def _paths(lines: list[dict[str, object]], prefix: str = "lines") -> list[str]:
    """Each line's path (``lines[0].next[1]``), depth first: the order
    ``plan_text_read`` gives the written lines in."""
    paths: list[str] = []
    for index, line in enumerate(lines):
        path = f"{prefix}[{index}]"
        paths.append(path)
        following = line.get("next")
        paths.extend(_paths(following if isinstance(following, list) else [], f"{path}.next"))
    return paths


def _refusal(error: InvalidInput, lines: list[dict[str, object]], written: list[str]) -> InboundRefusal:
    """The service's errors by path, as the numbered lines of the email."""
    number_of = {path: number for number, path in enumerate(_paths(lines), start=1)}
    said = []
    for path, messages in error.errors.items():
        line_path = path.rsplit(".", 1)[0] if path.endswith((".if", ".then")) else path
        number = number_of.get(line_path)
        where = gettext("Line %(n)s (%(line)s)") % {"n": number, "line": written[number - 1]} if number else gettext(
            "The plan")
        said.append(f"{where}: {' '.join(messages)}")
    return InboundRefusal(gettext("Your plan is not stored. %(errors)s") % {"errors": " ".join(said)})


def plan(inbound: InboundMessage, parsed: InboundEmail, user: Any, seat: Seat | None) -> str:
    if seat is None:
        raise InboundRefusal(gettext("Reply to the game's email: its reply address names your seat."))
    game = Game.objects.get(pk=seat.game_id)
    languages = command_languages(user)
    grammar = grammar_for(languages)
    argument = parsed.command.argument.strip()
    # The record of the message names no line of the plan (admins read it).
    inbound.command = "plan"
    if not argument:
        reply_send(inbound, "reply_plan", user, game, done="shown")
        return inbound_message_finish(inbound, InboundMessage.Status.APPLIED, "sent the plan")
    if grammar.plans.get(word_key(argument)) == "clear":
        plan_clear(game_id=game.pk, user=user)
        reply_send(inbound, "reply_plan", user, game, done="cleared")
        return inbound_message_finish(inbound, InboundMessage.Status.APPLIED, "cleared the plan")
    lines, written = plan_text_read(argument, grammar)
    if not lines:
        raise InboundRefusal(gettext('Write "plan" to see your plan, or "plan clear" to clear it.'))
    # Read on the game as it is now, whichever email this answers: a waiting player
    # has often no email newer than the game's start, and each line is judged
    # when it fires (docs/plans.md).
    try:
        plan_store(
            game_id=game.pk, user=user, lines=lines, expected_version=game.version, languages=languages
        )
    except InvalidInput as error:
        raise _refusal(error, lines, written) from None
    reply_send(inbound, "reply_plan", user, game, done="stored")
    return inbound_message_finish(inbound, InboundMessage.Status.APPLIED, f"stored a plan of {len(written)} lines")


def _plan_rows(seat: Seat | None) -> list[dict[str, object]]:
    if seat is None:
        return []
    return [{"indent": "  " * depth, "depth": depth, "text": text}
            for depth, text in line_rows(plan_stored(seat.plan), seat.game.variant)]


def _recent_outcomes(game: Game, seat: Seat) -> list[str]:
    """What the plan did in the last round (since the seat's turn before)."""
    if game.state is None or not seat.plan_outcomes:
        return []
    ply = engine.from_dict(game.state).ply
    outcomes = [cast(PlanOutcome, o) for o in (seat.plan_outcomes or []) if isinstance(o, dict)]
    return [outcome_sentence(o, game.variant) for o in outcomes if int(o.get("ply", -1)) >= ply - game.seat_count]


@renderer("reply_plan")
def render_reply_plan(notification: Notification) -> KindContext:
    """The answer to a plan command: the plan as it is stored now."""
    answer = renderer_for("reply_done")(notification)
    game = notification.game
    seat = seat_of(game, notification.user_id) if game is not None else None
    return KindContext(
        {**answer.context, "plan_rows": _plan_rows(seat)},
        seat=answer.seat,
        reply_to=answer.reply_to,
        headers=answer.headers,
        to=answer.to,
    )


def plan_section(notification: Notification) -> EmailSection | None:
    """In every email about an active game to a seat's holder: what their plan
    did in the last round and what is left of it. Never in anyone else's."""
    game = notification.game
    if game is None or notification.kind == "reply_plan" or game.status != Game.Status.ACTIVE:
        return None
    seat = next((s for s in game.seats.all() if s.user_id == notification.user_id and s.has_joined), None)
    if seat is None:
        return None
    said = _recent_outcomes(game, seat)
    rows = _plan_rows(seat)
    if not said and not rows:
        return None
    context = {"said": said, "plan_rows": rows}
    return EmailSection(
        text=render_to_string("notifications/email/_plan.txt", context).strip(),
        html=mark_safe(render_to_string("notifications/email/_plan.html", context)),  # noqa: S308 (a template's output)
    )


command_handler_register(CommandKind.PLAN, plan)
email_section_register(plan_section)
