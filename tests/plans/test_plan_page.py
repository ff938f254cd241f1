"""The game page's plan editor: shown only to the seat that waits, it stores the
plan written in its box (the email's words) and clears it; nobody else's page
shows it or anything of it."""

from __future__ import annotations

import pytest

from games.models import Move, Seat
from tests.games.board_helpers import play, started_game
from tests.games.page_helpers import opened, other_than, page, to_move

pytestmark = pytest.mark.django_db

PLAN_TEXT = "if reserve deck1 then take white blue green\n  if any then take RR\nif take WUG then reserve deck 2"


def _post_plan(client, game, text: str, *, action: str = "plan"):  # type: ignore[no-untyped-def]
    game.refresh_from_db()
    return client.post(f"/games/{game.pk}/", {"action": action, "plan": text, "version": str(game.version)})


def test_the_waiting_seat_stores_a_plan_from_the_page_and_sees_it_again() -> None:
    game = started_game("base", 2)
    waiting = other_than(game, to_move(game))
    client = opened(waiting)
    assert 'id="plan-form"' in page(client, game).content.decode()
    answer = _post_plan(client, game, PLAN_TEXT)
    assert answer.status_code == 302 or answer.status_code == 303, answer.status_code
    waiting.refresh_from_db()
    assert waiting.plan == [
        {"if": "reserve deck1", "then": "take WUG", "next": [{"if": "any", "then": "take RR", "next": []}]},
        {"if": "take WUG", "then": "reserve deck2", "next": []},
    ]
    html = page(client, game).content.decode()
    assert "if reserve from deck 1 then take white, blue and green\n  if any then take 2 red" in html


def test_the_plan_stored_on_the_page_is_played_when_its_move_comes() -> None:
    game = started_game("base", 2)
    waiting = other_than(game, to_move(game))
    _post_plan(opened(waiting), game, PLAN_TEXT)
    play(game, "take WUG")
    assert Move.objects.get(game=game, ply=1).text == "reserve deck2"
    assert Move.objects.get(game=game, ply=1).from_plan


def test_a_bad_line_is_named_by_its_number_and_the_box_keeps_what_was_typed() -> None:
    game = started_game("base", 2)
    waiting = other_than(game, to_move(game))
    client = opened(waiting)
    answer = _post_plan(client, game, "if any then take RR\nif any then fly away")
    assert answer.status_code == 400
    html = answer.content.decode()
    assert "Line 2 (if any then fly away)" in html and "if any then fly away</textarea>" in html
    waiting.refresh_from_db()
    assert waiting.plan == []


def test_clearing_the_plan_from_the_page() -> None:
    game = started_game("base", 2)
    waiting = other_than(game, to_move(game))
    client = opened(waiting)
    _post_plan(client, game, PLAN_TEXT)
    _post_plan(client, game, "", action="plan_clear")
    assert Seat.objects.get(pk=waiting.pk).plan == []


def test_the_seat_to_move_is_told_to_play_and_no_other_page_shows_the_editor() -> None:
    game = started_game("base", 2)
    mover = to_move(game)
    waiting = other_than(game, mover)
    _post_plan(opened(waiting), game, PLAN_TEXT)
    html = page(opened(mover), game).content.decode()
    assert 'id="plan-form"' not in html and "reserve deck1 then" not in html
    assert "It is your turn: play your move" in html
