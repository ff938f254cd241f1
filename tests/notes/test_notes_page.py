"""The game page's notes panel: its seat holder writes a note on the game and
notes on moves in a form that needs no script (a POST, then a redirect back),
during the game and after it; nobody else's page shows it, and a refused form
keeps what was typed."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from games import services
from games.models import Game, Seat
from tests.games.board_helpers import play, first_take, started_game
from tests.games.page_helpers import opened, other_than, page, public_game, to_move

pytestmark = pytest.mark.django_db


def _post(client: Client, game: Game, **fields: str) -> Any:
    return client.post(f"/games/{game.pk}/", {"action": "notes", **fields})


def _game_two_moves_in() -> Game:
    game = started_game("base", 2)
    play(game, first_take(game))
    play(game, first_take(game))
    return game


def _seat(seat: Seat) -> Seat:
    return Seat.objects.get(pk=seat.pk)


def test_a_player_writes_a_note_on_the_game_and_one_on_a_move_from_the_page() -> None:
    game = _game_two_moves_in()
    seat = to_move(game)
    client = opened(seat)
    html = page(client, game).content.decode()
    assert 'id="notes-form"' in html and '<label for="notes-note">' in html and '<label for="notes-ply">' in html
    answer = _post(client, game, note="Blue nobles.\r\nThen rubies.", ply="0", move_note="A quiet start")
    assert answer.status_code == 303 and answer["Location"] == f"/games/{game.pk}/"
    stored = _seat(seat)
    assert (stored.note, stored.move_notes) == ("Blue nobles.\nThen rubies.", {"0": "A quiet start"})
    again = page(client, game).content.decode()
    assert "Your notes are saved. Only you can see them." in again
    assert "Blue nobles.\nThen rubies.</textarea>" in again
    assert 'name="move-0"' in again and "A quiet start</textarea>" in again


def test_a_new_note_goes_on_the_last_move_unless_another_is_chosen() -> None:
    game = _game_two_moves_in()
    seat = to_move(game)
    html = page(opened(seat), game).content.decode()
    assert '<option value="1" selected>' in html and '<option value="0">' in html


def test_editing_and_emptying_the_notes_on_moves_keeps_those_the_form_did_not_show() -> None:
    game = _game_two_moves_in()
    seat = to_move(game)
    services.notes_store(game_id=game.pk, user=seat.user, note="", moves={"0": "first"})
    client = opened(seat)
    assert 'name="move-0"' in page(client, game).content.decode()
    # Meanwhile a note on move 1 is stored through the API: the form, drawn before, does not show it.
    services.notes_store(game_id=game.pk, user=seat.user, note="", moves={"0": "first", "1": "from the API"})
    assert _post(client, game, note="", **{"move-0": "first, mended"}).status_code == 303
    assert _seat(seat).move_notes == {"0": "first, mended", "1": "from the API"}
    assert _post(client, game, note="only the game's", **{"move-0": ""}).status_code == 303
    assert _seat(seat).move_notes == {"1": "from the API"} and _seat(seat).note == "only the game's"


def test_a_refused_note_is_named_and_the_form_keeps_what_was_typed() -> None:
    game = _game_two_moves_in()
    seat = to_move(game)
    services.notes_store(game_id=game.pk, user=seat.user, note="kept", moves={})
    client = opened(seat)
    answer = _post(client, game, note="typed \x1b here", ply="1", move_note="x" * 2001)
    assert answer.status_code == 400
    html = answer.content.decode()
    assert "Notes not saved:" in html
    assert "The note on the game: A note is plain text" in html and "(U+001B)" in html
    assert "The note on move 2: A note is at most 2000 characters; this one has 2001." in html
    assert "typed \x1b here</textarea>" in html and "x" * 2001 + "</textarea>" in html
    assert _seat(seat).note == "kept"


def test_a_note_on_a_move_needs_its_move() -> None:
    game = _game_two_moves_in()
    seat = to_move(game)
    answer = _post(opened(seat), game, note="", ply="", move_note="on what?")
    assert answer.status_code == 400 and "Choose the move your note is about." in answer.content.decode()


def test_before_any_move_there_is_a_note_on_the_game_and_no_move_to_choose() -> None:
    game = started_game("base", 2)
    html = page(opened(to_move(game)), game).content.decode()
    assert 'id="notes-note"' in html and 'id="notes-ply"' not in html


def test_the_panel_stays_after_the_game_and_after_resigning() -> None:
    game = _game_two_moves_in()
    leaver = to_move(game)
    stayer = other_than(game, leaver)
    services.game_resign(game=game, user=leaver.user)
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    for seat in (leaver, stayer):
        client = opened(seat)
        assert 'id="notes-form"' in page(client, game).content.decode()
        assert _post(client, game, note="after the game", ply="1", move_note="the turning point").status_code == 303
        assert _seat(seat).move_notes == {"1": "the turning point"}


def test_a_spectator_has_no_panel_and_cannot_post_one(charlie: Any) -> None:
    game = public_game()
    watcher = Client()
    watcher.force_login(charlie)
    html = page(watcher, game).content.decode()
    assert 'id="notes' not in html
    assert _post(watcher, game, note="mine").status_code == 403
    assert not Seat.objects.filter(note="mine").exists()


def test_an_invitee_who_has_not_joined_has_no_panel(alice: Any, bob: Any) -> None:
    game = services.game_create(creator=alice, seats=2, invited=[bob])
    client = Client()
    client.force_login(bob)
    assert 'id="notes' not in page(client, game).content.decode()
    answer = _post(client, game, note="early")
    assert answer.status_code == 403 and not Seat.objects.filter(note="early").exists()


def test_the_form_needs_its_csrf_token() -> None:
    game = _game_two_moves_in()
    seat = to_move(game)
    client = opened(seat, csrf=True)
    assert _post(client, game, note="forged").status_code == 403
    assert _seat(seat).note == ""


def test_the_replay_shows_the_writers_notes_beside_their_moves() -> None:
    game = _game_two_moves_in()
    seat = to_move(game)
    services.notes_store(game_id=game.pk, user=seat.user, note="", moves={"1": "here <b>it turned</b>"})
    html = opened(seat).get(f"/games/{game.pk}/replay/?ply=1").content.decode()
    assert "Your note:</strong> here &lt;b&gt;it turned&lt;/b&gt;" in html
    other = opened(other_than(game, seat)).get(f"/games/{game.pk}/replay/?ply=1").content.decode()
    assert "it turned" not in other and "Your note:" not in other


@pytest.mark.parametrize(
    ("language", "words"),
    [
        ("it", ("Le tue note", "Sulla partita", "Una nota su una mossa", "Salva le note", "Le tue note sono salvate.")),
        ("lv", ("Tavas piezīmes", "Par spēli", "Piezīme par gājienu", "Saglabāt piezīmes", "Tavas piezīmes ir saglabātas.")),
    ],
)
def test_the_panel_speaks_the_players_language(language: str, words: tuple[str, ...]) -> None:
    game = _game_two_moves_in()
    seat = to_move(game)
    seat.user.player.language = language
    seat.user.player.save(update_fields=["language"])
    client = opened(seat)  # from the seat's link: the page in the player's language
    assert _post(client, game, note="x", ply="0", move_note="y").status_code == 303
    html = page(client, game).content.decode()
    for word in words:
        assert word in html, word
    refused = _post(client, game, note="\x07").content.decode()
    assert ("Note non salvate:" if language == "it" else "Piezīmes nav saglabātas:") in refused
