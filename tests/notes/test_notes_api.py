"""``/api/v1/games/{id}/notes/``: a seat holder reads and replaces their own notes
on a game and its moves, during the game and after it; nobody else reads or
writes them, and storing them changes nothing anyone else sees.

Personas: alice and bob play a public game a few moves in; charlie watches it;
mona is a moderator."""

from __future__ import annotations

from typing import Any

import pytest

from games.models import Game, GameEvent, Seat
from tests.games.game_helpers import client_for
from tests.notes.notes_helpers import game_a_few_moves_in, moderator_named, notes_url

pytestmark = pytest.mark.django_db


@pytest.fixture
def game(alice: Any, bob: Any) -> Game:
    return game_a_few_moves_in(alice, bob)


def put(user: Any, game: Game, body: Any) -> Any:
    return client_for(user).put(notes_url(game), body, format="json")


def test_a_player_has_no_notes_until_they_write_some(game: Game, alice: Any) -> None:
    answer = client_for(alice, scopes=("read",)).get(notes_url(game))
    assert answer.status_code == 200
    seat = Seat.objects.get(game=game, user=alice)
    assert answer.json() == {"game_id": game.pk, "your_seat": seat.index, "moves_played": 3, "note": "", "moves": {}}


def test_a_player_stores_notes_and_reads_them_back_as_written(game: Game, alice: Any) -> None:
    written = {"note": "  Go for the blue nobles.\n\tThen <b>rubies</b> & gold.  ", "moves": {"2": "Too greedy?", "0": "Opening"}}
    answer = put(alice, game, written)
    assert answer.status_code == 200, answer.content
    assert answer.json()["note"] == written["note"]  # as given: no trimming, no escaping
    assert list(answer.json()["moves"].items()) == [("0", "Opening"), ("2", "Too greedy?")]
    assert client_for(alice).get(notes_url(game)).json() == answer.json()


def test_a_put_replaces_the_notes_whole_and_an_empty_one_clears_them(game: Game, alice: Any) -> None:
    put(alice, game, {"note": "first", "moves": {"0": "a", "1": "b"}})
    replaced = put(alice, game, {"note": "second", "moves": {"1": "c", "2": ""}})
    assert replaced.json()["note"] == "second" and replaced.json()["moves"] == {"1": "c"}
    cleared = put(alice, game, {"note": "", "moves": {}})
    assert cleared.status_code == 200 and (cleared.json()["note"], cleared.json()["moves"]) == ("", {})
    seat = Seat.objects.get(game=game, user=alice)
    assert (seat.note, seat.move_notes) == ("", {})


def test_each_player_has_their_own_notes(game: Game, alice: Any, bob: Any) -> None:
    put(alice, game, {"note": "alice's", "moves": {}})
    put(bob, game, {"note": "bob's", "moves": {"1": "mine"}})
    assert client_for(alice).get(notes_url(game)).json()["note"] == "alice's"
    assert client_for(bob).get(notes_url(game)).json()["moves"] == {"1": "mine"}


def test_storing_notes_changes_no_version_and_writes_no_event(game: Game, alice: Any) -> None:
    version, events = game.version, GameEvent.objects.filter(game=game).count()
    assert put(alice, game, {"note": "quiet", "moves": {"0": "quiet too"}}).status_code == 200
    game.refresh_from_db()
    assert game.version == version and GameEvent.objects.filter(game=game).count() == events


def test_notes_are_kept_and_written_after_the_game_and_after_resigning(game: Game, alice: Any, bob: Any) -> None:
    put(bob, game, {"note": "kept", "moves": {}})
    assert client_for(alice).post(f"/api/v1/games/{game.pk}/resign/").status_code == 200
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    assert client_for(bob).get(notes_url(game)).json()["note"] == "kept"
    after = put(alice, game, {"note": "what went wrong", "moves": {"2": "here"}})
    assert after.status_code == 200 and after.json()["moves"] == {"2": "here"}


@pytest.mark.parametrize(
    ("body", "field", "words"),
    [
        ({"note": "x" * 2001, "moves": {}}, "note", "at most 2000 characters; this one has 2001"),
        ({"note": "", "moves": {"0": "y" * 2001}}, "moves.0", "at most 2000 characters"),
        ({"note": "a\x00b\x1bc\x1b", "moves": {}}, "note", "(U+0000, U+001B)"),
        ({"note": "carriage\r\nreturn", "moves": {}}, "note", "U+000D"),
        ({"note": "", "moves": {"1": "bell\x07"}}, "moves.1", "U+0007"),
        ({"note": "", "moves": {"01": "x"}}, "moves", 'named by its ply in digits'),
        ({"note": "", "moves": {"-1": "x"}}, "moves", 'named by its ply in digits'),
        ({"note": "", "moves": {"first": "x"}}, "moves", 'named by its ply in digits'),
        ({"note": "", "moves": {"1": 7}}, "moves.1", "JSON string"),
        ({"note": 12, "moves": {}}, "note", "JSON string"),
        ({"note": "", "moves": ["a"]}, "moves", "JSON object"),
        ({"note": "", "moves": {str(ply): "x" for ply in range(201)}}, "moves", "At most 200 moves"),
    ],
)
def test_what_a_note_may_not_hold_is_refused_by_field_and_nothing_is_stored(
    game: Game, alice: Any, body: dict[str, Any], field: str, words: str
) -> None:
    put(alice, game, {"note": "before", "moves": {}})
    answer = put(alice, game, body)
    assert answer.status_code == 400, answer.content
    problem = answer.json()
    assert problem["code"] == "validation_error"
    assert any(words in message for message in problem["errors"][field]), problem
    assert Seat.objects.get(game=game, user=alice).note == "before"


