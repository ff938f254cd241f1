"""Games played by replying to their email, through notifications.inbound.services."""

from __future__ import annotations

from typing import Any

import engine
import pytest
from django.core import mail
from tests.factories import seat_to_move
from tests.notifications.email_helpers import everything_in, headline_of, start_game
from tests.leak_helpers import card_ids_in
from tests.notifications.inbound.mail_helpers import answer, examples_in, latest, receive, reply_bytes

from games.models import Game, Move, Seat
from notifications.models import InboundMessage

pytestmark = pytest.mark.django_db

Status = InboundMessage.Status


@pytest.mark.slow
def test_a_whole_two_player_game_is_played_only_by_email_replies(
    clock: Any, commit: Any, alice: Any, bob: Any, settings: Any, game_extensions: Any
) -> None:
    # Only the email consumer: webhooks, reminders and ratings have nothing to do here.
    game_extensions.hearing("email")
    game = start_game(commit, alice, bob)
    replies = 0
    while game.status == Game.Status.ACTIVE:
        player = seat_to_move(game).user
        turn_email = latest(player, "Your turn")
        moves = examples_in(turn_email)
        assert moves, turn_email.body
        inbound = receive(commit, reply_bytes(turn_email, sender=player.email, body=moves[0]))
        assert inbound is not None and inbound.status == Status.APPLIED, inbound and inbound.outcome
        replies += 1
        game.refresh_from_db()
        assert replies < 400, "the game did not end"
    assert game.status == Game.Status.FINISHED
    assert Move.objects.filter(game=game, played_by="player").count() == replies
    for player in (alice, bob):
        assert latest(player, f"Game {game.pk} is over")  # both told the result


def test_a_move_in_words_is_played_and_the_sender_gets_a_confirmation(clock: Any, commit: Any, alice: Any, bob: Any) -> None:
    game = start_game(commit, alice, bob)
    player = seat_to_move(game).user
    turn_email = latest(player, "Your turn")
    inbound = receive(commit, reply_bytes(turn_email, sender=player.email, body="Take white, blue and green please."))
    assert inbound is not None and inbound.status == Status.APPLIED
    assert Move.objects.get(game=game, ply=0).text == "take WUG"
    confirmation = answer(player, "reply_done")
    assert "Your move take white, blue and green is played" in confirmation.body
    assert confirmation.reply_to  # the confirmation can be answered too
    other = alice if player == bob else bob
    assert latest(other, "Your turn")  # the usual notification from the outbox


def test_the_examples_quoted_from_the_turn_email_never_play(clock: Any, commit: Any, alice: Any, bob: Any) -> None:
    game = start_game(commit, alice, bob)
    player = seat_to_move(game).user
    turn_email = latest(player, "Your turn")
    inbound = receive(commit, reply_bytes(turn_email, sender=player.email, body="Thanks, thinking about it."))
    assert inbound is not None and inbound.status == Status.REFUSED
    assert not Move.objects.filter(game=game).exists()
    assert "No command found" in answer(player, "reply_refused").body


def test_an_illegal_move_is_answered_with_the_rule_the_board_and_legal_moves(
    clock: Any, commit: Any, alice: Any, bob: Any
) -> None:
    game = start_game(commit, alice, bob)
    player = seat_to_move(game).user
    turn_email = latest(player, "Your turn")
    receive(commit, reply_bytes(turn_email, sender=player.email, body="buy 1a"))
    refused = answer(player, "reply_refused")
    assert "Your email said: buy 1a" in refused.body
    assert "(rule B-" in refused.body
    assert "Some moves you could play:" in refused.body
    assert "BANK" in refused.body and f"game {game.pk} - version {game.version}" in refused.body
    assert not Move.objects.filter(game=game).exists()


def test_a_reply_to_a_turn_that_has_passed_is_refused_with_the_current_board(
    clock: Any, commit: Any, alice: Any, bob: Any
) -> None:
    game = start_game(commit, alice, bob)
    first = seat_to_move(game).user
    first_email = latest(first, "Your turn")
    receive(commit, reply_bytes(first_email, sender=first.email, body="take WUG"))
    inbound = receive(commit, reply_bytes(first_email, sender=first.email, body="take RR"))
    assert inbound is not None and inbound.status == Status.REFUSED
    refused = answer(first, "reply_refused")
    assert "That turn has passed." in refused.body
    assert Move.objects.filter(game=game).count() == 1


def test_an_older_version_in_the_quoted_message_id_is_a_passed_turn(clock: Any, commit: Any, alice: Any, bob: Any) -> None:
    game = start_game(commit, alice, bob)
    player = seat_to_move(game).user
    turn_email = latest(player, "Your turn")
    game.refresh_from_db()
    old_id = turn_email.extra_headers["Message-ID"].replace(f".v{game.version}@", f".v{game.version - 1}@")
    turn_email.extra_headers["Message-ID"] = old_id
    inbound = receive(commit, reply_bytes(turn_email, sender=player.email, body="take WUG"))
    assert inbound is not None and inbound.status == Status.REFUSED
    assert not Move.objects.filter(game=game).exists()


