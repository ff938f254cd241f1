"""Move notation (notation.md): the canonical text round-trips, the lenient parser
returns canonical moves, and the three parse errors are told apart."""

from __future__ import annotations

import pickle
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engine
from engine import AmbiguousMove, IllegalMove, InvalidNotation
from tests.engine.builders import play, position

M = engine.move_from_text


def legal_texts(state: engine.State) -> list[str]:
    return [str(m) for m in engine.legal_moves(state)]


# --- canonical text ----------------------------------------------------------------

FORMS = [
    # (text, kind, take, card, deck, pay, ret, tile)
    ("take WUG", "take", "WUG", None, None, "", "", None),
    ("take RR", "take", "RR", None, None, "", "", None),
    ("reserve 2-13", "reserve", "", "2-13", None, "", "", None),
    ("reserve deck3", "reserve", "", None, 3, "", "", None),
    ("buy 2-13", "buy", "", "2-13", None, "", "", None),
    ("buy 2-05 J:R", "buy", "", "2-05", None, "R", "", None),
    ("pass", "pass", "", None, None, "", "", None),
    ("take WUG return K", "take", "WUG", None, None, "", "K", None),
    ("take KK", "take", "KK", None, None, "", "", None),
    ("reserve deck1 return U", "reserve", "", None, 1, "", "U", None),
    ("buy 1-07 noble N04", "buy", "", "1-07", None, "", "", "N04"),
    ("pass noble N02", "pass", "", None, None, "", "", "N02"),
    ("buy 2-15 J:R location L1A", "buy", "", "2-15", None, "R", "", "L1A"),
    ("buy 2-05 J:RK return J noble N10", "buy", "", "2-05", None, "RK", "J", "N10"),
]


@pytest.mark.parametrize("text, kind, take, card, deck, pay, ret, tile", FORMS)
def test_every_canonical_form_of_the_notation_reads_back_as_itself(text, kind, take, card, deck, pay, ret, tile):
    """notation.md "Forms" and its examples, context-free (like UCI)."""
    move = M(text)
    assert move == text and engine.format_move(move) == text and str(move) == text
    assert (move.kind, move.take, move.card, move.deck, move.pay, move.ret, move.tile) == (
        kind, take, card, deck, pay, ret, tile)


def test_a_move_is_its_canonical_text_and_survives_pickling():
    """A Move is a str: equal, hashed and sorted as its text."""
    move = M("take gwu")
    assert isinstance(move, str) and move == "take WUG"
    assert {move: 1}["take WUG"] == 1
    assert pickle.loads(pickle.dumps(move)) == move
    assert pickle.loads(pickle.dumps(move)).kind == "take"


def test_the_context_free_parser_puts_letters_in_canonical_order():
    """notation.md "Letters": written in W U G R K J (Marvel Y U O R P J T) order."""
    assert M("take GWU") == "take WUG"
    assert M("take pyo") == "take YOP"
    assert M("buy 2-05 j:kr return jk") == "buy 2-05 J:RK return KJ"
    assert M("RESERVE DECK2") == "reserve deck2"
    assert M("  pass   noble  n02 ") == "pass noble N02"


def random_positions(variant: str, players: int, seed: int, every: int = 3):
    """Positions of a random game, one in ``every`` plies."""
    rng = random.Random(seed)
    state = engine.new_game(variant=variant, players=players, seed=seed)
    while not engine.is_over(state):
        if state.ply % every == 0:
            yield state
        moves = engine.legal_moves(state)
        state = engine.apply(state, moves[rng.randrange(len(moves))])


@pytest.mark.parametrize("variant", ["base", "marvel"])
@pytest.mark.parametrize("players", [2, 3, 4])
def test_every_legal_move_of_many_positions_round_trips(variant, players):
    """format(parse(x)) == x for every legal move, both through the board-free
    parser and the lenient one."""
    checked = 0
    for seed in (1, 2):
        for state in random_positions(variant, players, seed):
            for move in engine.legal_moves(state):
                text = engine.format_move(move)
                assert engine.format_move(engine.parse_move(state, text)) == text
                assert engine.format_move(M(text)) == text
                assert engine.parse_move(state, text.lower()) == move
                checked += 1
    assert checked > 1000


