"""Email commands in the recipient's language as well as English: the words are
engine.grammar's, the same the API reads; courtesy words that trail a command
are ignored."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import engine
import pytest
from engine.grammar import GRAMMARS
from tests.engine.builders import position
from tests.factories import seat_to_move
from tests.games.game_helpers import start_two_player_game
from tests.notifications.email_helpers import start_game
from tests.notifications.inbound.mail_helpers import answer, latest, receive, reply_bytes

from games.models import Move, Seat
from notifications.inbound import CommandKind, command_from_text
from notifications.inbound.actions import move_text_with_names
from notifications.inbound.commands import command_languages
from notifications.models import InboundMessage

Status = InboundMessage.Status


@pytest.mark.parametrize(
    ("text", "language", "kind", "argument"),
    [
        ("prendi bianco blu verde", "it", CommandKind.MOVE, "prendi bianco blu verde"),
        ("compra 1-05", "it", CommandKind.MOVE, "compra 1-05"),
        ("riserva mazzo 2", "it", CommandKind.MOVE, "riserva mazzo 2"),
        ("Prenota mazzo 3, per favore.", "it", CommandKind.MOVE, "Prenota mazzo 3"),
        ("mosse", "it", CommandKind.MOVES, ""),
        ("aiuto", "it", CommandKind.HELP, ""),
        ("Tabellone, grazie", "it", CommandKind.BOARD, ""),
        ("abbandona", "it", CommandKind.RESIGN, ""),
        ("conferma K7QD-2XMA-9FPT", "it", CommandKind.CONFIRM, "k7qd2xma9fpt"),
        ("vacanza 3", "it", CommandKind.VACATION, "3"),
        ("ferie 5 grazie", "it", CommandKind.VACATION, "5"),
        ("accetta", "it", CommandKind.ACCEPT, ""),
        ("rifiuta", "it", CommandKind.DECLINE, ""),
        ("ņem baltu zilu zaļu", "lv", CommandKind.MOVE, "ņem baltu zilu zaļu"),
        ("pērc 1-05", "lv", CommandKind.MOVE, "pērc 1-05"),
        ("rezervē kaudzīte 2", "lv", CommandKind.MOVE, "rezervē kaudzīte 2"),
        ("Paņem 2 sarkanus, lūdzu!", "lv", CommandKind.MOVE, "Paņem 2 sarkanus"),
        ("gājieni", "lv", CommandKind.MOVES, ""),
        ("palīdzība", "lv", CommandKind.HELP, ""),
        ("laukums paldies", "lv", CommandKind.BOARD, ""),
        ("padodos", "lv", CommandKind.RESIGN, ""),
        ("apstiprini K7QD-2XMA-9FPT", "lv", CommandKind.CONFIRM, "k7qd2xma9fpt"),
        ("atvaļinājums 4", "lv", CommandKind.VACATION, "4"),
        ("pieņemu", "lv", CommandKind.ACCEPT, ""),
        ("noraidu", "lv", CommandKind.DECLINE, ""),
        ("take white blue green please", "it", CommandKind.MOVE, "take white blue green"),
        ("board", "lv", CommandKind.BOARD, ""),
    ],
)
def test_a_command_in_the_recipients_language_is_read(
    text: str, language: str, kind: CommandKind, argument: str
) -> None:
    command = command_from_text(f"Ciao!\n{text}\nMario", languages=("en", language))
    assert (command.kind, command.argument) == (kind, argument)


@pytest.mark.parametrize("code", ["it", "lv"])
def test_every_command_word_of_a_language_reads_as_its_command(code: str) -> None:
    assert GRAMMARS[code].commands
    for word, meaning in GRAMMARS[code].commands.items():
        command = command_from_text(f"{word} 3" if meaning == "vacation" else word, languages=(code,))
        assert command.kind is CommandKind(meaning), word


@pytest.mark.parametrize("text", ["prendi bianco blu verde", "mosse", "aiuto", "ņem baltu zilu zaļu", "gājieni"])
def test_a_command_in_a_language_not_the_recipients_is_no_command(text: str) -> None:
    assert command_from_text(text).kind is CommandKind.UNKNOWN
    other = "lv" if text in ("prendi bianco blu verde", "mosse", "aiuto") else "it"
    assert command_from_text(text, languages=(other,)).kind is CommandKind.UNKNOWN


def test_the_first_line_with_a_command_in_either_language_is_the_command() -> None:
    command = command_from_text("Buongiorno,\nprendi bianco blu verde\nboard", languages=("it",))
    assert command.kind is CommandKind.MOVE
    assert command_from_text("board\nprendi bianco blu verde", languages=("it",)).kind is CommandKind.BOARD


def test_zero_width_characters_and_capitals_do_not_hide_a_command_word() -> None:
    assert command_from_text("MO\u200bSSE", languages=("it",)).kind is CommandKind.MOVES
    assert command_from_text("\ufeffGĀJIENI", languages=("lv",)).kind is CommandKind.MOVES
    assert command_from_text("n\u0327em baltu", languages=("lv",)).kind is CommandKind.MOVE


def test_a_new_game_is_asked_for_in_italian_and_latvian() -> None:
    command = command_from_text("nuova partita marvel 3 con Bob@Example.com e carol@example.org", languages=("it",))
    assert (command.kind, command.variant, command.seats, command.invite) == (
        CommandKind.NEW, "marvel", 3, ("bob@example.com", "carol@example.org"))
    command = command_from_text("jauna spēle base 2 ar greedy", languages=("lv",))
    assert (command.kind, command.variant, command.seats, command.bots) == (CommandKind.NEW, "base", 2, ("greedy",))


def test_trailing_courtesy_words_leave_a_vacation_its_number_but_other_words_do_not() -> None:
    assert command_from_text("vacation 3 please").argument == "3"
    assert command_from_text("vacation 3 thanks").argument == "3"
    assert command_from_text("vacation 3 days").error


def test_commands_are_read_in_english_and_the_accounts_language() -> None:
    assert command_languages(SimpleNamespace(player=SimpleNamespace(language="it"))) == ("en", "it")
    assert command_languages(SimpleNamespace(player=SimpleNamespace(language="lv"))) == ("en", "lv")
    assert command_languages(SimpleNamespace(player=SimpleNamespace(language="en"))) == ("en",)
    assert command_languages(SimpleNamespace(player=SimpleNamespace(language="de"))) == ("en",)
    assert command_languages(SimpleNamespace()) == ("en",)  # no player yet, or no language on it
    assert command_languages(None) == ("en",)


# --- through the services --------------------------------------------------------------


def _speaks(user: Any, language: str) -> None:
    player = user.player
    player.language = language
    player.save(update_fields=["language"])


@pytest.mark.django_db
@pytest.mark.parametrize(("language", "body"), [("it", "Prendi bianco, blu e verde, grazie!"),
                                                 ("lv", "Ņem baltu, zilu un zaļu, lūdzu")])
def test_a_move_written_in_the_players_language_is_played_by_email(
    clock: Any, commit: Any, alice: Any, bob: Any, language: str, body: str
) -> None:
    game = start_game(commit, alice, bob)
    player = seat_to_move(game).user
    turn_email = latest(player, "Your turn")
    _speaks(player, language)
    inbound = receive(commit, reply_bytes(turn_email, sender=player.email, body=body))
    assert inbound is not None and inbound.status == Status.APPLIED, inbound and inbound.outcome
    assert Move.objects.get(game=game, ply=0).text == "take WUG"  # stored in canonical notation


@pytest.mark.django_db
def test_a_move_in_italian_from_a_player_who_reads_english_is_not_played(
    clock: Any, commit: Any, alice: Any, bob: Any
) -> None:
    game = start_game(commit, alice, bob)
    player = seat_to_move(game).user
    inbound = receive(commit, reply_bytes(latest(player, "Your turn"), sender=player.email,
                                          body="prendi bianco blu verde"))
    assert inbound is not None and inbound.status == Status.REFUSED
    assert not Move.objects.filter(game=game).exists()


@pytest.mark.django_db
def test_a_blind_reservation_in_latvian_is_played_by_email(clock: Any, commit: Any, alice: Any, bob: Any) -> None:
    game = start_game(commit, alice, bob)
    player = seat_to_move(game).user
    turn_email = latest(player, "Your turn")
    _speaks(player, "lv")
    inbound = receive(commit, reply_bytes(turn_email, sender=player.email, body="rezervē kaudzīte 2 paldies"))
    assert inbound is not None and inbound.status == Status.APPLIED, inbound and inbound.outcome
    assert Move.objects.get(game=game, ply=0).text == "reserve deck2"


@pytest.mark.django_db
def test_a_character_named_in_italian_words_becomes_its_id_and_a_deck_stays_a_deck(alice: Any, bob: Any) -> None:
    game = start_two_player_game(alice, bob, variant="marvel")
    seat = Seat.objects.get(game=game, index=game.to_move)
    state = engine.from_dict(game.state)
    card_id = state.market[0][0]
    name = state.variant.cards[card_id].name
    assert move_text_with_names(game, seat, f"compra {name} luogo L1A", languages=("it",)) == (
        f"compra {card_id} luogo L1A")
    assert move_text_with_names(game, seat, f"pērc {name}", languages=("lv",)) == f"pērc {card_id}"
    for text, language in (("riserva mazzo 2", "it"), ("rezervē kaudzīte 3", "lv"), ("prenota mazzo3", "it")):
        assert move_text_with_names(game, seat, text, languages=(language,)) == text


# --- one grammar for every door ---------------------------------------------------------

DOOR_TEXTS = [
    "buy 1a please", "reserve deck1 please", "take white blue green, thanks!", "take WUG.", "take WUG now",
    "please take WUG", "take WUGR", "take WUGR please", "take WUG grazie", "prendi bianco blu verde per favore",
    "riserva mazzo 2", "compra 1a, grazie", "ņem baltu zilu zaļu lūdzu", "rezervē kaudzīte 2 paldies",
    "pērc 1a", "take\u200b WUG", "pass", "passa", "take ２ red",
]


def _outcome(read: Any) -> tuple[str, str]:
    try:
        return ("move", str(read()))
    except engine.EngineError as refused:
        return (type(refused).__name__, getattr(refused, "rule", ""))


@pytest.mark.parametrize("language", ["en", "it", "lv"])
@pytest.mark.parametrize("text", DOOR_TEXTS)
def test_the_email_door_accepts_and_refuses_a_move_as_the_api_does(text: str, language: str) -> None:
    """What the API plays (engine.parse_move of the text) an email plays, and what
    it refuses with a rule the email refuses with that rule; a text the API cannot
    read either is no command by email or is not read there either."""
    state = position("base", seat_tokens={0: "RRKJ"}, market={1: ["1-01"]})
    languages = ("en", language)
    api = _outcome(lambda: engine.parse_move(state, text, languages=languages))
    command = command_from_text(text, languages=languages)
    if command.kind is not CommandKind.MOVE:
        assert api[0] == "InvalidNotation", (text, api)
        return
    email = _outcome(lambda: engine.parse_move(state, command.argument, languages=languages))
    assert email == api


@pytest.mark.django_db
@pytest.mark.parametrize(("language", "body"), [("en", "take WUGR"), ("it", "prendi bianco blu verde rosso")])
def test_a_take_of_four_tokens_by_email_is_refused_citing_b_take_3(
    clock: Any, commit: Any, alice: Any, bob: Any, language: str, body: str
) -> None:
    game = start_game(commit, alice, bob)
    player = seat_to_move(game).user
    turn_email = latest(player, "Your turn")
    _speaks(player, language)
    inbound = receive(commit, reply_bytes(turn_email, sender=player.email, body=body))
    assert inbound is not None and inbound.status == Status.REFUSED
    assert "B-TAKE-3" in answer(player, "reply_refused").body
    assert not Move.objects.filter(game=game).exists()


def test_the_readers_refusals_are_all_marked_for_translation_in_the_reply() -> None:
    from notifications.inbound import actions, commands

    assert set(commands.COMMAND_ERRORS) == set(actions._COMMAND_ERRORS)


@pytest.mark.parametrize(
    ("language", "line", "words"),
    [
        ("it", "vacanza tre giorni", '"vacanza 3"'),
        ("lv", "jauna base 2 3", "sēdvietu skaitu norādi tikai vienreiz"),
        ("en", "new base 2 3", "give the number of seats once"),
    ],
)
def test_a_command_whose_words_cannot_be_read_is_answered_in_the_readers_language(
    language: str, line: str, words: str
) -> None:
    from django.utils import translation

    from notifications.inbound import actions
    from notifications.inbound.commands import command_from_text

    command = command_from_text(line, languages=(language,)) if language != "en" else command_from_text(line)
    assert command.error
    with translation.override(language):
        assert words in actions._why(command)
