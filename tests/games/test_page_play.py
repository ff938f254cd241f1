"""Playing from the game page: the seat to move gets its legal moves as a form and a box
for typed moves; every move goes through move_submit on the version the page was drawn at."""

from __future__ import annotations

import re
from html import unescape

import pytest
from django.test import Client

import engine
from accounts.models import Player
from games import errors, services
from games.models import Game, GameEvent, Move, Seat
from games.words import move_in_words
from tests.games.board_helpers import play, started_game
from tests.games.game_helpers import state_of
from tests.games.page_helpers import opened, other_than, page, post_move, to_move

pytestmark = pytest.mark.django_db


def legal_texts(game: Game) -> list[str]:
    game.refresh_from_db()
    return [engine.format_move(m) for m in engine.legal_moves(state_of(game))]


@pytest.mark.parametrize("variant", ["base", "marvel"])
def test_the_seat_to_move_sees_every_legal_move_as_a_choice_and_the_other_sees_none(variant: str) -> None:
    game = started_game(variant, 3)
    mover = to_move(game)
    html = page(opened(mover), game).content.decode()
    for text in legal_texts(game):
        assert f'value="{text}"' in html
    assert "Your move" in html and 'name="text"' in html and f'name="version" value="{game.version}"' in html
    waiting = page(opened(other_than(game, mover)), game).content.decode()
    assert 'name="move"' not in waiting and "Your move" not in waiting
    assert "Waiting for" in waiting


def test_a_move_chosen_from_the_list_is_played_and_the_page_drawn_again() -> None:
    game = started_game("base", 2)
    mover = to_move(game)
    client = opened(mover)
    text = next(t for t in legal_texts(game) if t.startswith("take "))
    response = post_move(client, game, move=text)
    assert response.status_code == 303 and response["Location"] == f"/games/{game.pk}/"
    assert Move.objects.get(game=game, ply=0).text == text
    assert f"You played: {move_in_words(text, 'base', 'en')}" in page(client, game).content.decode()


def test_a_typed_move_in_lenient_notation_is_played() -> None:
    game = started_game("base", 2)
    client = opened(to_move(game))
    response = post_move(client, game, text="take white blue green")
    assert response.status_code == 303
    assert Move.objects.get(game=game, ply=0).text == "take WUG"


def test_an_illegal_move_is_refused_with_its_rule_and_nothing_is_played() -> None:
    game = started_game("base", 2)
    play(game, "take WUG")
    play(game, "take WUG")
    play(game, "take WUG")  # white is down to one token
    client = opened(to_move(game))
    response = post_move(client, game, text="take WW")
    assert response.status_code == 422
    html = response.content.decode()
    assert "Not played:" in html and "(rule B-TAKE-2)" in html
    assert 'value="take WW"' in html  # the typed move stays in the box
    assert Move.objects.filter(game=game).count() == 3


def test_unreadable_notation_is_refused_clearly() -> None:
    game = started_game("base", 2)
    response = post_move(opened(to_move(game)), game, text="fly to the moon")
    assert response.status_code == 400
    assert "Not played:" in response.content.decode()
    assert not Move.objects.filter(game=game).exists()


@pytest.mark.parametrize(
    ("language", "panel"), [("en", "Your move"), ("it", "La tua mossa"), ("lv", "Tavs gājiens")]
)
def test_an_unreadable_move_is_told_in_the_pages_words_never_the_apis(language: str, panel: str) -> None:
    game = started_game("base", 2)
    mover = to_move(game)
    Player.objects.filter(user=mover.user).update(language=language)
    client = opened(mover)
    response = post_move(client, game, text="fly to the moon")
    assert response.status_code == 400
    error = re.search(r'<p role="alert" id="page-error"[^>]*>(.*?)</p>', response.content.decode(), re.DOTALL)
    assert error is not None
    words = unescape(error.group(1))
    assert "take WUG" in words and f'"{panel}"' in words  # the examples, and where the page lists the moves
    for api_word in ("GET", "legal-moves", "/api/"):
        assert api_word not in words


def test_the_api_still_sends_a_client_to_legal_moves_for_an_unreadable_move() -> None:
    game = started_game("base", 2)
    mover = to_move(game)
    with pytest.raises(errors.InvalidNotation) as refused:
        services.move_submit(game_id=game.pk, user=mover.user, text="fly to the moon", expected_version=game.version)
    assert "GET legal-moves" in refused.value.message and refused.value.unread


