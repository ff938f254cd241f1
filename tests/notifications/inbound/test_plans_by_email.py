"""Conditional moves ("plans") by email: "if <move> then <move>" lines in a reply
store the plan (indented lines are the next lines of the line above), the answer
lists it, and the plan's moves are played as the mover's replies come in."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.conf import settings
from django.core import mail
from tests.notifications.email_helpers import start_game
from tests.notifications.inbound.mail_helpers import answer, latest, receive, reply_bytes

from games.models import Game, Move, Seat
from notifications.inbound.reply_tokens import reply_token_for
from notifications.models import InboundMessage

pytestmark = pytest.mark.django_db

Status = InboundMessage.Status

FOUR_DEEP_EMAIL = """Here is my plan:
if reserve deck1 then take white blue green
  if reserve deck2 then take white red black
    if any then take blue green red
      if take WUG then reserve deck 1
Thanks
"""
MOVER_MOVES = ["reserve deck1", "reserve deck2", "reserve deck3", "take WUG"]
PLANNED = ["take WUG", "take WRK", "take UGR", "reserve deck1"]


def _players(game: Game) -> tuple[Any, Any]:
    game.refresh_from_db()
    mover = Seat.objects.select_related("user").get(game=game, index=game.to_move).user
    planner = Seat.objects.select_related("user").exclude(index=game.to_move).get(game=game).user
    return mover, planner


def _to_seat(game: Game, user: Any, body: str) -> bytes:
    """A message to the seat's reply address (every game email carries it), the
    player waiting for the other's move."""
    seat = Seat.objects.get(game=game, user=user)
    return reply_bytes(None, sender=user.email, body=body, to=f"play+{reply_token_for(seat=seat)}@{settings.EMAIL_REPLY_DOMAIN}")


def test_a_player_plays_four_moves_through_a_plan_sent_by_email(clock: Any, commit: Any, alice: Any, bob: Any) -> None:
    """Done-when of conditional moves, by email: the plan comes in a reply, the
    answer confirms it, and the mover's four replies each bring a planned move."""
    game = start_game(commit, alice, bob)
    mover, planner = _players(game)
    inbound = receive(commit, _to_seat(game, planner, FOUR_DEEP_EMAIL))
    assert inbound is not None and inbound.status == Status.APPLIED, inbound and inbound.outcome
    assert inbound.command == "plan"  # the record names no line of it
    confirmation = answer(planner, "reply_plan").body
    assert "is stored" in confirmation
    assert "      if take white, blue and green then reserve from deck 1" in confirmation  # indented under its line
    for move in MOVER_MOVES:
        turn = latest(mover, "Your turn")
        played = receive(commit, reply_bytes(turn, sender=mover.email, body=move))
        assert played is not None and played.status == Status.APPLIED, played and played.outcome
    planned = Move.objects.filter(game=game, from_plan=True).order_by("ply")
    assert [m.text for m in planned] == PLANNED and [m.ply for m in planned] == [1, 3, 5, 7]
    # The mover's turn emails say nothing of a plan; the planner's next email says what it did.
    assert "plan" not in latest(mover, "Your turn").body.lower()


def test_a_plan_in_italian_is_read_in_the_players_words(clock: Any, commit: Any, alice: Any, bob: Any) -> None:
    game = start_game(commit, alice, bob)
    mover, planner = _players(game)
    planner.player.language = "it"
    planner.player.save(update_fields=["language"])
    body = "se prendi bianco blu verde allora prendi rosso nero bianco\nse qualsiasi allora riserva mazzo 1\n"
    inbound = receive(commit, _to_seat(game, planner, body))
    assert inbound is not None and inbound.status == Status.APPLIED, inbound and inbound.outcome
    plan = Seat.objects.get(game=game, user=planner).plan
    assert plan == [
        {"if": "take WUG", "then": "take WRK", "next": []},
        {"if": "any", "then": "reserve deck1", "next": []},
    ]
    assert "se prendi bianco, blu e verde allora prendi bianco, rosso e nero" in answer(planner, "reply_plan").body


def test_plan_clear_by_email_clears_it_and_plan_shows_it(clock: Any, commit: Any, alice: Any, bob: Any) -> None:
    game = start_game(commit, alice, bob)
    _, planner = _players(game)
    receive(commit, _to_seat(game, planner, FOUR_DEEP_EMAIL))
    receive(commit, _to_seat(game, planner, "plan"))
    assert "if reserve from deck 1 then take white, blue and green" in answer(planner, "reply_plan").body
    receive(commit, _to_seat(game, planner, "plan clear"))
    assert Seat.objects.get(game=game, user=planner).plan == []
    assert "is cleared" in answer(planner, "reply_plan").body


