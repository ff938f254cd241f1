"""The games app speaks Italian and Latvian (docs/glossary-it.md, docs/glossary-lv.md):
the game page and its board, the replay, the board of the emails, the account pages
of games, and the refusals of the services and the API; English stays the default."""

from __future__ import annotations

import html as html_module
import json
import re
from datetime import UTC, datetime
from typing import Any

import pytest
from django.template import Context, Template
from django.template.loader import render_to_string
from django.test import Client
from django.utils import translation

from accounts.models import Player
from games import errors, services
from games.pages.game import move_words
from games.models import Game, Seat
from games.presentation import board_context
from tests.accounts.pages_helpers import logged_in_client, page_text
from tests.games.board_helpers import first_take, page_path, play, started_game
from tests.games.game_helpers import client_for, start_two_player_game, user_to_move

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _english_afterwards() -> Any:
    """A page drawn in Italian leaves the thread speaking it: the tests after these
    read English."""
    yield
    translation.deactivate()


def speaking(seat: Seat, language: str) -> Client:
    """A browser of a player whose account speaks ``language`` (and which asks for it),
    opened on ``seat``'s link."""
    Player.objects.filter(user=seat.user).update(language=language)
    browser = Client(HTTP_ACCEPT_LANGUAGE=language)
    assert browser.get(page_path(seat)).status_code == 303
    return browser


def seat_page(game: Game, seat: Seat, language: str) -> str:
    """The game page as ``seat``'s browser draws it in ``language``."""
    browser = speaking(seat, language)
    answer = browser.get(f"/games/{game.pk}/")
    assert answer.status_code == 200
    return answer.content.decode()


def mover_of(game: Game) -> Seat:
    game.refresh_from_db()
    return Seat.objects.get(game=game, index=game.to_move)


def waiter_of(game: Game) -> Seat:
    game.refresh_from_db()
    return Seat.objects.filter(game=game).exclude(index=game.to_move).get()


# --- the game page ---------------------------------------------------------------------


def test_the_game_page_of_the_seat_to_move_reads_in_italian() -> None:
    game = started_game("base", 2)
    html = seat_page(game, mover_of(game), "it")

    assert 'lang="it"' in html
    for words in ("Tocca a te: mossa 1.", "Livello 3", "Banca", "Nobili", "La tua mossa", "Prendi gettoni", "bianco"):
        assert words in html, words
    for words in ("It is your turn", "Level 3", "Bank", "Nobles", "Your move", "Take tokens"):
        assert words not in html, words


def test_the_game_page_of_the_seat_to_move_reads_in_latvian() -> None:
    game = started_game("base", 2)
    html = seat_page(game, mover_of(game), "lv")

    assert 'lang="lv"' in html
    for words in ("Tavs gājiens: 1. gājiens.", "3. līmenis", "Banka", "Dižciltīgie", "Ņem žetonus", "balts", "zelts"):
        assert words in html, words
    for words in ("It is your turn", "Level 3", ">Bank<", "Nobles", "Take tokens"):
        assert words not in html, words
    # The player's tokens, not the API's ("Pilnvaras", another catalog's "Tokens").
    assert "<span>Žetoni</span>" in html and "Pilnvaras" not in html


def test_the_waiting_seat_reads_whose_turn_it_is_in_latvian() -> None:
    game = started_game("base", 2)
    mover = mover_of(game)
    name = mover.user.player.display_name or mover.user.get_username()

    html = seat_page(game, waiter_of(game), "lv")

    assert f"{name} izdara 1. gājienu." in html
    assert "Gaidām, kamēr gājienu izdarīs" in html
    assert "is to play move" not in html


def test_a_marvel_board_names_its_locations_and_the_time_stone_in_italian() -> None:
    game = started_game("marvel", 2)
    html = seat_page(game, mover_of(game), "it")

    for words in ("Luoghi", "Gemma del Tempo", "Avengers Assemble e il Guanto", "giallo", "viola"):
        assert words in html, words
    assert "Locations" not in html and "Time Stone" not in html


def test_the_page_stays_english_for_an_english_browser() -> None:
    game = started_game("base", 2)
    html = seat_page(game, mover_of(game), "en")

    assert "It is your turn: move 1." in html and "Bank" in html
    assert "Tocca a te" not in html


def test_the_deadline_is_written_with_the_days_and_months_of_the_readers_language(active_game: Game) -> None:
    Game.objects.filter(pk=active_game.pk).update(deadline_at=datetime(2026, 12, 1, 15, 0, tzinfo=UTC))
    active_game.refresh_from_db()

    with translation.override("it"):
        italian = board_context(game=active_game, seat_index=None)["deadline_text"]
    with translation.override("lv"):
        latvian = board_context(game=active_game, seat_index=None)["deadline_text"]

    assert italian.startswith("mar 01 dic 2026, 15:00") and italian.endswith("UTC")
    assert latvian == "01.12.2026., 15:00 UTC"  # Latvian writes a short date in numbers


def test_the_replay_reads_in_latvian() -> None:
    game = started_game("base", 2)
    play(game, first_take(game))
    browser = speaking(mover_of(game), "lv")

    html = browser.get(f"/games/{game.pk}/replay/?ply=1").content.decode()

    for words in ("ieraksts: pēc 1. gājiena no 1", "Pagātnes pozīcija", "Atpakaļ uz spēli", "Izdale"):
        assert words in html, words
    assert "Replay of game" not in html and "Back to the game" not in html


def test_a_refused_move_on_the_page_is_told_in_italian() -> None:
    game = started_game("base", 2)
    browser = speaking(mover_of(game), "it")

    answer = browser.post(f"/games/{game.pk}/", {"action": "move", "version": str(game.version)})

    assert answer.status_code == 400
    assert "Scegli una mossa dall&#x27;elenco o scrivila." in answer.content.decode()
    assert "Non giocata:" in answer.content.decode()