def test_a_page_drawn_before_the_game_moved_on_is_refused_and_drawn_again() -> None:
    game = started_game("base", 3)
    first = to_move(game)
    client = opened(first)
    drawn_at = game.version
    play(game, "take WUG")
    play(game, "take WUG")
    play(game, "take WUG")  # round and round: first is to move again, on a newer version
    assert to_move(game) == first
    response = post_move(client, game, move="take GRK", version=drawn_at)
    assert response.status_code == 303
    assert Move.objects.filter(game=game).count() == 3
    html = page(client, game).content.decode()
    assert "The game moved on since this page was drawn" in html
    assert f'data-version="{Game.objects.get(pk=game.pk).version}"' in html


def test_a_seat_cannot_play_another_seats_turn() -> None:
    game = started_game("base", 2)
    mover = to_move(game)
    other = opened(other_than(game, mover))
    text = next(t for t in legal_texts(game) if t.startswith("take "))
    response = post_move(other, game, move=text)
    assert response.status_code == 409
    assert "not yours" in response.content.decode()
    assert not Move.objects.filter(game=game).exists()


def test_a_move_needs_the_csrf_token() -> None:
    game = started_game("base", 2)
    client = opened(to_move(game), csrf=True)
    response = post_move(client, game, text="take WUG")
    assert response.status_code == 403
    assert not Move.objects.filter(game=game).exists()


def test_a_move_with_the_csrf_token_from_the_page_is_played() -> None:
    game = started_game("base", 2)
    client = opened(to_move(game), csrf=True)
    page(client, game)
    game.refresh_from_db()
    response = client.post(
        f"/games/{game.pk}/",
        {"action": "move", "version": game.version, "text": "take WUG", "csrfmiddlewaretoken": client.cookies["csrftoken"].value},
    )
    assert response.status_code == 303
    assert Move.objects.filter(game=game).count() == 1


def test_a_move_without_a_version_is_refused_without_playing() -> None:
    game = started_game("base", 2)
    client = opened(to_move(game))
    response = client.post(f"/games/{game.pk}/", {"action": "move", "text": "take WUG"})
    assert response.status_code == 400
    assert "which version" in response.content.decode()
    assert not Move.objects.filter(game=game).exists()


def test_moves_that_must_return_tokens_are_listed_under_their_take_with_the_choices() -> None:
    game = started_game("base", 2)
    # Takes without returns until the seat to move holds so many tokens that its takes must return some.
    while not any(" return " in t for t in legal_texts(game)):
        takes = [t for t in legal_texts(game) if t.startswith("take ") and " return " not in t]
        play(game, max(takes, key=len))
    texts = legal_texts(game)
    returning = [t for t in texts if " return " in t]
    assert returning
    html = page(opened(to_move(game)), game).content.decode()
    for text in returning[:5]:  # each return is a move of its own, offered as a button
        assert f'data-move="{text}"' in html


def test_resigning_asks_to_confirm_first_and_then_ends_a_two_player_game() -> None:
    game = started_game("base", 2)
    seat = to_move(game)
    client = opened(seat)
    asked = client.post(f"/games/{game.pk}/resign/")
    assert asked.status_code == 200
    assert "Yes, resign" in asked.content.decode() and 'name="confirm" value="yes"' in asked.content.decode()
    game.refresh_from_db()
    assert game.status == Game.Status.ACTIVE
    done = client.post(f"/games/{game.pk}/resign/", {"confirm": "yes"})
    assert done.status_code == 303
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    assert Seat.objects.get(pk=seat.pk).resigned
    assert "You resigned" in page(client, game).content.decode()


def test_resigning_cannot_be_reached_by_a_get() -> None:
    game = started_game("base", 2)
    client = opened(to_move(game))
    assert client.get(f"/games/{game.pk}/resign/").status_code == 405
    assert not GameEvent.objects.filter(game=game, kind=GameEvent.Kind.SEAT_RESIGNED).exists()


def test_a_spectator_cannot_play_or_resign(client: Client) -> None:
    from tests.games.page_helpers import public_game

    game = public_game()
    assert post_move(client, game, text="take WUG").status_code == 403
    resign = client.post(f"/games/{game.pk}/resign/", {"confirm": "yes"})
    # Nobody logged in and no seat: the login page, which comes back to the game.
    assert resign.status_code == 302 and resign["Location"] == f"/accounts/login/?next=/games/{game.pk}/"
    assert not Move.objects.filter(game=game).exists()
