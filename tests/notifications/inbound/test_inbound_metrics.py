"""Inbound replies are counted by outcome and reason (splendor_inbound_replies_total):
what an operator watches to see replies refused, and why."""

from __future__ import annotations

from typing import Any

import pytest
from tests.factories import seat_to_move
from tests.metrics_helpers import value
from tests.notifications.email_helpers import start_game
from tests.notifications.inbound.mail_helpers import examples_in, latest, receive, reply_bytes

from games.models import Game
from notifications.inbound.replies import inbound_reason
from notifications.models import InboundMessage

pytestmark = pytest.mark.django_db

Status = InboundMessage.Status


def _count(outcome: str, reason: str) -> float:
    return value("splendor_inbound_replies_total", outcome=outcome, reason=reason)


def test_applied_refused_and_dropped_replies_are_counted_with_their_reason(
    clock: Any, commit: Any, alice: Any, bob: Any
) -> None:
    game = start_game(commit, alice, bob)
    player = seat_to_move(game).user
    other = alice if player == bob else bob
    turn_email = latest(player, "Your turn")
    before = {
        key: _count(*key)
        for key in [("applied", ""), ("refused", "no_command"), ("dropped", "wrong_sender"),
                    ("challenged", "unauthenticated"), ("dropped", "auto_reply"), ("refused", "stale_turn")]
    }
    assert receive(commit, reply_bytes(turn_email, sender=player.email, body="Thanks, thinking.")).status == Status.REFUSED
    assert receive(commit, reply_bytes(turn_email, sender=other.email, body="take WUG")).status == Status.DROPPED
    unauthenticated = receive(commit, reply_bytes(turn_email, sender=player.email, body="take WUG", authenticated=False))
    assert unauthenticated.status == Status.CHALLENGED
    auto = receive(commit, reply_bytes(turn_email, sender=player.email, body="I am away",
                                       headers=("Auto-Submitted: auto-replied",)))
    assert auto.status == Status.DROPPED
    move = examples_in(turn_email)[0]
    assert receive(commit, reply_bytes(turn_email, sender=player.email, body=move)).status == Status.APPLIED
    stale = receive(commit, reply_bytes(turn_email, sender=player.email, body=move))
    assert stale.status == Status.REFUSED
    after = {key: _count(*key) for key in before}
    assert after == {key: count + 1 for key, count in before.items()}


@pytest.mark.parametrize(
    "status, outcome, reason",
    [
        (Status.APPLIED, "played take WUG", ""),
        (Status.CHALLENGED, "move waits for the owner's code", "unauthenticated"),
        (Status.REFUSED, "stale_version: That turn has passed", "stale_turn"),
        (Status.REFUSED, "illegal_move: You cannot afford it", "illegal_move"),
        (Status.DROPPED, "auto-reply", "auto_reply"),
        (Status.DROPPED, "bulk or list mail", "auto_reply"),
        (Status.DROPPED, "bounce", "bounce"),
        (Status.DROPPED, "unreadable: no text part", "unreadable"),
        (Status.DROPPED, "sender not authenticated; nothing to confirm", "unauthenticated"),
        (Status.DROPPED, "sender is not the seat's player", "wrong_sender"),
        (Status.DROPPED, "sender has no verified account", "unknown_sender"),
        (Status.DROPPED, "reply address not valid", "bad_address"),
        (Status.DROPPED, "error replies limit reached; illegal_move: no", "rate_limited"),
        (Status.DROPPED, "move: the codes limit per hour is reached; nothing sent", "rate_limited"),
        (Status.DROPPED, "no confirmation waits for that code", "bad_code"),
        (Status.DROPPED, "something new", "other"),
    ],
)
def test_each_outcome_has_one_reason_from_a_fixed_set(status: str, outcome: str, reason: str) -> None:
    assert inbound_reason(status, outcome) == reason