def test_the_words_the_page_script_writes_beside_the_moves_come_in_the_pages_language() -> None:
    game = started_game("base", 2)
    html = seat_page(game, mover_of(game), "it")

    carried = re.search(r'data-words="([^"]*)"', html)
    assert carried is not None
    words = json.loads(html_module.unescape(carried.group(1)))

    assert words["none"] == "Nessuna mossa legale con %(what)s."
    assert words["every"] == "tutte le mosse legali"
    assert words["counts"][2] == "%(what)s: 2 mosse."


def test_the_count_of_moves_the_page_script_writes_takes_latvians_three_forms() -> None:
    with translation.override("lv"):
        counts = move_words(21)["counts"]

    assert counts[1] == "%(what)s: 1 gājiens."
    assert counts[2] == "%(what)s: 2 gājieni."
    assert counts[11] == "%(what)s: 11 gājienu."
    assert counts[21] == "%(what)s: 21 gājiens."


# --- the board of the emails -------------------------------------------------------------


def test_the_emails_board_in_plain_text_reads_in_latvian(active_game: Game) -> None:
    with translation.override("lv"):
        board = board_context(game=active_game, seat_index=0)
        text = render_to_string("games/_board.txt", {"board": board})

    for words in ("BANKA", "DIŽCILTĪGIE", "SPĒLĒTĀJI", "3. LĪMENIS", "Krāsas:", "žetoni"):
        assert words in text, words
    assert "BANK " not in text and "PLAYERS" not in text


def test_the_emails_board_in_html_reads_in_italian(active_game: Game) -> None:
    with translation.override("it"):
        board = board_context(game=active_game, seat_index=0)
        html = render_to_string("games/_board.html", {"board": board})

    for words in ("Banca", "Nobili", "Giocatori", "Livello 1", "Colori:"):
        assert words in html, words
    assert "Players" not in html and "Colours:" not in html


# --- counts: Latvian has three plural forms ---------------------------------------------


@pytest.mark.parametrize(
    ("count", "italian", "latvian"),
    [
        (1, "1 gettone", "1 žetons"),
        (2, "2 gettoni", "2 žetoni"),
        (11, "11 gettoni", "11 žetonu"),
        (21, "21 gettoni", "21 žetons"),
    ],
)
def test_a_count_of_tokens_takes_the_form_its_number_needs(count: int, italian: str, latvian: str) -> None:
    template = Template(
        "{% load i18n %}{% blocktranslate count n=count trimmed %}{{ n }} token{% plural %}{{ n }} tokens"
        "{% endblocktranslate %}"
    )
    with translation.override("it"):
        assert template.render(Context({"count": count})) == italian
    with translation.override("lv"):
        assert template.render(Context({"count": count})) == latvian


@pytest.mark.parametrize(
    ("days", "latvian"),
    [
        (1, "Tu prasīji 1 atvaļinājuma dienu"),
        (2, "Tu prasīji 2 atvaļinājuma dienas"),
        (11, "Tu prasīji 11 atvaļinājuma dienu"),
    ],
)
def test_a_vacation_refused_for_its_days_counts_them_in_latvian(
    alice: Any, days: int, latvian: str, settings: Any
) -> None:
    settings.VACATION_DAYS_PER_YEAR = 0
    with translation.override("lv"), pytest.raises(errors.NotEnoughVacation) as refused:
        services.vacation_take(user=alice, days=days)

    assert refused.value.message.startswith(latvian)
    assert refused.value.code == "not_enough_vacation"


# --- the account pages of games ---------------------------------------------------------


def test_my_games_reads_in_the_players_language(alice: Any, bob: Any) -> None:
    game = start_two_player_game(alice, bob)
    mover = user_to_move(game)
    Player.objects.filter(user=mover).update(language="it", time_zone="Europe/Rome")

    text = page_text(logged_in_client(mover).get("/accounts/games/"))

    for words in ("Le mie partite", "Aspettano te", "Tocca a te", "Scadenza", "Nuova partita"):
        assert words in text, words
    assert "My games" not in text and "Your turn" not in text


def test_the_home_page_reads_in_latvian_for_a_latvian_player(alice: Any, bob: Any) -> None:
    game = start_two_player_game(alice, bob)
    mover = user_to_move(game)
    Player.objects.filter(user=mover).update(language="lv")

    text = page_text(logged_in_client(mover).get("/"))

    for words in ("Gaida tevi", "Manas spēles", "Programmētājiem"):
        assert words in text, words
    assert "Waiting for you" not in text


def test_the_vacation_page_counts_its_days_in_italian(alice: Any) -> None:
    Player.objects.filter(user=alice).update(language="it")

    text = page_text(logged_in_client(alice).get("/accounts/vacation/"))

    assert "Vacanza" in text and "giorni di vacanza" in text
    assert "vacation days" not in text


# --- the API's refusals -----------------------------------------------------------------


def test_a_move_out_of_turn_is_refused_in_the_language_asked_for_and_its_code_stays(active_game: Game) -> None:
    waiter = waiter_of(active_game)
    api = client_for(waiter.user)

    answer = api.post(
        f"/api/v1/games/{active_game.pk}/moves/",
        {"move": "pass", "expected_version": active_game.version},
        format="json",
        HTTP_ACCEPT_LANGUAGE="it",
    )

    body = answer.json()
    assert answer.status_code == 409
    assert body["code"] == "not_your_turn"
    assert body["detail"].startswith("Tocca al posto")