def test_notation_examples_are_legal_moves_in_suitable_positions():
    """notation.md examples, each legal in a position built for it."""
    # take WUG return K: 8 tokens, 3 more makes 11
    s = position("base", seat_tokens={0: "WRRKKJJJ"})
    assert "take WUG return K" in legal_texts(s)
    # reserve deck1 return U: 10 tokens, the gold makes 11
    s = position("base", seat_tokens={0: "WUUGGRRKKJ"})
    assert "reserve deck1 return U" in legal_texts(s)
    # buy 1-07 noble N04: N04 (4 green, 4 red) already met, N08 (3 white, 3 red,
    # 3 black) met by the white card 1-07 (3 white, 1 blue, 1 black)
    s = position("base", tiles=["N04", "N08", "N01"], bonuses={0: "WWGGGGRRRRKKK"},
                 seat_tokens={0: "WU"}, market={1: ["1-07"]})
    assert "buy 1-07 noble N04" in legal_texts(s)
    # Marvel buy 2-15 J:R location L1A: Groot (orange; 5 red, 3 purple) completes L1A
    # (3 yellow, 3 orange, 3 purple); L3A (3 yellow, 3 blue, 3 red) is met already
    s = position("marvel", tiles=["L1A", "L3A"], bonuses={0: "YYYUUUOORRRPPP"},
                 seat_tokens={0: "RRJ"}, market={2: ["2-15"]})
    assert "buy 2-15 J:R location L1A" in legal_texts(s)
    assert engine.apply(s, M("buy 2-15 J:R location L1A")).players[0].tokens[:6] == (0, 0, 0, 1, 0, 0)


# --- lenient input --------------------------------------------------------------------

LENIENT_BASE = [
    ("take white blue green", "take WUG"),
    ("take diamond, sapphire and emerald", "take WUG"),
    ("take 2 green", "take GG"),
    ("take green green", "take GG"),
    ("take green x2", "take GG"),
    ("Take Emeralds 2X", "take GG"),
    ("TAKE gwu", "take WUG"),
    ("take g w u", "take WUG"),
    ("get black blue white", "take WUK"),
    ("reserve 2c", "reserve 2-09"),
    ("reserve deck 2", "reserve deck2"),
    ("reserve Deck3", "reserve deck3"),
    ("reserve 1x", "reserve deck1"),
    ("reserve level 3 deck", "reserve deck3"),
    ("buy 1A", "buy 1-01"),
    ("purchase 1a", "buy 1-01"),
    ("buy h1", "buy 1-02"),
    ("buy 1-01 j:r", "buy 1-01 J:R"),
]


def lenient_position() -> engine.State:
    """Seat 0 holds R R K J and has reserved 1-02 (3 blue); 1-01 (2 red, 1 black)
    is in slot 1a, 2-09 in slot 2c."""
    return position("base", seat_tokens={0: "RRKJUU"}, reserved={0: ["1-02"]},
                    market={1: ["1-01"], 2: ["2-01", "2-02", "2-09"]})


@pytest.mark.parametrize("text, canonical", LENIENT_BASE)
def test_lenient_input_returns_the_canonical_move(text, canonical):
    """notation.md "Friendly references": colour words, slots, decks, any case."""
    s = lenient_position()
    move = engine.parse_move(s, text)
    assert move == canonical
    assert move in engine.legal_moves(s)


def test_lenient_return_and_noble_words_are_read_too():
    """B-LIMIT-1, B-NOBLE-2 suffixes in words, in any order."""
    s = position("base", seat_tokens={0: "WWUUGGRRK"})
    assert engine.parse_move(s, "take white blue green return red, black") == "take WUG return RK"
    s = position("base", tiles=["N04", "N08", "N01"], bonuses={0: "WWGGGGRRRRKKK"},
                 seat_tokens={0: "WU"}, market={1: ["1-07"]})
    assert engine.parse_move(s, "buy 1a noble n04") == "buy 1-07 noble N04"


def test_marvel_colour_words_and_stone_names_are_read():
    """notation.md: Marvel letters Y U O R P J."""
    s = position("marvel")
    assert engine.parse_move(s, "take mind space soul") == "take YUO"
    assert engine.parse_move(s, "take yellow orange purple") == "take YOP"
    assert engine.parse_move(s, "take 2 power") == "take PP"


def test_a_market_slot_keeps_its_label_and_an_empty_one_stays_empty():
    """notation.md: slots 1a-3d, left to right as dealt."""
    s = position("base", seat_tokens={0: "RRK"}, market={1: ["1-02", "1-01", "1-03", "1-04"]}, decks={1: []})
    assert engine.parse_move(s, "buy 1b") == "buy 1-01"
    after = engine.apply(s, M("buy 1-01"))
    assert engine.parse_move(after, "reserve 1c") == "reserve 1-03"
    with pytest.raises(InvalidNotation, match="1b is empty"):
        engine.parse_move(after, "reserve 1b")


