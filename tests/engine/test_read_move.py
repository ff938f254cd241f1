"""engine.read_move: the canonical move a text names, without the rules' verdict
(conditional moves are read when stored and judged when they fire)."""

from __future__ import annotations

import pytest

import engine
from engine import InvalidNotation
from tests.engine.builders import position


def test_read_move_returns_the_canonical_move_of_lenient_text():
    s = position("base", market={1: ["1-01"]})
    assert engine.read_move(s, "take white blue green") == "take WUG"
    assert engine.read_move(s, "buy 1a") == "buy 1-01"
    assert engine.read_move(s, "reserve deck 2") == "reserve deck2"


def test_read_move_reads_the_words_of_another_language():
    s = position("base")
    assert engine.read_move(s, "prendi bianco blu verde", languages=("it",)) == "take WUG"
    assert engine.read_move(s, "ņem baltu zilu zaļu", languages=("lv",)) == "take WUG"


def test_read_move_does_not_judge_legality():
    """A take of four colours breaks B-TAKE-3 and a buy of a card not on the table
    cannot be played now, yet both are moves as written."""
    s = position("base", market={1: ["1-01"]})
    with pytest.raises(engine.IllegalMove):
        engine.parse_move(s, "take white blue green red")
    assert engine.read_move(s, "take white blue green red") == "take WUGR"
    assert engine.read_move(s, "buy 3-20") == "buy 3-20"
    assert engine.read_move(s, "take WUG return K noble N03") == "take WUG return K noble N03"


def test_read_move_refuses_text_that_is_no_move():
    s = position("base")
    for text in ("dance", "", "take", "buy nothing", "take WUG and more", "x" * 201):
        with pytest.raises(InvalidNotation):
            engine.read_move(s, text)


def test_a_hand_slot_names_the_reserve_of_the_seat_asked_for_and_no_other():
    """h1 reads hand_seat's reserve; without a hand seat no reserve is read,
    so nobody's blind-reserved card can come out of a hand slot."""
    s = position("base", reserved={1: ["1-02"]})
    assert engine.read_move(s, "buy h1", hand_seat=1) == "buy 1-02"
    with pytest.raises(InvalidNotation):
        engine.read_move(s, "buy h1")
    with pytest.raises(InvalidNotation):
        engine.read_move(s, "buy h1", hand_seat=0)


def test_read_move_leaves_its_state_as_it_was():
    s = position("base", market={1: ["1-01"]})
    before = engine.to_dict(s)
    engine.read_move(s, "buy 1a")
    assert engine.to_dict(s) == before