def test_a_bad_line_is_refused_by_its_number_and_nothing_is_stored(clock: Any, commit: Any, alice: Any, bob: Any) -> None:
    game = start_game(commit, alice, bob)
    _, planner = _players(game)
    body = "if take WUG then take RR\nif any then dance wildly\n"
    inbound = receive(commit, _to_seat(game, planner, body))
    assert inbound is not None and inbound.status == Status.REFUSED
    refused = answer(planner, "reply_refused").body
    assert "Line 2 (if any then dance wildly)" in refused
    assert Seat.objects.get(game=game, user=planner).plan == []


def test_the_owner_is_told_in_the_next_game_email_what_the_plan_did(
    clock: Any, commit: Any, alice: Any, bob: Any
) -> None:
    game = start_game(commit, alice, bob)
    mover, planner = _players(game)
    receive(commit, _to_seat(game, planner, "if reserve deck1 then take WUG"))
    receive(commit, reply_bytes(latest(mover, "Your turn"), sender=mover.email, body="take RKW"))
    turn = latest(planner, "Your turn").body
    assert "After take white, red and black no line of your plan matched" in turn
    assert "plan" not in latest(mover, "Your turn").body.lower()


def test_no_email_to_the_other_player_tells_of_the_plan_or_its_moves(
    clock: Any, commit: Any, alice: Any, bob: Any
) -> None:
    """Leak test: the mover's emails (turn emails, the answers to its moves) say
    nothing of the planner's plan, before or after it plays."""
    game = start_game(commit, alice, bob)
    mover, planner = _players(game)
    receive(commit, _to_seat(game, planner, "if any then take white blue green\n  if any then reserve deck 3"))
    for move in ("reserve deck1", "reserve deck2"):
        receive(commit, reply_bytes(latest(mover, "Your turn"), sender=mover.email, body=move))
    assert Move.objects.filter(game=game, from_plan=True).count() == 2
    to_mover = [m for m in mail.outbox if mover.email in m.to]
    assert len(to_mover) >= 3
    for message in to_mover:
        text = f"{message.subject}\n{message.body}\n{message.alternatives}".lower()
        assert "plan" not in text


def test_a_plan_from_a_sender_not_authenticated_waits_for_the_code_and_its_record_names_no_line(
    clock: Any, commit: Any, alice: Any, bob: Any
) -> None:
    game = start_game(commit, alice, bob)
    _, planner = _players(game)
    seat = Seat.objects.get(game=game, user=planner)
    address = f"play+{reply_token_for(seat=seat)}@{settings.EMAIL_REPLY_DOMAIN}"
    forged = reply_bytes(None, sender=planner.email, body=FOUR_DEEP_EMAIL, to=address, authenticated=False)
    inbound = receive(commit, forged)
    assert inbound is not None and inbound.status == Status.CHALLENGED and inbound.command == "plan"
    assert Seat.objects.get(pk=seat.pk).plan == []
    challenge = latest(planner, "Please confirm")
    code = re.search(r"confirm ([0-9A-Z-]{8,})", str(challenge.body))
    assert code is not None, challenge.body
    confirmed = receive(commit, reply_bytes(challenge, sender=planner.email, body=f"confirm {code.group(1)}"))
    assert confirmed is not None and confirmed.status == Status.APPLIED, confirmed and confirmed.outcome
    assert confirmed.command == "plan"
    assert Seat.objects.get(pk=seat.pk).plan[0]["then"] == "take WUG"


def test_a_plan_in_latvian_is_read_in_the_players_words(clock: Any, commit: Any, alice: Any, bob: Any) -> None:
    game = start_game(commit, alice, bob)
    _, planner = _players(game)
    planner.player.language = "lv"
    planner.player.save(update_fields=["language"])
    body = "ja ņem baltu zilu zaļu tad ņem sarkanu melnu baltu\n  ja jebkurš tad rezervē kaudzīti 1\n"
    inbound = receive(commit, _to_seat(game, planner, body))
    assert inbound is not None and inbound.status == Status.APPLIED, inbound and inbound.outcome
    assert Seat.objects.get(game=game, user=planner).plan == [
        {"if": "take WUG", "then": "take WRK", "next": [{"if": "any", "then": "reserve deck1", "next": []}]},
    ]
    assert "  ja jebkurš tad rezervē no kaudzītes 1" in answer(planner, "reply_plan").body