def test_hand_slots_follow_reservation_order_and_close_up_after_a_buy():
    """notation.md: h1-h3 in the order the cards were reserved."""
    s = position("base", seat_tokens={0: "RRK"}, reserved={0: ["1-01", "1-02", "1-03"]})
    assert engine.parse_move(s, "buy h1") == "buy 1-01"
    s = play(s, "buy h1", "take WUG")
    assert s.players[0].reserved == (("1-02", False), ("1-03", False))
    with pytest.raises(InvalidNotation, match="no h3"):
        engine.parse_move(s, "buy h3")
    with pytest.raises(IllegalMove):
        engine.parse_move(s, "buy h1")  # 1-02 costs 3 blue; seat 0 has no tokens left


# --- errors ---------------------------------------------------------------------------------

BAD_SYNTAX = [
    ("", "empty"),
    ("   ", "empty"),
    ("jump WUG", "take, reserve, buy or pass"),
    ("take", "token"),
    ("take purple", "not a token colour"),
    ("reserve", "card"),
    ("reserve 2-1", "not a card"),
    ("buy deck2", "only a reservation"),
    ("buy 2-13 now", "not a card"),
    ("pass now", "pass"),
    ("reserve h1", "only buy"),
]


@pytest.mark.parametrize("text, says", BAD_SYNTAX)
def test_bad_syntax_raises_invalid_notation_with_a_useful_message(text, says):
    """notation.md: InvalidNotation, never IllegalMove, for text that is no move."""
    s = position("base")
    with pytest.raises(InvalidNotation) as info:
        engine.parse_move(s, text)
    assert says in str(info.value)
    assert not isinstance(info.value, IllegalMove)


@pytest.mark.parametrize("text", ["", "take", "take WUGR", "reserve deck4", "buy 2-05 J:",
                                  "take WUG noble", "take WUG noble X1", "pass location N01",
                                  "take WUG noble N01 return K", "buy 2-13 junk"])
def test_the_board_free_parser_accepts_only_canonical_syntax(text):
    """notation.md: the context-free form (order: action, J:, return, noble/location)."""
    with pytest.raises(InvalidNotation):
        M(text)


@pytest.mark.parametrize("text", [",", " , "])
def test_text_of_nothing_but_separators_is_invalid_notation(text):
    """notation.md: text that is no move raises InvalidNotation, never a crash."""
    with pytest.raises(InvalidNotation):
        engine.parse_move(position("base"), text)
    with pytest.raises(InvalidNotation):
        engine.apply(position("marvel"), text)


WORDS = ["take", "buy", "reserve", "pass", "recruit", "return", "noble", "location", "J:R", "j:",
         "deck", "deck 2", "1x", "h1", "h4", "2c", "4e", "1-01", "3-20", "9-99", "N01", "L1A", "n99",
         "x2", "2x", "3", "red", "gold", "green", "time", "and", ",", "&", "Gamora", "WUG", "RR", "T", "-"]


@pytest.mark.parametrize("variant", ["base", "marvel"])
@settings(deadline=None)
@given(text=st.one_of(st.text(max_size=30),
                      st.lists(st.sampled_from(WORDS), max_size=6).map(" ".join)))
def test_any_text_parses_to_a_legal_move_or_raises_an_engine_error(variant, text):
    """notation.md: InvalidNotation, IllegalMove or AmbiguousMove, nothing else."""
    state = position(variant, seat_tokens={0: "RRJ"}, reserved={0: ["1-02"]})
    try:
        move = engine.parse_move(state, text)
    except engine.EngineError:
        return
    assert move in engine.legal_moves(state)


def test_a_move_must_be_text():
    with pytest.raises(InvalidNotation):
        M(None)  # type: ignore[arg-type]
    with pytest.raises(InvalidNotation):
        engine.parse_move(position("base"), 42)  # type: ignore[arg-type]


def test_a_suffix_where_none_is_allowed_is_illegal():
    """notation.md "Suffix rules", B-LIMIT-1, B-NOBLE-1."""
    s = position("base", seat_tokens={0: "WU"}, tiles=["N01", "N02", "N03"])
    with pytest.raises(IllegalMove) as info:
        engine.parse_move(s, "take WUG return W")
    assert info.value.rule == "B-LIMIT-1" and not isinstance(info.value, AmbiguousMove)
    with pytest.raises(IllegalMove) as info:
        engine.parse_move(s, "take WUG noble N01")
    assert info.value.rule == "B-NOBLE-1" and not isinstance(info.value, AmbiguousMove)


def two_nobles_met() -> engine.State:
    """Seat 0 holds 10 tokens and already meets N04 (4 green, 4 red) and N08 (3
    white, 3 red, 3 black): every move must return and choose."""
    return position("base", tiles=["N04", "N08", "N01"], bonuses={0: "WWWGGGGRRRRKKK"},
                    seat_tokens={0: "WUGGRRKKJJ"})


