"""One grammar per language (engine.grammar): the words of moves and email
commands in English, Italian and Latvian, read by parse_move in the languages
asked for, English always among them; courtesy words that trail a move are
ignored, anything else extra is not; a move the rules forbid is an IllegalMove
with its rule id in every language."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engine
from engine import AmbiguousMove, IllegalMove, InvalidNotation
from engine.grammar import (
    ACTIONS,
    COMMANDS,
    ENGLISH_GRAMMAR,
    GRAMMARS,
    ITALIAN_GRAMMAR,
    LATVIAN_GRAMMAR,
    PARTS,
    grammar_for,
    text_normalise,
    word_key,
)
from engine.variants import VARIANTS
from tests.engine.builders import position

ENGLISH_COLOUR_WORDS = {word for variant in VARIANTS.values() for word in variant.words}


def lenient_position() -> engine.State:
    """Seat 0 holds R R K J U U and has reserved 1-02 (3 blue); 1-01 (2 red, 1
    black) is in slot 1a, 2-09 in slot 2c."""
    return position("base", seat_tokens={0: "RRKJUU"}, reserved={0: ["1-02"]},
                    market={1: ["1-01"], 2: ["2-01", "2-02", "2-09"]})


# --- the tables ----------------------------------------------------------------------


@pytest.mark.parametrize("code", list(GRAMMARS))
def test_every_language_has_a_word_for_every_action_part_and_command(code):
    grammar = GRAMMARS[code]
    assert set(grammar.verbs.values()) == set(ACTIONS)
    assert set(grammar.parts.values()) == set(PARTS)
    assert set(grammar.commands.values()) == set(COMMANDS)
    assert grammar.decks and grammar.ands and grammar.courtesy


@pytest.mark.parametrize("code", list(GRAMMARS))
def test_every_word_is_stored_as_it_is_looked_up(code):
    """Normalised (NFC) and case-folded, so that a lookup of word_key(word) finds it."""
    grammar = GRAMMARS[code]
    words = [*grammar.verbs, *grammar.parts, *grammar.decks, *grammar.ands, *grammar.colours,
             *grammar.froms, *grammar.payings, *grammar.fors, *grammar.commands, *(word for phrase in grammar.courtesy for word in phrase)]
    assert all(word == word_key(word) for word in words)


@pytest.mark.parametrize("code", ["it", "lv"])
def test_every_colour_word_stands_for_a_colour_word_of_a_variant(code):
    assert set(GRAMMARS[code].colours.values()) <= ENGLISH_COLOUR_WORDS


@pytest.mark.parametrize("code", ["it", "lv"])
def test_no_word_means_one_thing_in_english_and_another_in_the_other_language(code):
    other = GRAMMARS[code]
    for table in ("verbs", "parts", "colours", "commands"):
        ours, theirs = getattr(ENGLISH_GRAMMAR, table), getattr(other, table)
        assert {word: theirs[word] for word in ours.keys() & theirs.keys()} == {
            word: ours[word] for word in ours.keys() & theirs.keys()}
    assert not (other.words() & ENGLISH_GRAMMAR.words()) - ENGLISH_GRAMMAR.words()
    # No word of a move is also a command word: a line is read one way only.
    assert not (grammar_for([code]).verbs.keys() & grammar_for([code]).commands.keys())


def test_no_word_means_two_things_when_every_language_is_read_at_once():
    """The email reader judges an out-of-office body with every grammar merged."""
    for table in ("verbs", "parts", "colours", "commands"):
        meanings: dict[str, set[str]] = {}
        for grammar in GRAMMARS.values():
            for word, meaning in getattr(grammar, table).items():
                meanings.setdefault(word, set()).add(meaning)
        assert all(len(found) == 1 for found in meanings.values()), table


ITALIAN_VERBS = {
    "take": ["prendi", "prendere"],
    "buy": ["compra", "comprare", "acquista", "acquistare", "recluta", "reclutare"],
    "reserve": ["riserva", "riservare", "prenota", "prenotare"],
    "pass": ["passa", "passare"],
}
LATVIAN_VERBS = {
    "take": ["ņem", "ņemt", "paņem", "paņemt"],
    "buy": ["pērc", "pirkt", "nopērc", "iegādājies", "iegādāties"],
    "reserve": ["rezervē", "rezervēt"],
    "pass": ["izlaid", "izlaist"],
}


@pytest.mark.parametrize("grammar, verbs", [(ITALIAN_GRAMMAR, ITALIAN_VERBS), (LATVIAN_GRAMMAR, LATVIAN_VERBS)])
def test_the_verbs_are_read_in_their_imperative_and_infinitive(grammar, verbs):
    """docs/glossary-it.md, docs/glossary-lv.md."""
    assert verbs and all(verbs.values())
    for action, words in verbs.items():
        assert all(grammar.verbs[word_key(word)] == action for word in words)


def test_english_is_always_read_and_each_language_once():
    assert grammar_for(()).code == "en"
    assert grammar_for(["it"]).code == "en+it"
    assert grammar_for(["lv", "en", "lv"]).code == "en+lv"
    assert "take" in grammar_for(["it"]).verbs and "prendi" in grammar_for(["it"]).verbs
    assert "prendi" not in grammar_for(["lv"]).verbs


def test_a_language_without_a_grammar_is_refused_by_name():
    with pytest.raises(ValueError, match="'de'.*en, it, lv"):
        grammar_for(["de"])
    with pytest.raises(ValueError):
        engine.parse_move(position("base"), "take WUG", languages=("de",))


def test_zero_width_characters_are_taken_out_and_text_is_read_in_nfc():
    assert text_normalise("\ufefftake\u200b W\u200cU\u200dG\u2060") == "take WUG"
    assert text_normalise("n\u0327em") == "ņem" == unicodedata.normalize("NFC", "ņem")
    assert word_key("ŅEM") == "ņem"


# --- moves in Italian and Latvian ----------------------------------------------------

ITALIAN = [
    ("prendi bianco blu verde", "take WUG"),
    ("Prendere bianchi, blu e verdi", "take WUG"),
    ("prendi 2 verdi", "take GG"),
    ("prendi verde ed nero e bianca", "take WGK"),
    ("compra 1-01", "buy 1-01"),
    ("acquista 1a", "buy 1-01"),
    ("comprare h1", "buy 1-02"),
    ("riserva mazzo 2", "reserve deck2"),
    ("prenota mazzo3", "reserve deck3"),
    ("riservare 2c", "reserve 2-09"),
    ("take white blue green", "take WUG"),
]
LATVIAN = [
    ("ņem baltu zilu zaļu", "take WUG"),
    ("paņem baltus, zilus un zaļus", "take WUG"),
    ("ņem 2 zaļus", "take GG"),
    ("ŅEM BALTU ZILU ZAĻU", "take WUG"),
    ("pērc 1-01", "buy 1-01"),
    ("nopērc 1a", "buy 1-01"),
    ("rezervē kaudzīte 2", "reserve deck2"),
    ("rezervēt kaudzīti 3", "reserve deck3"),
    ("rezervē 2c", "reserve 2-09"),
    ("take white blue green", "take WUG"),
]


@pytest.mark.parametrize("text, canonical", ITALIAN)
def test_a_move_in_italian_is_read_as_its_canonical_move(text, canonical):
    move = engine.parse_move(lenient_position(), text, languages=("it",))
    assert move == canonical and move.text == canonical


@pytest.mark.parametrize("text, canonical", LATVIAN)
def test_a_move_in_latvian_is_read_as_its_canonical_move(text, canonical):
    move = engine.parse_move(lenient_position(), text, languages=("lv",))
    assert move == canonical and move.text == canonical


@pytest.mark.parametrize("text, language", [("prendi bianco blu verde", "it"), ("ņem baltu zilu zaļu", "lv"),
                                            ("riserva mazzo 2", "it"), ("rezervē kaudzīte 2", "lv")])
def test_a_move_in_a_language_not_asked_for_is_invalid_notation(text, language):
    with pytest.raises(InvalidNotation):
        engine.parse_move(lenient_position(), text)
    other = "lv" if language == "it" else "it"
    with pytest.raises(InvalidNotation):
        engine.parse_move(lenient_position(), text, languages=(other,))


def test_a_latvian_word_read_in_english_only_is_named_as_latvian():
    with pytest.raises(InvalidNotation, match="'ņem' is a word of Latvian"):
        engine.parse_move(lenient_position(), "ņem baltu zilu zaļu")


def test_a_move_that_starts_with_no_verb_names_the_verbs_of_each_language_read():
    with pytest.raises(InvalidNotation, match="prendi, riserva, compra, passa"):
        engine.parse_move(lenient_position(), "salta bianco", languages=("it",))


def test_the_return_and_noble_parts_are_read_in_italian_and_latvian():
    """B-LIMIT-1, B-NOBLE-2 suffixes in the words of each language."""
    s = position("base", seat_tokens={0: "WWUUGGRRK"})
    assert engine.parse_move(s, "prendi bianco blu verde restituisci rosso, nero", languages=("it",)) == (
        "take WUG return RK")
    assert engine.parse_move(s, "ņem baltu zilu zaļu atdod sarkanu melnu", languages=("lv",)) == (
        "take WUG return RK")
    s = position("base", tiles=["N04", "N08", "N01"], bonuses={0: "WWGGGGRRRRKKK"},
                 seat_tokens={0: "WU"}, market={1: ["1-07"]})
    assert engine.parse_move(s, "compra 1a nobile n04", languages=("it",)) == "buy 1-07 noble N04"
    assert engine.parse_move(s, "pērc 1a dižciltīgais N04", languages=("lv",)) == "buy 1-07 noble N04"


def test_marvel_colour_words_location_and_names_are_read_in_italian_and_latvian():
    """M-TAKE-1, M-BUY-1, M-LOCATION-2 in each language's words."""
    s = position("marvel")
    assert engine.parse_move(s, "prendi giallo arancione viola", languages=("it",)) == "take YOP"
    assert engine.parse_move(s, "ņem dzeltenu oranžu violetu", languages=("lv",)) == "take YOP"
    s = position("marvel", tiles=["L1A", "L3A"], bonuses={0: "YYYUUUOORRRPPP"},
                 seat_tokens={0: "RRJ"}, market={2: ["2-15"]})
    assert engine.parse_move(s, "recluta 2-15 J:R luogo L1A", languages=("it",)) == "buy 2-15 J:R location L1A"
    assert engine.parse_move(s, "pērc 2-15 J:R vieta L1A", languages=("lv",)) == "buy 2-15 J:R location L1A"
    s = position("marvel", seat_tokens={0: "OOORRRR"}, bonuses={0: "RRR"}, market={3: ["3-08"]})
    assert engine.parse_move(s, "compra Gamora", languages=("it",)) == "buy 3-08"
    assert engine.parse_move(s, "pērc Gamora", languages=("lv",)) == "buy 3-08"


