"""Replies from an account's other addresses (accounts.models.EmailAddress).

A reply from any verified address of the seat holder plays, after the same
sender authentication as from the primary address, and is answered at the
address it came from; one that fails the authentication is challenged there.
An address that is not verified never plays: the primary address is told
plainly that the move was not played and how to verify the address.

Personas: alice and bob play; whoever is to move has a phone whose address
(PHONE) is added to their account, verified or not as each test says; eve is a
stranger who has the player's reply address.
"""

from __future__ import annotations

import logging
import re
from typing import Any

import pytest
from django.core import mail
from django.utils import timezone
from tests.factories import seat_to_move
from tests.notifications.email_helpers import headline_of, start_game
from tests.notifications.inbound.mail_helpers import latest, receive, reply_bytes

from accounts.models import EmailAddress
from games.models import Move
from notifications.inbound.commands import CODE_ALPHABET
from notifications.models import InboundMessage, Notification, PendingConfirmation

pytestmark = pytest.mark.django_db

Status = InboundMessage.Status
PHONE = "player.phone@mobile.example"
GROUP = f"[{CODE_ALPHABET}]{{4}}"
CODE = re.compile(rf"^\s*confirm ({GROUP}-{GROUP}-{GROUP})\s*$", re.MULTILINE)


def _phone(user: Any, *, verified: bool) -> EmailAddress:
    return EmailAddress.objects.create(user=user, address=PHONE, verified_at=timezone.now() if verified else None)


def _sent_to(address: str, kind: str) -> Any:
    """The newest email of ``kind`` that went to ``address``."""
    sent = Notification.objects.filter(kind=kind, status=Notification.Status.SENT)
    ids = set(sent.values_list("message_id", flat=True))
    for message in reversed(mail.outbox):
        if message.to == [address] and message.extra_headers.get("Message-ID") in ids:
            return message
    raise AssertionError(f"no {kind} email to {address}")


def test_a_reply_from_a_verified_second_address_plays_and_is_answered_there(
    clock: Any, commit: Any, alice: Any, bob: Any
) -> None:
    game = start_game(commit, alice, bob)
    player = seat_to_move(game).user
    _phone(player, verified=True)
    inbound = receive(commit, reply_bytes(latest(player, "Your turn"), sender=PHONE, body="take WUG"))
    assert inbound is not None and inbound.status == Status.APPLIED, inbound and inbound.outcome
    assert Move.objects.get(game=game, ply=0).text == "take WUG"
    assert "Your move take white, blue and green is played" in _sent_to(PHONE, "reply_done").body


def test_a_second_address_is_found_whatever_its_case(clock: Any, commit: Any, alice: Any, bob: Any) -> None:
    game = start_game(commit, alice, bob)
    player = seat_to_move(game).user
    _phone(player, verified=True)
    inbound = receive(commit, reply_bytes(latest(player, "Your turn"), sender=PHONE.upper(), body="take WUG"))
    assert inbound is not None and inbound.status == Status.APPLIED


def test_game_email_still_goes_to_the_primary_address(clock: Any, commit: Any, alice: Any, bob: Any) -> None:
    game = start_game(commit, alice, bob)
    mover = seat_to_move(game).user
    other = alice if mover == bob else bob
    _phone(other, verified=True)
    receive(commit, reply_bytes(latest(mover, "Your turn"), sender=mover.email, body="take WUG"))
    assert latest(other, "Your turn").to == [other.email]
    assert not [message for message in mail.outbox if PHONE in message.to]


def test_an_unauthenticated_reply_from_a_second_address_is_challenged_at_that_address(
    clock: Any, commit: Any, alice: Any, bob: Any
) -> None:
    game = start_game(commit, alice, bob)
    player = seat_to_move(game).user
    _phone(player, verified=True)
    turn_email = latest(player, "Your turn")
    before = len(mail.outbox)
    inbound = receive(commit, reply_bytes(turn_email, sender=PHONE, body="take WUG", authenticated=False))
    assert inbound is not None and inbound.status == Status.CHALLENGED
    assert not Move.objects.filter(game=game).exists()
    sent = mail.outbox[before:]
    assert [message.to for message in sent] == [[PHONE]]
    assert headline_of(sent[0]) == f"Please confirm: play take WUG in game {game.pk}"
    match = CODE.search(str(sent[0].body))
    assert match is not None, sent[0].body
    answered = reply_bytes(sent[0], sender=PHONE, body=f"confirm {match.group(1)}", authenticated=False)
    confirmed = receive(commit, answered)
    assert confirmed is not None and confirmed.status == Status.APPLIED
    assert Move.objects.get(game=game, ply=0).text == "take WUG"


