"""A move written in words (engine.words) is read back as the same move
(engine.notation), in English, Italian and Latvian, for every legal move of
random positions of both games."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engine
from engine.grammar import GRAMMARS, reading_languages
from engine.variants import get_variant
from engine.words import LANGUAGES, letters_words, move_words, phrasing_language, plan_line_words
from tests.engine.builders import position

ENGLISH_MOVE_WORDS = {"take", "buy", "recruit", "reserve", "pass", "return", "noble", "location", "paying",
                      "from", "deck", "white", "blue", "green", "red", "black", "gold", "yellow", "orange",
                      "purple", "grey"}


def test_the_writer_speaks_every_language_the_grammar_reads():
    assert set(LANGUAGES) == set(GRAMMARS)


@pytest.mark.slow
@pytest.mark.parametrize("variant", ["base", "marvel"])
@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_every_legal_move_written_in_words_is_read_back_as_itself(variant, data):
    """parse(write(move)) == move, in each language alone and as a person's
    email is read (English and their language), at every ply of a random game."""
    players = data.draw(st.integers(2, 4), label="players")
    state = engine.new_game(variant=variant, players=players, seed=data.draw(st.integers(0, 2**31 - 1), label="seed"))
    rules = get_variant(variant)
    checked = 0
    # Every legal move of one position in six (the game's positions are much
    # alike from one ply to the next), from a ply Hypothesis draws.
    first = data.draw(st.integers(0, 5), label="first ply checked")
    while not engine.is_over(state):
        moves = engine.legal_moves(state)
        for move in moves if state.ply % 6 == first else ():
            for language in LANGUAGES:
                written = move_words(move, rules, language)
                assert engine.parse_move(state, written, languages=(language,)) == move, written
                assert engine.parse_move(state, written, languages=reading_languages(language)) == move, written
                checked += 1
        state = engine.apply(state, moves[data.draw(st.integers(0, len(moves) - 1))])
    assert checked > 0 or state.ply <= first


@pytest.mark.parametrize("move, language, words", [
    ("take WUG", "en", "take white, blue and green"),
    ("take WUG", "it", "prendi bianco, blu e verde"),
    ("take WUG", "lv", "ņem baltu, zilu un zaļu"),
    ("take RR return K", "it", "prendi 2 rossi, restituisci nero"),
    ("take RR return K", "lv", "ņem 2 sarkanus, atdod melnu"),
    ("reserve deck2", "en", "reserve from deck 2"),
    ("reserve deck2", "it", "riserva dal mazzo 2"),
    ("reserve deck2", "lv", "rezervē no kaudzītes 2"),
    ("reserve 1-05 return J", "it", "riserva 1-05, restituisci oro"),
    ("buy 2-05 J:RK noble N04", "en", "buy 2-05 paying 2 gold for red and black, noble N04"),
    ("buy 2-05 J:R", "it", "compra 2-05 pagando oro per rosso"),
    ("buy 2-05 J:RR", "lv", "pērc 2-05 maksājot 2 zelta par 2 sarkanus"),
    ("pass", "it", "passa"),
])
def test_a_move_in_words(move, language, words):
    assert move_words(move, get_variant("base"), language) == words


def test_a_marvel_buy_is_a_recruit_and_its_joker_is_grey():
    marvel = get_variant("marvel")
    assert move_words("buy 2-05 J:R location L1A", marvel, "en") == "recruit 2-05 paying grey for red, location L1A"
    assert move_words("buy 2-05 J:R location L1A", marvel, "it") == "recluta 2-05 pagando grigio per rosso, luogo L1A"


def test_a_blind_reservation_names_the_deck_and_nothing_else():
    """The words of another's reservation from a deck are the deck's: the move
    holds no card, and nothing else is written."""
    written = {language: move_words("reserve deck3", get_variant("base"), language) for language in LANGUAGES}
    assert written == {"en": "reserve from deck 3", "it": "riserva dal mazzo 3", "lv": "rezervē no kaudzītes 3"}


def test_no_english_move_word_is_written_in_italian_or_latvian():
    base, marvel = get_variant("base"), get_variant("marvel")
    samples = ["take WUG return K", "reserve deck1", "buy 1-01 J:RK noble N01", "pass"]
    for language in ("it", "lv"):
        for text in samples:
            words = set(move_words(text, base, language).replace(",", " ").split())
            assert not words & ENGLISH_MOVE_WORDS, (language, text)
        words = set(move_words("buy 1-01 J:R location L1A", marvel, language).replace(",", " ").split())
        assert not words & ENGLISH_MOVE_WORDS


def test_the_payment_in_words_must_name_one_joker_a_token():
    state = position("base", seat_tokens={0: "RRJ"})
    for text in ("buy 1-01 paying gold", "buy 1-01 paying gold for", "buy 1-01 paying 2 gold for red",
                 "buy 1-01 paying red for red", "take WUG paying gold for red"):
        with pytest.raises(engine.InvalidNotation):
            engine.parse_move(state, text)


def test_from_is_read_only_before_a_deck():
    state = position("base")
    with pytest.raises(engine.InvalidNotation):
        engine.parse_move(state, "reserve from 1-01")


@pytest.mark.parametrize("language, code", [("it-it", "it"), ("lv", "lv"), ("en-gb", "en"), ("fr", "en"),
                                            (None, "en"), ("pt_BR", "en")])
def test_the_writer_language_of_a_locale(language, code):
    assert phrasing_language(language) == code


def test_letters_in_words_count_and_join():
    assert letters_words("RRK", get_variant("base"), "en") == "2 red and black"
    assert letters_words("WUGRK", get_variant("base"), "it") == "bianco, blu, verde, rosso e nero"


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_plan_line_in_words_is_read_back(language):
    from engine.grammar import grammar_for, plan_line_split

    line = plan_line_words("take WUG", "reserve deck1", get_variant("base"), language)
    condition, then = plan_line_split(line, grammar_for([language]))
    state = position("base")
    assert engine.read_move(state, condition, languages=(language,)) == "take WUG"
    assert engine.read_move(state, then, languages=(language,)) == "reserve deck1"
    any_line = plan_line_words("any", "pass", get_variant("base"), language)
    assert plan_line_split(any_line, grammar_for([language]))[0] == "any"