def test_a_forged_from_is_refused_and_the_player_is_told(clock: Any, commit: Any, alice: Any, bob: Any) -> None:
    game = start_game(commit, alice, bob)
    player = seat_to_move(game).user
    turn_email = latest(player, "Your turn")
    before = len(mail.outbox)
    inbound = receive(commit, reply_bytes(turn_email, sender="mallory@evil.example", body="take WUG"))
    assert inbound is not None and inbound.status == Status.DROPPED
    assert not Move.objects.filter(game=game).exists()
    sent = mail.outbox[before:]
    assert [m.to for m in sent] == [[player.email]]
    assert sent[0].subject == f"Splendor — game {game.pk}"  # a warning, not an answer: no "Re:"
    assert headline_of(sent[0]).startswith("Someone tried to play for you")
    assert not sent[0].reply_to  # the warning carries no reply address for the seat


def test_the_right_from_without_a_token_is_refused(clock: Any, commit: Any, alice: Any, bob: Any) -> None:
    game = start_game(commit, alice, bob)
    player = seat_to_move(game).user
    raw = reply_bytes(None, sender=player.email, body="take WUG", to="splendor@reply.splendor.test")
    inbound = receive(commit, raw)
    assert inbound is not None and inbound.status == Status.REFUSED
    assert not Move.objects.filter(game=game).exists()
    assert "reply to that game's email" in answer(player, "reply_refused").body


def test_a_bad_token_from_the_players_address_is_refused_and_the_player_told(
    clock: Any, commit: Any, alice: Any, bob: Any
) -> None:
    game = start_game(commit, alice, bob)
    player = seat_to_move(game).user
    raw = reply_bytes(None, sender=player.email, body="take WUG", to="play+1-000000000000000000000000@reply.splendor.test")
    inbound = receive(commit, raw)
    assert inbound is not None and inbound.status == Status.DROPPED
    assert latest(player, "Someone tried to play for you")
    assert not Move.objects.filter(game=game).exists()


def test_the_same_message_delivered_twice_is_applied_once(clock: Any, commit: Any, alice: Any, bob: Any) -> None:
    game = start_game(commit, alice, bob)
    player = seat_to_move(game).user
    raw = reply_bytes(latest(player, "Your turn"), sender=player.email, body="take WUG", message_id="<once@mail.example>")
    assert receive(commit, raw) is not None
    assert receive(commit, raw) is None
    assert Move.objects.filter(game=game).count() == 1
    assert InboundMessage.objects.count() == 1


def test_auto_replies_get_no_answer(clock: Any, commit: Any, alice: Any, bob: Any) -> None:
    game = start_game(commit, alice, bob)
    player = seat_to_move(game).user
    before = len(mail.outbox)
    raw = reply_bytes(latest(player, "Your turn"), sender=player.email, body="take WUG",
                      headers=("Auto-Submitted: auto-replied",))  # fmt: skip
    inbound = receive(commit, raw)
    assert inbound is not None and (inbound.status, inbound.outcome) == (Status.DROPPED, "auto-reply")
    assert len(mail.outbox) == before
    assert not Move.objects.filter(game=game).exists()
    assert inbound.raw is None  # the message is not kept once read


def test_a_bounce_to_the_reply_address_marks_the_address_and_is_not_answered(commit: Any, alice: Any) -> None:
    from pathlib import Path

    raw = (Path(__file__).parent / "fixtures" / "bounce_dsn.eml").read_bytes().replace(b"bob@example.com", b"alice@example.com")
    before = len(mail.outbox)
    inbound = receive(commit, raw)
    assert inbound is not None and inbound.status == Status.DROPPED
    alice.player.refresh_from_db()
    assert alice.player.email_undeliverable_at is not None
    assert len(mail.outbox) == before


def test_error_replies_to_one_sender_are_limited_per_hour(clock: Any, commit: Any, alice: Any, bob: Any) -> None:
    game = start_game(commit, alice, bob)
    player = seat_to_move(game).user
    turn_email = latest(player, "Your turn")
    for _ in range(7):
        receive(commit, reply_bytes(turn_email, sender=player.email, body="dance"))
    assert sum(1 for m in mail.outbox if "That could not be done." in m.body) == 5
    assert InboundMessage.objects.filter(status=Status.DROPPED).count() == 2


def test_resigning_by_email_waits_for_the_confirmation_code(clock: Any, commit: Any, alice: Any, bob: Any) -> None:
    game = start_game(commit, alice, bob)
    receive(commit, reply_bytes(_any_game_email(bob), sender=bob.email, body="resign"))
    game.refresh_from_db()
    assert game.status == Game.Status.ACTIVE
    ask = answer(bob, "reply_confirm")
    assert "You asked to resign from game" in ask.body
    code = next(line.split()[1] for line in ask.body.splitlines() if line.strip().startswith("confirm "))
    receive(commit, reply_bytes(ask, sender=bob.email, body="confirm wrongcode"))
    game.refresh_from_db()
    assert game.status == Game.Status.ACTIVE
    receive(commit, reply_bytes(ask, sender=bob.email, body=f"confirm {code}"))
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    assert Seat.objects.get(game=game, user=bob).resigned


