"""A command by email acts only when its From: is the seat holder's verified
address and that From: is authenticated (here: the trusted mail host's
Authentication-Results, as mail_helpers writes it). Mail that is not
authenticated is read first: what changes nothing is answered at once (see
test_unproven_mail_read_first); what would act does nothing but mail the verified
address a challenge, ``confirm <code>``, which acts on the code alone, once,
re-checked when used.

Personas: alice and bob play; carol is only ever forged (nobody plays as her
by writing her address).
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.core import mail
from tests.factories import seat_to_move
from tests.notifications.email_helpers import everything_in, headline_of, says_first, start_game
from tests.notifications.inbound.mail_helpers import answer, authentication_results, latest, receive, reply_bytes

from games.models import Game, Move, Vacation
from notifications.inbound.commands import CODE_ALPHABET
from notifications.models import InboundMessage, PendingConfirmation

pytestmark = pytest.mark.django_db

Status = InboundMessage.Status
SERVICE = "new@reply.splendor.test"
# The challenge's code as shown: 12 letters of Crockford's base 32 (60 bits) in three groups.
CODE = re.compile(rf"^\s*confirm ([{CODE_ALPHABET}]{{4}}-[{CODE_ALPHABET}]{{4}}-[{CODE_ALPHABET}]{{4}})\s*$", re.MULTILINE)


@pytest.fixture
def carol(db: None) -> Any:
    from accounts.services import player_create

    return player_create(username="carol", email="carol@example.com", display_name="Carol")


def _code(message: Any) -> str:
    match = CODE.search(str(message.body))
    assert match is not None, message.body
    return match.group(1)


def _forged(turn_email: Any, sender: str, body: str, **kwargs: Any) -> bytes:
    return reply_bytes(turn_email, sender=sender, body=body, authenticated=False, **kwargs)


def test_a_forged_from_with_a_valid_token_plays_nothing_and_the_player_gets_a_challenge(
    clock: Any, commit: Any, alice: Any, bob: Any
) -> None:
    game = start_game(commit, alice, bob)
    player = seat_to_move(game).user
    turn_email = latest(player, "Your turn")
    before = len(mail.outbox)
    inbound = receive(commit, _forged(turn_email, player.email, "take WUG"))
    assert inbound is not None and inbound.status == Status.CHALLENGED
    game.refresh_from_db()
    assert not Move.objects.filter(game=game).exists() and game.version == inbound.game.version  # type: ignore[union-attr]
    sent = mail.outbox[before:]
    assert [m.to for m in sent] == [[player.email]]  # the verified address only; the forger gets nothing
    assert sent[0].subject == f"Splendor — game {game.pk}"
    assert headline_of(sent[0]) == f"Please confirm: play take WUG in game {game.pk}"
    assert "could not be proven to be you" in sent[0].body
    _code(sent[0])


def test_answering_the_challenge_plays_the_move(clock: Any, commit: Any, alice: Any, bob: Any) -> None:
    game = start_game(commit, alice, bob)
    player = seat_to_move(game).user
    receive(commit, _forged(latest(player, "Your turn"), player.email, "take WUG"))
    challenge = latest(player, "Please confirm")
    # Unauthenticated too: the code alone acts.
    inbound = receive(commit, _forged(challenge, player.email, f"confirm {_code(challenge)}"))
    assert inbound is not None and inbound.status == Status.APPLIED, inbound and inbound.outcome
    assert list(Move.objects.filter(game=game).values_list("text", flat=True)) == ["take WUG"]
    assert latest(player, "Played take white, blue and green")


def test_a_challenge_code_works_once(clock: Any, commit: Any, alice: Any, bob: Any) -> None:
    game = start_game(commit, alice, bob)
    player = seat_to_move(game).user
    receive(commit, _forged(latest(player, "Your turn"), player.email, "take WUG"))
    challenge = latest(player, "Please confirm")
    receive(commit, _forged(challenge, player.email, f"confirm {_code(challenge)}"))
    again = receive(commit, reply_bytes(challenge, sender=player.email, body=f"confirm {_code(challenge)}"))
    assert again is not None and again.status == Status.REFUSED
    assert Move.objects.filter(game=game).count() == 1


def test_a_challenge_answered_after_the_turn_has_passed_says_so_and_plays_nothing(
    clock: Any, commit: Any, alice: Any, bob: Any
) -> None:
    game = start_game(commit, alice, bob)
    player = seat_to_move(game).user
    turn_email = latest(player, "Your turn")
    receive(commit, _forged(turn_email, player.email, "take WUG"))
    challenge = latest(player, "Please confirm")
    receive(commit, reply_bytes(turn_email, sender=player.email, body="take RR"))  # authenticated: plays
    inbound = receive(commit, _forged(challenge, player.email, f"confirm {_code(challenge)}"))
    assert inbound is not None and inbound.status == Status.REFUSED
    assert "That turn has passed." in latest(player, "That turn has passed").body
    assert list(Move.objects.filter(game=game).values_list("text", flat=True)) == ["take RR"]


def test_another_address_with_a_valid_token_never_acts_and_the_owner_is_told_without_a_challenge(
    clock: Any, commit: Any, alice: Any, bob: Any
) -> None:
    game = start_game(commit, alice, bob)
    player = seat_to_move(game).user
    # Authenticated for its own domain, and still not the seat holder's address.
    inbound = receive(commit, reply_bytes(latest(player, "Your turn"), sender="eve@evil.example", body="take WUG"))
    assert inbound is not None and inbound.status == Status.DROPPED
    assert latest(player, "Someone tried to play for you")
    assert not [m for m in mail.outbox if says_first(m, "Please confirm")]
    assert not PendingConfirmation.objects.exists()


@pytest.mark.parametrize(
    ("results", "why"),
    [
        ("mx.evil.example; dmarc=pass header.from=example.com", "another host's results are not believed"),
        ("mx.splendor.test; dmarc=fail header.from=example.com", "a DMARC fail"),
        ("mx.splendor.test; dkim=pass header.d=evil.example; spf=pass smtp.mailfrom=eve@evil.example", "not aligned"),
    ],
)
def test_results_that_prove_nothing_are_challenged(
    results: str, why: str, clock: Any, commit: Any, alice: Any, bob: Any
) -> None:
    game = start_game(commit, alice, bob)
    player = seat_to_move(game).user
    raw = _forged(latest(player, "Your turn"), player.email, "take WUG", headers=(f"Authentication-Results: {results}",))
    inbound = receive(commit, raw)
    assert inbound is not None and inbound.status == Status.CHALLENGED, why
    assert not Move.objects.filter(game=game).exists()


def test_a_forged_results_header_below_the_trusted_hosts_own_is_not_believed(
    clock: Any, commit: Any, alice: Any, bob: Any
) -> None:
    game = start_game(commit, alice, bob)
    player = seat_to_move(game).user
    forged = _forged(latest(player, "Your turn"), player.email, "take WUG",
                     headers=(authentication_results(player.email),))  # fmt: skip
    real = authentication_results(player.email, result="fail").encode() + b"\r\n"
    inbound = receive(commit, real + forged)
    assert inbound is not None and inbound.status == Status.CHALLENGED


def test_a_forged_vacation_without_a_token_takes_no_vacation_and_the_owner_is_challenged(
    clock: Any, commit: Any, carol: Any
) -> None:
    before = len(mail.outbox)
    inbound = receive(commit, reply_bytes(None, sender=carol.email, body="vacation 14", to=SERVICE, authenticated=False))
    assert inbound is not None and inbound.status == Status.CHALLENGED
    assert not Vacation.objects.filter(user=carol).exists()
    challenge = mail.outbox[before:]
    assert [m.to for m in challenge] == [[carol.email]]
    assert challenge[0].subject == "Please confirm: pause your games for 14 days"
    receive(commit, reply_bytes(challenge[0], sender=carol.email, body=f"confirm {_code(challenge[0])}", to=SERVICE,
                                authenticated=False))  # fmt: skip
    assert Vacation.objects.filter(user=carol).exists()


@pytest.mark.parametrize("body", ["take WUG", "board", "moves", "help", "vacation 2", "resign", "accept", "decline"])
def test_no_command_kind_acts_on_an_unauthenticated_from(
    body: str, clock: Any, commit: Any, alice: Any, bob: Any, charlie: Any
) -> None:
    """A command that would act waits for a code; one that only answers (board,
    moves, help) is answered at once, with no code, and changes nothing either."""
    from games import services

    game = start_game(commit, alice, bob)
    with commit():
        invitation = services.game_create(creator=alice, variant="base", seats=2, invited=[charlie])
    sender, reply_to = (charlie, latest(charlie)) if body in ("accept", "decline") else (seat_to_move(game).user, None)
    turn_email = reply_to or latest(sender, "Your turn")
    versions = {g.pk: g.version for g in Game.objects.all()}
    before = len(mail.outbox)
    inbound = receive(commit, _forged(turn_email, sender.email, body))
    assert {g.pk: g.version for g in Game.objects.all()} == versions
    assert invitation.pk in versions and not Vacation.objects.exists()
    sent = mail.outbox[before:]
    assert [m.to for m in sent] == [[sender.email]]
    if body in ("board", "moves", "help"):
        assert inbound is not None and inbound.status == Status.APPLIED
        assert not PendingConfirmation.objects.exists() and not CODE.search(str(sent[0].body))
        assert "could not be proven to come from you" in sent[0].body
    else:
        assert inbound is not None and inbound.status in (Status.CHALLENGED, Status.APPLIED)
        assert PendingConfirmation.objects.filter(user=sender).count() == 1
        assert says_first(sent[0], "Please confirm: ")


def test_a_forged_new_game_invites_nobody_until_the_owner_confirms(commit: Any, carol: Any, bob: Any) -> None:
    receive(commit, reply_bytes(None, sender=carol.email, body="new base 2 with bob@example.com", to=SERVICE,
                                authenticated=False))  # fmt: skip
    assert not Game.objects.exists()
    assert [m.to for m in mail.outbox] == [[carol.email]]


def test_challenges_to_one_address_are_limited_per_hour(clock: Any, commit: Any, carol: Any, settings: Any) -> None:
    settings.INBOUND_CHALLENGES_PER_HOUR = 3
    for _ in range(25):
        receive(commit, reply_bytes(None, sender=carol.email, body="vacation 2", to=SERVICE, authenticated=False))
    # Three codes, then the limit's explanation once; the rest get nothing.
    assert [m.subject for m in mail.outbox if m.to == [carol.email]] == [
        "Please confirm: pause your games for 2 days"
    ] * 3 + ["No more confirmation codes this hour"]
    assert PendingConfirmation.objects.count() == 3
    assert InboundMessage.objects.filter(status=Status.DROPPED).count() == 22


def test_replies_of_every_kind_to_one_address_are_limited_per_hour(
    clock: Any, commit: Any, carol: Any, settings: Any
) -> None:
    settings.INBOUND_REPLIES_PER_HOUR = 10
    for _ in range(25):
        receive(commit, reply_bytes(None, sender=carol.email, body="help", to=SERVICE))
    assert len([m for m in mail.outbox if m.to == [carol.email]]) == 10


def test_with_authentication_turned_off_the_from_alone_acts(
    clock: Any, commit: Any, alice: Any, bob: Any, settings: Any
) -> None:
    settings.INBOUND_REQUIRE_AUTHENTICATION = False
    game = start_game(commit, alice, bob)
    player = seat_to_move(game).user
    inbound = receive(commit, _forged(latest(player, "Your turn"), player.email, "take WUG"))
    assert inbound is not None and inbound.status == Status.APPLIED
    assert Move.objects.filter(game=game).count() == 1


def test_the_answer_and_the_challenge_show_no_hidden_card_and_the_logs_no_code_or_token(
    clock: Any, commit: Any, alice: Any, bob: Any, caplog: Any, log_format: str
) -> None:
    caplog.set_level("DEBUG")
    game = start_game(commit, alice, bob)
    first = seat_to_move(game).user
    receive(commit, reply_bytes(latest(first, "Your turn"), sender=first.email, body="reserve deck 1"))
    hidden = Move.objects.get(game=game, ply=0).private_card
    assert hidden
    second = seat_to_move(game).user
    turn_email = latest(second, "Your turn")
    receive(commit, _forged(turn_email, second.email, "board"))  # answered at once, with the board
    board = answer(second, "reply_board")
    receive(commit, _forged(turn_email, second.email, "take WUG"))  # would act: a code
    challenge = latest(second, "Please confirm")
    # As a card id, not as four characters that a random token or code may hold.
    for sent in (board, challenge):
        assert not re.search(rf"(?<![\w-]){re.escape(hidden)}(?![\w-])", everything_in(sent))
    token = str(turn_email.reply_to[0]).split("+", 1)[1].split("@")[0]
    assert _code(challenge) not in caplog.text and _code(challenge).replace("-", "").lower() not in caplog.text
    assert token not in caplog.text
    assert second.email not in caplog.text
    assert not re.search(rf"\b{re.escape(hidden)}\b", caplog.text)