def test_a_note_may_hold_line_breaks_tabs_and_any_printable_character(game: Game, alice: Any) -> None:
    text = "Línea 1\n\tŽ ž · 🂡 — \u200d\u2028«x»"
    assert put(alice, game, {"note": text, "moves": {}}).json()["note"] == text


def test_a_note_may_name_only_a_move_played_already(game: Game, alice: Any) -> None:
    answer = put(alice, game, {"note": "", "moves": {"2": "fine", "3": "not yet", "40": "nor this"}})
    assert answer.status_code == 400
    assert set(answer.json()["errors"]) == {"moves.3", "moves.40"}
    assert "at plies 0 to 2" in answer.json()["errors"]["moves.3"][0]


def test_both_fields_are_needed_and_no_other(game: Game, alice: Any) -> None:
    answer = put(alice, game, {"note": "only this"})
    assert answer.status_code == 400 and "moves" in answer.json()["errors"]
    stray = put(alice, game, {"note": "", "moves": {}, "seat": 1})
    assert stray.status_code == 400 and "seat" in stray.json()["errors"]


def test_nobody_without_a_seat_reads_or_writes_notes_of_a_game_they_see(
    game: Game, alice: Any, charlie: Any, django_user_model: Any
) -> None:
    put(alice, game, {"note": "secret", "moves": {}})
    staff = django_user_model.objects.create_superuser("root", "root@example.com", "a long admin password")
    for other in (charlie, moderator_named("mona"), staff):
        read = client_for(other, scopes=("read",)).get(notes_url(game))
        assert read.status_code == 403 and read.json()["code"] == "not_a_player", read.content
        assert "secret" not in read.content.decode()
        written = put(other, game, {"note": "mine now", "moves": {}})
        assert written.status_code == 403 and written.json()["code"] == "not_a_player"
    assert not Seat.objects.filter(note="mine now").exists()


def test_a_stranger_to_a_private_game_gets_404_as_for_an_unknown_id(alice: Any, bob: Any, charlie: Any) -> None:
    game = game_a_few_moves_in(alice, bob, public=False)
    for answer in (client_for(charlie).get(notes_url(game)), put(charlie, game, {"note": "", "moves": {}})):
        assert answer.status_code == 404 and answer.json()["code"] == "game_not_found"


def test_a_malformed_body_is_refused_before_the_game_is_looked_up(alice: Any, bob: Any, charlie: Any) -> None:
    game = game_a_few_moves_in(alice, bob, public=False)
    answer = put(charlie, game, {"note": "\x00", "moves": {}})
    assert answer.status_code == 400 and set(answer.json()["errors"]) == {"note"}


def test_a_read_token_reads_notes_and_a_play_token_writes_them(game: Game, alice: Any) -> None:
    reader = client_for(alice, scopes=("read",))
    assert reader.get(notes_url(game)).status_code == 200
    refused = reader.put(notes_url(game), {"note": "no", "moves": {}}, format="json")
    assert refused.status_code == 403 and refused.json()["code"] == "insufficient_scope"
    assert client_for(alice).get(notes_url(game)).json()["note"] == ""


def test_erasing_an_account_clears_its_notes_and_no_one_elses(game: Game, alice: Any, bob: Any) -> None:
    from accounts.services import player_erase

    put(alice, game, {"note": "alice's", "moves": {"0": "a"}})
    put(bob, game, {"note": "bob's", "moves": {"1": "b"}})
    player_erase(user=alice)
    assert Seat.objects.filter(game=game, user=alice).values_list("note", "move_notes").get() == ("", {})
    assert Seat.objects.filter(game=game, user=bob).values_list("note", "move_notes").get() == ("bob's", {"1": "b"})


def test_the_writers_own_export_holds_their_notes_on_each_game(game: Game, alice: Any, bob: Any) -> None:
    put(alice, game, {"note": "exported", "moves": {"1": "this too"}})
    put(bob, game, {"note": "bob's own", "moves": {}})
    export = client_for(alice, scopes=("read",)).get("/api/v1/me/export/").json()
    (exported,) = [entry for entry in export["games"] if entry["id"] == game.pk]
    assert exported["notes"] == {"note": "exported", "moves": {"1": "this too"}}
    assert "bob's own" not in str(export)
