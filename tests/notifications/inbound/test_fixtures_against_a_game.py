"""The fixtures delivered to a real game: their token made the seat's own, so
each one's outcome is the service's, not only the parser's."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.core import mail
from tests.notifications.email_helpers import start_game
from tests.notifications.inbound.mail_helpers import authentication_results, receive

from games.models import Game, Move, Seat
from notifications.models import InboundMessage
from notifications.inbound.reply_tokens import reply_token_for

pytestmark = pytest.mark.django_db

FIXTURES = Path(__file__).parent / "fixtures"
TOKEN = b"12-0123456789abcdef01234567"
Status = InboundMessage.Status

# fixture -> (status, what the game shows after it)
OUTCOMES = {
    "gmail_top_posted.eml": (Status.APPLIED, "take WUG"),
    "thunderbird_flowed.eml": (Status.REFUSED, ""),  # a return with nothing to return: B-LIMIT-1
    "iphone.eml": (Status.APPLIED, "take RR"),
    "outlook_top_posted.eml": (Status.APPLIED, "take RR"),
    "quote_only.eml": (Status.REFUSED, ""),
    "forged_from.eml": (Status.DROPPED, ""),
    "stale_turn.eml": (Status.REFUSED, ""),
    "auto_reply.eml": (Status.DROPPED, ""),
    "latvian_base64.eml": (Status.APPLIED, ""),
}


def _deliver(commit: Any, game: Game, name: str) -> InboundMessage | None:
    game.refresh_from_db()
    seat = Seat.objects.select_related("user").get(game=game, index=game.to_move)
    raw = (FIXTURES / name).read_bytes().replace(TOKEN, reply_token_for(seat=seat).encode())
    raw = raw.replace(b"bob@example.com", seat.user.email.encode())
    raw = raw.replace(b".v7@", f".v{game.version}@".encode())
    if name == "stale_turn.eml":
        raw = raw.replace(b".v3@", f".v{game.version - 1}@".encode())
    # As the trusted mail host would have checked the player's own mail.
    return receive(commit, authentication_results(seat.user.email).encode() + b"\r\n" + raw)


@pytest.mark.parametrize("name", sorted(OUTCOMES))
def test_a_fixture_delivered_to_the_seat_to_move_ends_as_expected(
    name: str, clock: Any, commit: Any, alice: Any, bob: Any
) -> None:
    game = start_game(commit, alice, bob)
    status, played = OUTCOMES[name]
    inbound = _deliver(commit, game, name)
    assert inbound is not None
    assert inbound.status == status, inbound.outcome
    assert list(Move.objects.filter(game=game).values_list("text", flat=True)) == ([played] if played else [])


def test_a_fixture_delivered_twice_is_applied_once(clock: Any, commit: Any, alice: Any, bob: Any) -> None:
    game = start_game(commit, alice, bob)
    assert _deliver(commit, game, "gmail_top_posted.eml") is not None
    sent = len(mail.outbox)
    game.refresh_from_db()
    assert _deliver(commit, game, "gmail_top_posted.eml") is None
    assert Move.objects.filter(game=game).count() == 1
    assert len(mail.outbox) == sent