def test_the_time_stone_colour_word_is_green_as_in_english_and_never_taken():
    """M-TAKE-1: green (the Time Stone) can never be taken, whatever the language."""
    s = position("marvel")
    for text, language in (("prendi verde blu rosso", "it"), ("ņem zaļu zilu sarkanu", "lv")):
        with pytest.raises(IllegalMove) as caught:
            engine.parse_move(s, text, languages=(language,))
        assert caught.value.rule == "M-TAKE-1"


def test_a_pass_in_italian_and_latvian_is_a_pass_the_rules_judge():
    """B-PASS-1: a pass is legal only when nothing else is, in any language."""
    for text, language in (("passa", "it"), ("izlaid", "lv")):
        with pytest.raises(IllegalMove) as caught:
            engine.parse_move(lenient_position(), text, languages=(language,))
        assert caught.value.rule == "B-PASS-1"


def test_a_missing_choice_is_ambiguous_in_italian_too():
    """B-LIMIT-1: the choices are canonical (English) moves."""
    s = position("base", seat_tokens={0: "WUGGRRKKJJ"})
    with pytest.raises(AmbiguousMove) as caught:
        engine.parse_move(s, "prendi bianco blu verde", languages=("it",))
    assert caught.value.rule == "B-LIMIT-1"
    assert all(choice.startswith("take WUG return ") for choice in caught.value.choices)


