"""A plan written as text (email, the game page): "if <move> then <move>" lines in
each language's words, indented lines as the next lines of the line above."""

from __future__ import annotations

from engine.grammar import grammar_for, plan_line_split, plan_text_read


def test_a_plan_line_splits_into_the_move_before_and_the_move_to_play():
    english = grammar_for(("en",))
    assert plan_line_split("if take WUG then buy 1-05 please", english) == ("take WUG", "buy 1-05")
    assert plan_line_split("If anything, then take RR", english) == ("any", "take RR")
    assert plan_line_split("if you can, take white blue green", english) is None  # no "then"
    assert plan_line_split("if take WUG then", english) is None
    assert plan_line_split("take WUG", english) is None


def test_italian_and_latvian_plan_words_are_read_beside_english():
    assert plan_line_split("se prendi bianco allora compra 1-05", grammar_for(("it",))) == ("prendi bianco", "compra 1-05")
    assert plan_line_split("ja jebkurš tad ņem baltu", grammar_for(("lv",))) == ("any", "ņem baltu")
    assert plan_line_split("se prendi bianco allora compra 1-05", grammar_for(("en",))) is None


def test_indented_lines_are_the_next_lines_of_the_line_above():
    text = "if take WUG then buy 1-05\n  if any then take RR\n  if pass then pass\nif reserve deck1 then take KK\nhello"
    lines, written = plan_text_read(text, grammar_for(("en",)))
    assert lines == [
        {"if": "take WUG", "then": "buy 1-05", "next": [
            {"if": "any", "then": "take RR", "next": []},
            {"if": "pass", "then": "pass", "next": []},
        ]},
        {"if": "reserve deck1", "then": "take KK", "next": []},
    ]
    assert written == ["if take WUG then buy 1-05", "if any then take RR", "if pass then pass",
                       "if reserve deck1 then take KK"]


def test_a_tab_indents_as_four_spaces():
    lines, _ = plan_text_read("if any then take RR\n\tif any then take KK", grammar_for(("en",)))
    assert lines[0]["next"] == [{"if": "any", "then": "take KK", "next": []}]