def _any_game_email(user: Any) -> Any:
    for message in reversed(mail.outbox):
        if user.email in message.to and message.reply_to:
            return message
    raise AssertionError("no game email")


def test_board_moves_and_help_are_sent_back(clock: Any, commit: Any, alice: Any, bob: Any) -> None:
    game = start_game(commit, alice, bob)
    player = seat_to_move(game).user
    turn_email = latest(player, "Your turn")
    receive(commit, reply_bytes(turn_email, sender=player.email, body="moves"))
    listed = answer(player, "reply_board").body
    assert "Your legal moves in game" in listed
    game.refresh_from_db()
    first_legal = engine.format_move(engine.legal_moves(engine.from_dict(game.state))[0])
    assert f"  {first_legal}\n" in listed
    receive(commit, reply_bytes(turn_email, sender=player.email, body="board"))
    assert "BANK" in answer(player, "reply_board").body
    receive(commit, reply_bytes(turn_email, sender=player.email, body="help"))
    assert "vacation 3" in answer(player, "reply_board").body
    assert not Move.objects.filter(game=game).exists()


def test_the_board_sent_by_email_never_shows_the_opponents_blind_reservation(
    clock: Any, commit: Any, alice: Any, bob: Any
) -> None:
    game = start_game(commit, alice, bob)
    first = seat_to_move(game).user
    second = alice if first == bob else bob
    receive(commit, reply_bytes(latest(first, "Your turn"), sender=first.email, body="reserve deck 1"))
    hidden = Move.objects.get(game=game, ply=0).private_card
    assert hidden
    receive(commit, reply_bytes(latest(second, "Your turn"), sender=second.email, body="board"))
    shown = everything_in(answer(second, "reply_board"))
    # The board is there, with the cards on the table, but not the one reserved face down.
    assert "BANK" in shown and len(card_ids_in(shown)) >= 12
    assert hidden not in card_ids_in(shown)
    assert "Your move reserve from deck 1 is played" in answer(first, "reply_done").body


def test_accepting_an_invitation_by_email_takes_the_seat(clock: Any, commit: Any, alice: Any, bob: Any) -> None:
    from games import services

    with commit():
        game = services.game_create(creator=alice, variant="base", seats=2, invited=[bob])
    invitation = _any_game_email(bob)
    inbound = receive(commit, reply_bytes(invitation, sender=bob.email, body="accept"))
    assert inbound is not None and inbound.status == Status.APPLIED
    game.refresh_from_db()
    assert game.status == Game.Status.ACTIVE


def test_declining_an_invitation_by_email(clock: Any, commit: Any, alice: Any, bob: Any) -> None:
    from games import services

    with commit():
        game = services.game_create(creator=alice, variant="base", seats=2, invited=[bob])
    receive(commit, reply_bytes(_any_game_email(bob), sender=bob.email, body="decline"))
    game.refresh_from_db()
    assert game.status == Game.Status.ABORTED


def test_a_vacation_by_email_pauses_the_players_games(clock: Any, commit: Any, alice: Any, bob: Any) -> None:
    start_game(commit, alice, bob)
    raw = reply_bytes(None, sender=bob.email, body="vacation 2", to="new@reply.splendor.test")
    inbound = receive(commit, raw)
    assert inbound is not None and inbound.status == Status.APPLIED
    from games.models import Vacation

    assert Vacation.objects.filter(user=bob).exists()


def test_mail_from_an_unknown_sender_gets_no_answer(commit: Any, alice: Any) -> None:
    raw = reply_bytes(None, sender="stranger@example.net", body="new base 2 with alice@example.com", to="new@reply.splendor.test")
    before = len(mail.outbox)
    inbound = receive(commit, raw)
    assert inbound is not None and inbound.status == Status.DROPPED
    assert len(mail.outbox) == before


def test_warnings_about_forged_mail_are_limited_per_hour(clock: Any, commit: Any, alice: Any, bob: Any) -> None:
    game = start_game(commit, alice, bob)
    player = seat_to_move(game).user
    turn_email = latest(player, "Your turn")
    for _ in range(8):
        receive(commit, reply_bytes(turn_email, sender="mallory@evil.example", body="take WUG"))
    assert sum(1 for m in mail.outbox if headline_of(m).startswith("Someone tried to play for you")) == 5


def test_logs_name_no_address_in_full(clock: Any, commit: Any, alice: Any, caplog: Any, log_format: str) -> None:
    caplog.set_level("INFO")
    receive(commit, reply_bytes(None, sender=alice.email, body="new base 2 3 with dora@elsewhere.example",
                                to="new@reply.splendor.test"))  # fmt: skip
    inbound = InboundMessage.objects.get()
    assert inbound.status == Status.REFUSED
    assert caplog.text and "dora@elsewhere.example" not in caplog.text
    assert "alice@example.com" not in caplog.text
    assert "dora@elsewhere.example" not in inbound.outcome