# --- courtesy words -------------------------------------------------------------------

COURTESY = [
    ("take WUG please", (), "take WUG"),
    ("buy 1a, thanks!", (), "buy 1-01"),
    ("reserve deck1 please", (), "reserve deck1"),
    ("reserve deck1 thank you.", (), "reserve deck1"),
    ("buy 1-01 Please", (), "buy 1-01"),
    ("take WUG please, thanks", (), "take WUG"),
    ("prendi bianco blu verde per favore", ("it",), "take WUG"),
    ("riserva mazzo 2, per piacere", ("it",), "reserve deck2"),
    ("compra 1-01 grazie!", ("it",), "buy 1-01"),
    ("ņem baltu zilu zaļu, lūdzu", ("lv",), "take WUG"),
    ("rezervē kaudzīte 2 paldies", ("lv",), "reserve deck2"),
    ("take WUG lūdzu", ("lv",), "take WUG"),
]


@pytest.mark.parametrize("text, languages, canonical", COURTESY)
def test_courtesy_words_that_trail_a_move_are_ignored(text, languages, canonical):
    assert engine.parse_move(lenient_position(), text, languages=languages) == canonical


@pytest.mark.parametrize("text, languages", [
    ("please take WUG", ()),
    ("take please WUG", ()),
    ("take WUG please now", ()),
    ("reserve deck1 please deck2", ()),
    ("take WUG grazie", ()),
    ("take WUG paldies", ("it",)),
    ("please", ()),
])
def test_courtesy_words_anywhere_but_at_the_end_or_of_another_language_refuse_the_move(text, languages):
    with pytest.raises(InvalidNotation):
        engine.parse_move(lenient_position(), text, languages=languages)


