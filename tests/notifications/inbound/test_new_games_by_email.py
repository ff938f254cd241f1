"""New games by email: a message to the service's address, confirmed by the
account's owner before anyone is invited."""

from __future__ import annotations

from typing import Any

import pytest
from django.core import mail
from tests.notifications.inbound.mail_helpers import answer, latest, receive, reply_bytes

from games.models import Game, Seat
from notifications.addresses import address_digest
from notifications.models import InboundMessage, InvitationOptOut

pytestmark = pytest.mark.django_db

NEW = "new@reply.splendor.test"


def _ask(commit: Any, sender: str, body: str) -> Any:
    return receive(commit, reply_bytes(None, sender=sender, body=body, to=NEW))


def _code(message: Any) -> str:
    return next(line.split()[1] for line in message.body.splitlines() if line.strip().startswith("confirm "))


def test_a_new_game_waits_for_confirmation_and_invites_nobody_before(commit: Any, alice: Any, bob: Any) -> None:
    before = len(mail.outbox)
    _ask(commit, alice.email, "new base 3 with bob@example.com, dora@elsewhere.example")
    assert not Game.objects.exists()
    sent = mail.outbox[before:]
    assert [m.to for m in sent] == [[alice.email]]  # only the confirmation, to the account's address
    assert sent[0].reply_to == [NEW]


def test_the_confirmed_game_invites_members_and_sends_strangers_a_signup_link(commit: Any, alice: Any, bob: Any) -> None:
    _ask(commit, alice.email, "new base 3 with bob@example.com, dora@elsewhere.example")
    ask = answer(alice, "reply_confirm")
    assert "You asked for a new base game with 3 seats" in ask.body
    receive(commit, reply_bytes(ask, sender=alice.email, body=f"confirm {_code(ask)}", to=NEW))
    game = Game.objects.get()
    assert (game.variant, game.seat_count, game.created_by_id) == ("base", 3, alice.pk)
    assert Seat.objects.filter(game=game, user=bob, invited=True).exists()
    assert latest(bob)  # the usual invitation, from the outbox
    dora = [m for m in mail.outbox if m.to == ["dora@elsewhere.example"]]
    assert len(dora) == 1
    assert "/accounts/signup/?next=%2Fgames%2F" + game.pk in dora[0].body
    assert f"Game {game.pk} (Splendor, 3 seats) is created" in answer(alice, "reply_done").body


def test_an_opted_out_address_gets_no_invitation(commit: Any, alice: Any) -> None:
    InvitationOptOut.objects.create(address_digest=address_digest("dora@elsewhere.example"))
    _ask(commit, alice.email, "new base 2 with dora@elsewhere.example")
    ask = answer(alice, "reply_confirm")
    receive(commit, reply_bytes(ask, sender=alice.email, body=f"confirm {_code(ask)}", to=NEW))
    assert Game.objects.count() == 1
    assert not [m for m in mail.outbox if "dora@elsewhere.example" in m.to]


def test_a_confirmation_code_acts_for_the_account_it_was_mailed_to_whoever_sends_it_back(
    commit: Any, alice: Any, bob: Any
) -> None:
    # The code went only to alice's verified address: holding it is the proof, not the From:.
    _ask(commit, alice.email, "new base 2 with charlie@example.com")
    code = _code(answer(alice, "reply_confirm"))
    inbound = receive(commit, reply_bytes(None, sender=bob.email, body=f"confirm {code}", to=NEW, authenticated=False))
    assert inbound is not None and inbound.status == InboundMessage.Status.APPLIED
    assert Game.objects.get().created_by_id == alice.pk
    assert "is created" in answer(alice, "reply_done").body


def test_a_wrong_code_creates_nothing(commit: Any, alice: Any) -> None:
    _ask(commit, alice.email, "new base 2")
    inbound = receive(commit, reply_bytes(None, sender=alice.email, body="confirm AAAA-BBBB-CCCC", to=NEW))
    assert inbound is not None and inbound.status == InboundMessage.Status.REFUSED
    assert not Game.objects.exists()


def test_a_code_works_once(commit: Any, alice: Any) -> None:
    _ask(commit, alice.email, "new base 2")
    ask = answer(alice, "reply_confirm")
    receive(commit, reply_bytes(ask, sender=alice.email, body=f"confirm {_code(ask)}", to=NEW))
    receive(commit, reply_bytes(ask, sender=alice.email, body=f"confirm {_code(ask)}", to=NEW))
    assert Game.objects.count() == 1


def test_the_invitation_limit_applies_to_games_made_by_email(commit: Any, alice: Any, settings: Any) -> None:
    settings.INVITATIONS_PER_DAY = 1
    _ask(commit, alice.email, "new base 3 with x@elsewhere.example, y@elsewhere.example")
    ask = answer(alice, "reply_confirm")
    inbound = receive(commit, reply_bytes(ask, sender=alice.email, body=f"confirm {_code(ask)}", to=NEW))
    assert inbound is not None and inbound.status == InboundMessage.Status.REFUSED
    assert not Game.objects.exists()
    assert "at most 1" in answer(alice, "reply_refused").body


def test_an_unknown_variant_is_refused_at_once(commit: Any, alice: Any) -> None:
    inbound = _ask(commit, alice.email, "new chess 2")
    assert inbound is not None and inbound.status == InboundMessage.Status.REFUSED
    assert "'chess' is not a variant" in answer(alice, "reply_refused").body


def test_a_practice_game_by_email_is_confirmed_then_played_by_its_bots_without_turn_email(
    commit: Any, alice: Any
) -> None:
    _ask(commit, alice.email, "new base 2 with ismcts")
    ask = answer(alice, "reply_confirm")
    before = len(mail.outbox)
    receive(commit, reply_bytes(ask, sender=alice.email, body=f"confirm {_code(ask)}", to=NEW))
    game = Game.objects.get()
    assert (game.kind, game.seat_count) == (Game.Kind.PRACTICE, 2)
    assert Seat.objects.get(game=game, bot_name="ismcts").user.username == "bot-ismcts-1"
    game.refresh_from_db()
    assert game.to_move == Seat.objects.get(game=game, user=alice).index  # the bot has played if it was first
    sent = mail.outbox[before:]
    # The answer to "Re: Re: hello" is about the new game: its subject is the game's, after one prefix.
    assert [m.subject for m in sent] == [f"Re: Splendor — game {game.pk}"]
    assert f"Practice game {game.pk} (Splendor) against ismcts is created" in sent[0].body
    assert "sends no turn email" in sent[0].body and f"/games/{game.pk}/" in sent[0].body


def test_a_practice_game_by_email_is_against_bots_or_people_not_both(commit: Any, alice: Any) -> None:
    inbound = _ask(commit, alice.email, "new base 3 with greedy bob@example.com")
    assert inbound is not None and inbound.status == InboundMessage.Status.REFUSED
    assert not Game.objects.exists()