def test_a_reply_from_an_unverified_address_plays_nothing_and_the_primary_is_told_how_to_verify_it(
    clock: Any, commit: Any, alice: Any, bob: Any
) -> None:
    game = start_game(commit, alice, bob)
    player = seat_to_move(game).user
    _phone(player, verified=False)
    before = len(mail.outbox)
    inbound = receive(commit, reply_bytes(latest(player, "Your turn"), sender=PHONE, body="take WUG"))
    assert inbound is not None and inbound.status == Status.DROPPED
    assert not Move.objects.filter(game=game).exists()
    assert not PendingConfirmation.objects.exists()
    sent = mail.outbox[before:]
    assert [message.to for message in sent] == [[player.email]]  # nothing goes to the unverified address
    warning = sent[0]
    assert headline_of(warning) == f"Your move in game {game.pk} was not played: that address is not verified"
    body = str(warning.body)
    assert PHONE in body
    assert "The move was not played" in body
    assert "/accounts/email/addresses/" in body and "email settings page" in body
    assert "nothing needs doing" not in body
    assert "/api/" not in body and "POST" not in body


def test_a_reply_from_a_stranger_tells_the_owner_the_move_was_not_played_and_how_to_add_an_address(
    clock: Any, commit: Any, alice: Any, bob: Any
) -> None:
    game = start_game(commit, alice, bob)
    player = seat_to_move(game).user
    inbound = receive(commit, reply_bytes(latest(player, "Your turn"), sender="eve@evil.example", body="take WUG"))
    assert inbound is not None and inbound.status == Status.DROPPED
    warning = latest(player, "Someone tried to play for you")
    body = str(warning.body)
    assert "The move was not played" in body
    assert "e***@evil.example" in body and "eve@evil.example" not in body
    assert "add that address on your email settings page" in body and "/accounts/email/addresses/" in body
    assert "nothing needs doing" not in body
    assert "/api/" not in body
    assert "not played" in warning.alternatives[0][0]


def test_a_removed_address_no_longer_plays(clock: Any, commit: Any, alice: Any, bob: Any) -> None:
    game = start_game(commit, alice, bob)
    player = seat_to_move(game).user
    _phone(player, verified=True).delete()
    inbound = receive(commit, reply_bytes(latest(player, "Your turn"), sender=PHONE, body="take WUG"))
    assert inbound is not None and inbound.status == Status.DROPPED
    assert not Move.objects.filter(game=game).exists()


def test_another_accounts_verified_address_does_not_play_for_this_seat(
    clock: Any, commit: Any, alice: Any, bob: Any
) -> None:
    game = start_game(commit, alice, bob)
    player = seat_to_move(game).user
    other = alice if player == bob else bob
    _phone(other, verified=True)
    inbound = receive(commit, reply_bytes(latest(player, "Your turn"), sender=PHONE, body="take WUG"))
    assert inbound is not None and inbound.status == Status.DROPPED
    assert latest(player, "Someone tried to play for you")


def test_help_from_a_verified_second_address_is_answered_there(commit: Any, alice: Any) -> None:
    _phone(alice, verified=True)
    raw = reply_bytes(None, sender=PHONE, body="help", to="new@reply.splendor.test")
    inbound = receive(commit, raw)
    assert inbound is not None and inbound.status == Status.APPLIED, inbound and inbound.outcome
    assert _sent_to(PHONE, "reply_board")


def test_no_address_of_the_player_is_logged(
    clock: Any, commit: Any, alice: Any, bob: Any, caplog: Any, log_format: str
) -> None:
    caplog.set_level(logging.DEBUG)
    game = start_game(commit, alice, bob)
    player = seat_to_move(game).user
    phone = _phone(player, verified=False)
    receive(commit, reply_bytes(latest(player, "Your turn"), sender=PHONE, body="take WUG"))
    phone.verified_at = timezone.now()
    phone.save()
    receive(commit, reply_bytes(latest(player, "Your turn"), sender=PHONE, body="take WUG"))
    assert Move.objects.filter(game=game).exists()
    assert PHONE not in caplog.text and "player.phone" not in caplog.text
    assert player.email not in caplog.text
    # The message's record keeps no address either.
    assert all(PHONE not in str(row.reply) and PHONE not in row.outcome for row in InboundMessage.objects.all())