def test_courtesy_strip_takes_away_only_the_words_and_punctuation_that_trail():
    grammar = grammar_for(["it"])
    assert grammar.courtesy_strip("compra 1-05, grazie mille!") == "compra 1-05"
    assert grammar.courtesy_strip("prendi  bianco per favore") == "prendi bianco"
    assert grammar.courtesy_strip("buy 2-05 J:R") == "buy 2-05 J:R"
    assert grammar.courtesy_strip("grazie") == "grazie"


# --- rules, not syntax ----------------------------------------------------------------


@pytest.mark.parametrize("text, languages, rule", [
    ("take WUGR", (), "B-TAKE-3"),
    ("take wugrk", (), "B-TAKE-3"),
    ("take white blue green red", (), "B-TAKE-3"),
    ("take 4 red", (), "B-TAKE-3"),
    ("take WUGR please", (), "B-TAKE-3"),
    ("prendi bianco blu verde rosso", ("it",), "B-TAKE-3"),
    ("ņem baltu zilu zaļu sarkanu", ("lv",), "B-TAKE-3"),
])
def test_a_take_of_more_than_three_tokens_is_an_illegal_move_citing_b_take_3(text, languages, rule):
    """B-TAKE-3: at most three tokens; a well-written move that breaks it is
    illegal, not bad notation."""
    with pytest.raises(IllegalMove) as caught:
        engine.parse_move(engine.new_game(variant="base", players=2, seed=7), text, languages=languages)
    assert caught.value.rule == rule and not isinstance(caught.value, AmbiguousMove)
    assert "at most 3 tokens" in caught.value.message


def test_a_take_of_more_than_three_tokens_in_marvel_cites_m_take_1():
    with pytest.raises(IllegalMove) as caught:
        engine.parse_move(position("marvel"), "take YUOR")
    assert caught.value.rule == "M-TAKE-1"


def test_apply_refuses_a_four_token_take_by_its_rule_too():
    with pytest.raises(IllegalMove) as caught:
        engine.apply(engine.new_game(variant="base", players=2, seed=7), "take WUGR")
    assert caught.value.rule == "B-TAKE-3"


# --- zero-width characters, NFC and lookalikes ----------------------------------------


@pytest.mark.parametrize("text, languages, canonical", [
    ("take\u200b WUG", (), "take WUG"),
    ("\ufefftake W\u200dUG\u2060", (), "take WUG"),
    ("prendi bian\u200bco blu verde", ("it",), "take WUG"),
    ("n\u0327em baltu zilu zal\u0327u", ("lv",), "take WUG"),
])
def test_zero_width_characters_and_decomposed_letters_do_not_change_a_move(text, languages, canonical):
    assert engine.parse_move(lenient_position(), text, languages=languages) == canonical


@pytest.mark.parametrize("text, languages", [
    ("prendi bianco ２ rosso", ("it",)),
    ("ņem bаltu", ("lv",)),  # a Cyrillic а
    ("rezervē kaudzīte ２", ("lv",)),
    ("compra 1-０1", ("it",)),
])
def test_lookalike_characters_stay_refused_in_every_language(text, languages):
    with pytest.raises(InvalidNotation, match="plain ASCII"):
        engine.parse_move(lenient_position(), text, languages=languages)


WORDS = ["prendi", "compra", "riserva", "passa", "restituisci", "nobile", "luogo", "mazzo", "e", "bianco",
         "verdi", "oro", "jolly", "per", "favore", "grazie", "ņem", "pērc", "rezervē", "izlaid", "atdod",
         "dižciltīgais", "vieta", "kaudzīte", "un", "baltu", "zaļš", "zelts", "lūdzu", "paldies", "take",
         "please", "2", "1-01", "1a", "h1", "N01", "L1A", "J:R", ",", "\u200b", "Gamora", "x2",
         "pagando", "dal", "mazzo", "maksājot", "par", "no", "kaudzītes", "paying", "for", "from"]


@pytest.mark.parametrize("variant", ["base", "marvel"])
@pytest.mark.parametrize("language", ["it", "lv"])
@settings(deadline=None, max_examples=60)
@given(text=st.lists(st.sampled_from(WORDS), max_size=6).map(" ".join))
def test_any_text_of_grammar_words_parses_to_a_legal_move_or_raises_an_engine_error(variant, language, text):
    state = position(variant, seat_tokens={0: "RRJ"}, reserved={0: ["1-02"]})
    try:
        move = engine.parse_move(state, text, languages=(language,))
    except engine.EngineError:
        return
    assert move in engine.legal_moves(state)