def test_a_noble_named_where_none_may_be_is_illegal_whichever_way_the_move_arrives():
    """notation.md "Suffix rules": a suffix where none is allowed is illegal, and
    B-NOBLE-2: the choice is part of the move only when several nobles qualify.
    Here N01 (4 white, 4 blue) alone comes with the fourth blue card (1-09), so
    `buy 1-09 noble N01` is not a legal move: parse_move, apply(text) and
    apply(Move) must all refuse it alike."""
    s = position("base", tiles=["N01", "N05", "N10"], bonuses={0: "WWWWUUU"},
                 seat_tokens={0: "KKK"}, market={1: ["1-09"]})
    assert "buy 1-09" in legal_texts(s) and "buy 1-09 noble N01" not in legal_texts(s)
    with pytest.raises(IllegalMove) as by_move:
        engine.apply(s, M("buy 1-09 noble N01"))
    assert by_move.value.rule == "B-NOBLE-2"
    with pytest.raises(IllegalMove) as by_parse:
        engine.parse_move(s, "buy 1-09 noble N01")
    assert by_parse.value.rule == "B-NOBLE-2"
    with pytest.raises(IllegalMove):
        engine.apply(s, "buy 1-09 noble N01")


def test_a_missing_required_suffix_is_ambiguous_and_lists_every_complete_choice():
    """notation.md "Suffix rules": the choices are exactly the legal completions."""
    s = two_nobles_met()
    with pytest.raises(AmbiguousMove) as info:
        engine.parse_move(s, "take WUG")
    assert info.value.rule == "B-LIMIT-1"
    choices = info.value.choices
    assert choices == sorted(m for m in legal_texts(s) if m.startswith("take WUG "))
    assert "take WUG return WUG noble N04" in choices and "take WUG return GJJ noble N08" in choices
    assert all(engine.parse_move(s, c) == c for c in choices)
    # with the return given, only the noble is missing
    with pytest.raises(AmbiguousMove) as info:
        engine.parse_move(s, "take WUG return GJJ")
    assert info.value.rule == "B-NOBLE-2"
    assert info.value.choices == ["take WUG return GJJ noble N04", "take WUG return GJJ noble N08"]


def test_the_canonical_order_of_suffixes_comes_out_whatever_order_went_in():
    """notation.md: the action, its J: part, then return, then noble."""
    s = two_nobles_met()
    assert engine.parse_move(s, "take gwu noble n04 return jjg") == "take WUG return GJJ noble N04"


@pytest.mark.parametrize(
    "text",
    [
        "take 99999999999999999999999999999999999999 white",  # once an OverflowError
        "take 20000000 white",  # once a 32-second string build
        "take white x9",
        "take " + "white " * 40,
        "buy 1-01 " + "x" * 300,
    ],
)
def test_absurd_counts_and_lengths_are_refused_at_once_as_invalid_notation(text):
    state = engine.new_game(variant="base", players=2, seed=1)
    with pytest.raises(InvalidNotation):
        engine.parse_move(state, text)


# --- nothing written is dropped ------------------------------------------------------


@pytest.mark.parametrize(
    "text, part",
    [
        ("take WUG J:R", "J:R"),
        ("reserve deck1 J:RR", "J:RR"),
        ("take WUG return", "return"),
        ("take WUG noble", "noble"),
        ("buy 1-01 noble", "noble"),
        ("take WUG return K return K", "return"),
        ("take WUG stray", "stray"),
        ("buy 1-01 J:", "J:"),
    ],
)
def test_a_part_that_cannot_be_read_refuses_the_whole_move_and_is_named(text: str, part: str) -> None:
    state = engine.new_game(variant="base", players=2, seed=7)
    with pytest.raises(InvalidNotation) as caught:
        engine.parse_move(state, text)
    assert repr(part) in str(caught.value)


@pytest.mark.parametrize("text", ["take ２ red", "buy 1-０７", "take wuɡ", "reserve dеck1"])
def test_lookalike_digits_and_letters_are_invalid_notation_not_an_illegal_move(text: str) -> None:
    state = engine.new_game(variant="base", players=2, seed=7)
    with pytest.raises(InvalidNotation, match="plain ASCII"):
        engine.parse_move(state, text)


def test_an_error_quotes_the_players_words_as_they_wrote_them() -> None:
    state = engine.new_game(variant="base", players=2, seed=7)
    with pytest.raises(InvalidNotation) as caught:
        engine.parse_move(state, "take White Purple")
    assert "'Purple'" in str(caught.value)


def test_a_well_formed_suffix_the_position_forbids_is_illegal_with_its_rule() -> None:
    """B-LIMIT-1: a return when the move does not go over 10."""
    state = engine.new_game(variant="base", players=2, seed=7)
    with pytest.raises(IllegalMove) as caught:
        engine.parse_move(state, "take WUG return K")
    assert caught.value.rule == "B-LIMIT-1"
