"""Splendor (base game): one or more tests per rule of splendor.md, named by its id."""

from __future__ import annotations

import json

import pytest

import engine
from engine import AmbiguousMove, EngineError, IllegalMove, InvalidNotation
from tests.engine.builders import cards_where, play, position, tokens_text

M = engine.move_from_text


def legal_texts(state: engine.State) -> list[str]:
    return [str(m) for m in engine.legal_moves(state)]


def tokens(state: engine.State, seat: int) -> str:
    return tokens_text(state.variant.name, state.players[seat].tokens)


def supply(state: engine.State) -> str:
    return tokens_text(state.variant.name, state.supply)


def raises_rule(state: engine.State, text: str, error: type[IllegalMove] = IllegalMove) -> IllegalMove:
    """Apply ``text`` (canonical) and return the error, checking it names its rule."""
    with pytest.raises(error) as info:
        engine.apply(state, M(text))
    assert info.value.rule in str(info.value)
    return info.value


# --- B-COMP: components (the tables themselves are in test_data.py) -----------

def test_a_four_player_game_starts_with_all_forty_tokens_in_the_supply():
    """B-COMP-1."""
    s = engine.new_game("base", players=4, seed=3)
    assert supply(s) == "WWWWWWWUUUUUUUGGGGGGGRRRRRRRKKKKKKKJJJJJ"


def test_all_ninety_cards_are_in_play_at_the_start():
    """B-COMP-2: 90 cards, split between the market and the three decks."""
    s = engine.new_game("base", players=2, seed=3)
    assert engine.check_invariants(s, cards_total=90) == []


def test_the_revealed_nobles_are_worth_three_points_each():
    """B-COMP-3."""
    s = engine.new_game("base", players=3, seed=3)
    view = engine.observe(s, 0)
    assert [n["points"] for n in view["nobles"]] == [3, 3, 3, 3]


# --- B-SETUP -----------------------------------------------------------------

@pytest.mark.parametrize("players", [2, 3, 4])
def test_two_to_four_players_can_play_and_seat_zero_moves_first(players):
    """B-SETUP-1."""
    s = engine.new_game("base", players=players, seed=1)
    assert s.n == players and len(s.players) == players
    assert engine.to_move(s) == 0


@pytest.mark.parametrize("players", [0, 1, 5, "2", True])
def test_a_game_needs_two_to_four_players(players):
    """B-SETUP-1."""
    with pytest.raises(ValueError, match="B-SETUP-1"):
        engine.new_game("base", players=players, seed=1)


def test_seats_play_in_a_fixed_order():
    """B-SETUP-1: seat 0, 1, 2, then seat 0 again."""
    s = engine.new_game("base", players=3, seed=1)
    seen = []
    for _ in range(6):
        seen.append(engine.to_move(s))
        s = engine.apply(s, engine.legal_moves(s)[0])
    assert seen == [0, 1, 2, 0, 1, 2]


def test_each_level_is_shuffled_into_its_own_deck_with_four_cards_face_up():
    """B-SETUP-2."""
    s = engine.new_game("base", players=2, seed=11)
    for level in (1, 2, 3):
        row = s.market[level - 1]
        assert len(row) == 4 and None not in row
        assert all(int(cid[0]) == level for cid in row + s.decks[level - 1])
    assert [len(d) for d in s.decks] == [36, 26, 16]


def test_different_seeds_shuffle_differently_and_the_same_seed_the_same():
    """B-SETUP-2."""
    a = engine.new_game("base", players=2, seed=1)
    b = engine.new_game("base", players=2, seed=2)
    assert a.decks != b.decks
    assert engine.to_dict(engine.new_game("base", players=2, seed=1)) == engine.to_dict(a)


def test_an_explicit_deal_puts_the_first_four_of_each_deck_face_up():
    """B-SETUP-2: a deal names the decks top first."""
    deal = {
        "decks": {1: [f"1-{k:02}" for k in range(1, 41)], 2: ["2-01", "2-02", "2-03", "2-04", "2-05"],
                  3: ["3-20", "3-19", "3-18", "3-17"]},
        "nobles": ["N01", "N02", "N03"],
    }
    s = engine.new_game("base", players=2, deal=deal)
    assert s.market == (("1-01", "1-02", "1-03", "1-04"), ("2-01", "2-02", "2-03", "2-04"),
                        ("3-20", "3-19", "3-18", "3-17"))
    assert s.decks[1] == ("2-05",) and s.decks[2] == ()
    assert s.tiles == ("N01", "N02", "N03")


@pytest.mark.parametrize("kwargs", [{}, {"seed": 1, "deal": {"decks": {}, "nobles": []}}])
def test_a_game_is_set_up_from_exactly_one_of_a_seed_and_a_deal(kwargs):
    """B-SETUP-2."""
    with pytest.raises(ValueError):
        engine.new_game("base", players=2, **kwargs)


def test_a_deal_that_repeats_a_card_or_mixes_levels_is_refused():
    """B-SETUP-2."""
    nobles = ["N01", "N02", "N03"]
    with pytest.raises(ValueError, match="twice"):
        engine.new_game("base", 2, deal={"decks": {1: ["1-01", "1-01"]}, "nobles": nobles})
    with pytest.raises(ValueError, match="level-1"):
        engine.new_game("base", 2, deal={"decks": {1: ["2-01"]}, "nobles": nobles})


@pytest.mark.parametrize("players", [2, 3, 4])
def test_players_plus_one_nobles_are_revealed_at_random(players):
    """B-SETUP-3."""
    revealed = set()
    for seed in range(20):
        s = engine.new_game("base", players=players, seed=seed)
        assert len(s.tiles) == len(set(s.tiles)) == players + 1
        assert set(s.tiles) <= {f"N{k:02}" for k in range(1, 11)}
        revealed.add(s.tiles)
    assert len(revealed) > 10


def test_a_deal_must_reveal_players_plus_one_nobles():
    """B-SETUP-3."""
    with pytest.raises(ValueError, match="exactly 3 nobles"):
        engine.new_game("base", 2, deal={"decks": {}, "nobles": ["N01", "N02"]})


@pytest.mark.parametrize("players, gems", [(2, 4), (3, 5), (4, 7)])
def test_gem_tokens_per_colour_depend_on_players_and_gold_is_always_five(players, gems):
    """B-SETUP-4."""
    s = engine.new_game("base", players=players, seed=5)
    assert s.supply == (gems,) * 5 + (5, 0)


# --- B-TAKE-3 ----------------------------------------------------------------

def test_take_three_different_moves_one_of_each_from_supply_to_player():
    """B-TAKE-3."""
    s = position("base", players=2)
    after = engine.apply(s, M("take WUG"))
    assert tokens(after, 0) == "WUG"
    assert supply(after) == "WWWUUUGGGRRRRKKKKJJJJJ"


def test_take_letters_may_come_in_any_order_and_case():
    """B-TAKE-3 with notation.md: input letters in any order."""
    s = position("base", players=2)
    assert engine.parse_move(s, "take gwu") == "take WUG"


def test_gold_can_never_be_taken():
    """B-TAKE-3: gold comes only with a reservation (B-RESERVE-1)."""
    s = position("base", players=2)
    error = raises_rule(s, "take WUJ")
    assert error.rule == "B-TAKE-3"
    assert "gold" in error.message
    assert not any("J" in m.take for m in engine.legal_moves(s))


def test_taking_three_of_the_same_colour_is_illegal():
    """B-TAKE-3."""
    assert raises_rule(position("base"), "take WWW").rule == "B-TAKE-3"


def test_taking_two_different_colours_is_illegal_while_three_are_left():
    """B-TAKE-3: never fewer than 3 different when 3 colours are left."""
    s = position("base", players=2, seat_tokens={1: "WWWWUUUU"})  # G, R, K left
    assert "take GRK" in legal_texts(s)
    assert raises_rule(s, "take GR").rule == "B-TAKE-3"
    assert raises_rule(s, "take G").rule == "B-TAKE-3"


def test_with_two_colours_left_a_player_may_take_one_of_each():
    """B-TAKE-3 decision: one token of each colour that is left."""
    s = position("base", players=2, seat_tokens={0: "WWWWUUUU", 1: "GGGG"})  # R, K left
    takes = [m for m in legal_texts(s) if m.startswith("take")]
    assert takes == ["take KK", "take RK", "take RR"]
    after = engine.apply(s, M("take RK"))
    assert tokens(after, 0) == "WWWWUUUURK"


def test_never_one_colour_alone_while_two_are_left():
    """B-TAKE-3 decision: one colour alone only when it is the only one left."""
    s = position("base", players=2, seat_tokens={0: "WWWWUUUU", 1: "GGGG"})  # R, K left
    error = raises_rule(s, "take R")
    assert error.rule == "B-TAKE-3"
    assert "2 colours are left" in error.message


def test_with_one_colour_left_a_player_may_take_a_single_token():
    """B-TAKE-3 decision: 1 token when only one colour is left."""
    s = position("base", players=2, seat_tokens={0: "WWWWUUUU", 1: "GGGGRRRRK"})  # 3 black left
    takes = [m for m in legal_texts(s) if m.startswith("take")]
    assert takes == ["take K"]
    assert tokens(engine.apply(s, M("take K")), 0) == "WWWWUUUUK"


def test_taking_a_colour_with_no_tokens_left_is_illegal():
    """B-TAKE-3."""
    s = position("base", players=2, seat_tokens={1: "WWWW"})
    error = raises_rule(s, "take WUG")
    assert error.rule == "B-TAKE-3" and "white" in error.message


# --- B-TAKE-2 ----------------------------------------------------------------

def test_take_two_of_a_colour_when_its_pile_holds_four():
    """B-TAKE-2."""
    s = position("base", players=2)
    after = engine.apply(s, M("take RR"))
    assert tokens(after, 0) == "RR" and after.supply[3] == 2


def test_take_two_needs_four_in_pile_and_the_error_names_colour_and_count():
    """B-TAKE-2."""
    s = position("base", players=2, seat_tokens={1: "R"})  # 3 red left
    error = raises_rule(s, "take RR")
    assert error.rule == "B-TAKE-2"
    assert "red" in error.message and "3" in error.message
    assert "take RR" not in legal_texts(s)
    assert "take UU" in legal_texts(s)


def test_take_two_is_allowed_only_before_taking_so_four_in_a_three_player_pile_is_enough():
    """B-TAKE-2: the pile holds at least 4 *before* taking (5 players -> 5 gems)."""
    s = position("base", players=3, seat_tokens={1: "K"})  # 4 black left
    assert "take KK" in legal_texts(s)


# --- B-RESERVE ----------------------------------------------------------------

def test_reserving_a_face_up_card_gives_one_gold():
    """B-RESERVE-1."""
    s = position("base", players=2, market={2: ["2-13"]})
    after = engine.apply(s, M("reserve 2-13"))
    assert after.players[0].reserved == (("2-13", False),)
    assert tokens(after, 0) == "J" and after.supply[5] == 4


def test_reserving_blind_takes_the_top_card_of_a_deck():
    """B-RESERVE-1."""
    s = position("base", players=2)
    top = s.decks[2][0]
    after = engine.apply(s, M("reserve deck3"))
    assert after.players[0].reserved == ((top, True),)
    assert after.decks[2] == s.decks[2][1:]
    assert after.market == s.market
    assert tokens(after, 0) == "J"


def test_reserving_is_allowed_without_gold_when_none_is_left():
    """B-RESERVE-1: no gold left, the reservation still happens, without gold."""
    s = position("base", players=2, seat_tokens={1: "JJJJJ"}, market={1: ["1-07"]})
    assert "reserve 1-07" in legal_texts(s)
    after = engine.apply(s, M("reserve 1-07"))
    assert after.players[0].reserved == (("1-07", False),)
    assert tokens(after, 0) == "" and after.supply[5] == 0


def test_a_reservation_that_brings_an_eleventh_token_must_return_one():
    """B-RESERVE-1 with B-LIMIT-1: the gold may be returned at once."""
    s = position("base", players=2, seat_tokens={0: "WWUUGGRRKK"}, market={1: ["1-07"]})
    error = raises_rule(s, "reserve 1-07", AmbiguousMove)
    assert error.rule == "B-LIMIT-1"
    after = engine.apply(s, M("reserve 1-07 return J"))
    assert tokens(after, 0) == "WWUUGGRRKK" and after.supply[5] == 5


def test_a_player_may_hold_at_most_three_reserved_cards():
    """B-RESERVE-2."""
    s = position("base", players=2, reserved={0: ["3-01", "3-02", "3-03"]})
    assert not [m for m in engine.legal_moves(s) if m.kind == "reserve"]
    market_card = s.market[0][0]
    assert raises_rule(s, f"reserve {market_card}").rule == "B-RESERVE-2"
    assert raises_rule(s, "reserve deck1").rule == "B-RESERVE-2"


def test_reserved_cards_stay_until_bought_then_a_fourth_may_be_reserved():
    """B-RESERVE-2: reserved cards leave the hand only by being bought."""
    s = position("base", players=2, seat_tokens={0: "RRK"},
                 reserved={0: ["1-01", "3-02", "3-03"]})  # 1-01 costs 2 red, 1 black
    s = play(s, "buy 1-01", "take WUG")
    assert [cid for cid, _ in s.players[0].reserved] == ["3-02", "3-03"]
    assert any(m.kind == "reserve" for m in engine.legal_moves(s))


def test_a_blind_reservation_is_hidden_from_opponents_but_not_its_owner():
    """B-RESERVE-3."""
    s = position("base", players=3)
    top = s.decks[0][0]
    after = engine.apply(s, M("reserve deck1"))
    mine = engine.observe(after, 0)["seats"][0]["reserved"]
    assert mine[0]["id"] == top and mine[0]["blind"] is True
    for seat in (1, 2, None):
        theirs = engine.observe(after, seat)["seats"][0]["reserved"]
        assert theirs == [{"slot": "h1", "level": 1, "hidden": True}]
        assert top not in json.dumps(engine.observe(after, seat))


def test_a_card_reserved_from_the_market_is_known_to_everyone():
    """B-RESERVE-3."""
    s = position("base", players=2, market={3: ["3-05"]})
    after = engine.apply(s, M("reserve 3-05"))
    for seat in (0, 1, None):
        seen = engine.observe(after, seat)["seats"][0]["reserved"]
        assert seen[0]["id"] == "3-05" and seen[0]["blind"] is False


def test_the_move_log_of_a_blind_reservation_does_not_name_the_card():
    """B-RESERVE-3: the card is only in move_details' private part."""
    s = position("base", players=2)
    top = s.decks[1][0]
    move = engine.parse_move(s, "reserve deck 2")
    after = engine.apply(s, move)
    assert move == "reserve deck2" and top not in move
    details = engine.move_details(s, move, after)
    assert details["private_card"] == top
    assert top not in details["move"]


# --- B-BUY ---------------------------------------------------------------------

def test_buying_pays_the_cost_in_gems_back_to_the_supply():
    """B-BUY-1."""
    s = position("base", players=2, seat_tokens={0: "WRRK"}, market={1: ["1-01"]})  # 2 red, 1 black
    after = engine.apply(s, M("buy 1-01"))
    assert tokens(after, 0) == "W"
    assert after.supply == s.supply[:3] + (s.supply[3] + 2, s.supply[4] + 1) + s.supply[5:]


def test_bonuses_reduce_the_cost_per_colour():
    """B-BUY-1: 2-05 costs 5 red, 3 black; 3 red bonuses leave 2 red and 3 black to pay."""
    s = position("base", players=2, seat_tokens={0: "RRKKK"}, bonuses={0: "RRR"}, market={2: ["2-05"]})
    after = engine.apply(s, M("buy 2-05"))
    assert tokens(after, 0) == ""


def test_bonuses_above_the_cost_pay_nothing_and_are_never_below_zero():
    """B-BUY-1: cost minus bonuses, never below 0; spare bonuses are not refunded."""
    s = position("base", players=2, seat_tokens={0: "W"}, bonuses={0: "UUUU"}, market={1: ["1-02"]})
    after = engine.apply(s, M("buy 1-02"))  # 1-02 costs 3 blue
    assert tokens(after, 0) == "W"
    assert after.supply == s.supply


def test_gold_stands_in_for_any_missing_gem():
    """B-BUY-1."""
    s = position("base", players=2, seat_tokens={0: "RJ"}, market={1: ["1-01"]})  # needs RR K
    assert "buy 1-01" not in legal_texts(s)
    s = position("base", players=2, seat_tokens={0: "RJJ"}, market={1: ["1-01"]})
    after = engine.apply(s, M("buy 1-01"))
    assert tokens(after, 0) == "" and after.supply[5] == 5


def test_a_card_that_cannot_be_paid_is_illegal_and_the_error_says_what_is_short():
    """B-BUY-1."""
    s = position("base", players=2, seat_tokens={0: "RK"}, market={1: ["1-01"]})
    error = raises_rule(s, "buy 1-01")
    assert error.rule == "B-BUY-1"
    assert "1 red" in error.message


def test_a_card_neither_in_the_market_nor_reserved_cannot_be_bought():
    """B-BUY-1."""
    s = position("base", players=2, seat_tokens={0: "RRK"}, market={1: ["1-02"]}, reserved={1: ["1-01"]})
    assert raises_rule(s, "buy 1-01").rule == "B-BUY-1"


def test_payment_forms_of_the_worked_example_with_card_2_05():
    """B-BUY-1, notation.md "Payments": 4 red, 3 black, 3 jokers, no bonuses."""
    s = position("base", players=2, seat_tokens={0: "RRRRKKKJJJ"}, market={2: ["2-05"]})
    buys = [m for m in legal_texts(s) if m.startswith("buy 2-05")]
    assert buys == ["buy 2-05", "buy 2-05 J:K", "buy 2-05 J:KK", "buy 2-05 J:R", "buy 2-05 J:RK",
                    "buy 2-05 J:RR"]
    # default: 4 red + 1 joker, and 3 black
    assert tokens(engine.apply(s, M("buy 2-05")), 0) == "JJ"
    # J:R: 3 red + 2 jokers, and 3 black
    assert tokens(engine.apply(s, M("buy 2-05 J:R")), 0) == "RJ"
    # J:RK: 3 red + 2 jokers, and 2 black + 1 joker
    assert tokens(engine.apply(s, M("buy 2-05 J:RK")), 0) == "RK"


def test_spending_more_jokers_than_held_or_on_a_colour_not_paid_is_illegal():
    """B-BUY-1: J: letters name gems the default payment would have spent."""
    s = position("base", players=2, seat_tokens={0: "RRRRKKKJJJ"}, market={2: ["2-05"]})
    assert raises_rule(s, "buy 2-05 J:RRK").rule == "B-BUY-1"  # needs 4 jokers
    assert raises_rule(s, "buy 2-05 J:W").rule == "B-BUY-1"  # no white is paid


def test_a_bought_card_gives_its_points_and_a_permanent_bonus():
    """B-BUY-2: 2-05 is a white card worth 2 points."""
    s = position("base", players=2, seat_tokens={0: "RRRRKKKJ"}, market={2: ["2-05"]})
    after = engine.apply(s, M("buy 2-05"))
    p = after.players[0]
    assert p.cards == ("2-05",) and p.points == 2 and p.bonuses == (1, 0, 0, 0, 0)
    assert engine.observe(after, 1)["seats"][0]["points"] == 2


def test_a_reserved_card_can_be_bought_by_its_owner():
    """B-BUY-1, B-BUY-2: buying one's own reserved card (its gold is kept or spent)."""
    s = position("base", players=2, seat_tokens={0: "RRJ"}, reserved={0: [("1-01", True)]})
    after = engine.apply(s, M("buy 1-01"))
    assert after.players[0].reserved == () and after.players[0].cards == ("1-01",)
    assert tokens(after, 0) == ""


# --- B-MARKET-1 -----------------------------------------------------------------

def test_a_bought_card_is_replaced_in_the_same_slot_from_its_deck():
    """B-MARKET-1."""
    s = position("base", players=2, seat_tokens={0: "RRK"}, market={1: ["1-02", "1-03", "1-01", "1-04"]})
    top = s.decks[0][0]
    after = engine.apply(s, M("buy 1-01"))
    assert after.market[0] == ("1-02", "1-03", top, "1-04")
    assert after.decks[0] == s.decks[0][1:]


def test_a_reserved_market_card_is_replaced_in_the_same_slot():
    """B-MARKET-1."""
    s = position("base", players=2, market={3: ["3-01", "3-02", "3-03", "3-04"]})
    top = s.decks[2][0]
    after = engine.apply(s, M("reserve 3-02"))
    assert after.market[2] == ("3-01", top, "3-03", "3-04")


def test_when_the_deck_is_empty_the_gap_stays():
    """B-MARKET-1."""
    s = position("base", players=2, seat_tokens={0: "RRK"},
                 market={1: ["1-02", "1-01", "1-03", "1-04"]}, decks={1: []})
    after = engine.apply(s, M("buy 1-01"))
    assert after.market[0] == ("1-02", None, "1-03", "1-04")
    view = engine.observe(after, 0)
    assert view["market"]["1"][1] is None and view["decks"]["1"] == 0
    assert not any(m == "reserve deck1" for m in engine.legal_moves(after))


def test_buying_from_the_reserve_leaves_the_market_unchanged():
    """B-MARKET-1: only a card leaving the market is replaced."""
    s = position("base", players=2, seat_tokens={0: "RRK"}, reserved={0: ["1-01"]})
    after = engine.apply(s, M("buy 1-01"))
    assert after.market == s.market and after.decks == s.decks


# --- B-PASS ----------------------------------------------------------------------

def passing_position(**overrides):
    """Both seats hold 10 gems (the supply has none left), 3 reserved level-3 cards
    each and none can afford anything (every level-3 card asks 5+ of one colour;
    the lower market is empty)."""
    level3 = cards_where("base", level=3)
    args = {
        "seat_tokens": {0: "WWWWUUUUGG", 1: "GGRRRRKKKK"},
        "reserved": {0: level3[9:12], 1: level3[12:15]},
        "market": {1: [None] * 4, 2: [None] * 4, 3: level3[:4]},
        "decks": {1: [], 2: [], 3: level3[4:9] + level3[15:]},
    }
    args.update(overrides)
    return position("base", players=2, **args)


def test_a_player_with_no_legal_action_must_pass():
    """B-PASS-1."""
    s = passing_position()
    assert legal_texts(s) == ["pass"]
    after = engine.apply(s, M("pass"))
    assert engine.to_move(after) == 1 and not engine.is_over(after)
    assert after.players == s.players and after.supply == s.supply


def test_passing_is_legal_only_when_nothing_else_is():
    """B-PASS-1."""
    s = position("base", players=2)
    assert "pass" not in legal_texts(s)
    error = raises_rule(s, "pass")
    assert error.rule == "B-PASS-1"


def test_when_every_seat_in_turn_must_pass_the_game_ends_and_is_scored():
    """B-PASS-2, scored by B-END-2."""
    s = passing_position(cards={1: ["1-08"]})  # seat 1 has a point
    s = play(s, "pass")
    assert not engine.is_over(s)
    s = play(s, "pass")
    assert engine.is_over(s)
    result = engine.outcome(s)
    assert result["reason"] == "all-passed"
    assert result["winners"] == [1]
    assert engine.legal_moves(s) == ()


def test_a_pass_followed_by_a_real_move_does_not_end_the_game():
    """B-PASS-2: only a full round of forced passes, one after another."""
    s = passing_position(bonuses={1: "GGGGG"})  # seat 1 can now pay 3-14's 7 green
    s = play(s, "pass", "buy 3-14")
    assert not engine.is_over(s) and s.passes == 0


# --- B-LIMIT-1 -------------------------------------------------------------------

def test_a_move_that_leaves_more_than_ten_tokens_needs_a_return_and_lists_the_choices():
    """B-LIMIT-1."""
    s = position("base", players=2, seat_tokens={0: "WWUUGGRRK"})
    error = raises_rule(s, "take WUG", AmbiguousMove)
    assert error.rule == "B-LIMIT-1"
    assert error.choices
    assert all(c.startswith("take WUG return ") and len(c.split()[-1]) == 2 for c in error.choices)
    assert set(error.choices) == {m for m in legal_texts(s) if m.startswith("take WUG ")}
    assert "take WUG return KK" not in error.choices  # only one black held after taking


def test_returning_tokens_when_not_over_ten_is_illegal():
    """B-LIMIT-1."""
    s = position("base", players=2, seat_tokens={0: "WWUU"})
    error = raises_rule(s, "take WUG return W")
    assert error.rule == "B-LIMIT-1" and type(error) is IllegalMove


def test_returning_more_than_needed_to_reach_ten_is_illegal():
    """B-LIMIT-1: return until the player holds exactly 10."""
    s = position("base", players=2, seat_tokens={0: "WWUUGGRRK"})
    error = raises_rule(s, "take WUG return WUR")
    assert error.rule == "B-LIMIT-1" and "exactly 2" in error.message


def test_returned_tokens_may_include_those_just_taken_and_gold():
    """B-LIMIT-1."""
    s = position("base", players=2, seat_tokens={0: "WWRRKKKJJ"})
    after = engine.apply(s, M("take UGR return GJ"))
    assert tokens(after, 0) == "WWURRRKKKJ"
    after = engine.apply(s, M("take UGR return UG"))
    assert tokens(after, 0) == "WWRRRKKKJJ"


def test_returning_tokens_the_player_does_not_hold_is_illegal():
    """B-LIMIT-1."""
    s = position("base", players=2, seat_tokens={0: "WWUUGGRRKK"})
    error = raises_rule(s, "take WUG return JJJ")
    assert error.rule == "B-LIMIT-1"


# --- B-NOBLE ---------------------------------------------------------------------

def test_a_noble_visits_automatically_when_bonuses_meet_its_requirement():
    """B-NOBLE-1: N01 asks 4 white, 4 blue; the fourth blue card (1-09) brings it."""
    s = position("base", players=2, tiles=["N01", "N05", "N10"], bonuses={0: "WWWWUUU"},
                 seat_tokens={0: "KKK"}, market={1: ["1-09"]})
    after = engine.apply(s, M("buy 1-09"))
    assert after.players[0].tiles == ("N01",)
    assert after.players[0].points == 3
    assert after.tiles == ("N05", "N10")
    assert engine.move_details(s, M("buy 1-09"), after)["tile"] == "N01"


def test_only_bonuses_count_for_a_noble_never_tokens():
    """B-NOBLE-1."""
    s = position("base", players=2, tiles=["N01", "N05", "N10"], seat_tokens={0: "WWWWUUUU"})
    after = engine.apply(s, M("take RR"))
    assert after.players[0].tiles == () and "N01" in after.tiles
    error = raises_rule(s, "take RR noble N01")
    assert error.rule == "B-NOBLE-1"


def test_a_noble_that_qualifies_alone_needs_no_suffix_and_naming_it_is_refused_by_apply():
    """B-NOBLE-1, B-NOBLE-2: the suffix is required only when several qualify."""
    s = position("base", players=2, tiles=["N01", "N05", "N10"], bonuses={0: "WWWWUUU"},
                 seat_tokens={0: "KKK"}, market={1: ["1-09"]})
    assert "buy 1-09" in legal_texts(s)
    assert "buy 1-09 noble N01" not in legal_texts(s)
    assert raises_rule(s, "buy 1-09 noble N01").rule == "B-NOBLE-2"


def two_nobles_position():
    """Seat 0 has 4 white, 3 blue, 4 green bonuses: one more blue card brings both
    N01 (4 white, 4 blue) and N03 (4 blue, 4 green)."""
    return position("base", players=2, tiles=["N01", "N03", "N05"], bonuses={0: "WWWWUUUGGGG"},
                    seat_tokens={0: "KKK"}, market={1: ["1-09"]})


def test_when_several_nobles_qualify_the_move_must_choose_one():
    """B-NOBLE-2."""
    s = two_nobles_position()
    error = raises_rule(s, "buy 1-09", AmbiguousMove)
    assert error.rule == "B-NOBLE-2"
    assert error.choices == ["buy 1-09 noble N01", "buy 1-09 noble N03"]
    assert raises_rule(s, "buy 1-09 noble N05").rule == "B-NOBLE-1"


def test_only_one_noble_per_turn_and_the_other_comes_later():
    """B-NOBLE-2."""
    s = two_nobles_position()
    s = play(s, "buy 1-09 noble N03")
    assert s.players[0].tiles == ("N03",) and s.players[0].points == 3
    assert "N01" in s.tiles
    s = play(s, "take WUG")  # seat 1
    assert all(m.tile is None for m in engine.legal_moves(s))  # N01 now qualifies alone
    s = play(s, "take RR")
    assert s.players[0].tiles == ("N03", "N01") and s.players[0].points == 6


def test_a_choice_of_noble_rides_on_every_move_even_a_pass():
    """B-NOBLE-2 with B-PASS-1: `pass noble N02`."""
    # N05 asks 4 red, 4 black; N08 asks 3 white, 3 red, 3 black
    s = passing_position(tiles=["N01", "N05", "N08"], bonuses={0: "WWWRRRRKKKK"})
    assert legal_texts(s) == ["pass noble N05", "pass noble N08"]
    assert raises_rule(s, "pass", AmbiguousMove).choices == ["pass noble N05", "pass noble N08"]
    after = engine.apply(s, M("pass noble N08"))
    assert after.players[0].tiles == ("N08",)


# --- B-END -------------------------------------------------------------------------

def fourteen_points(variant: str = "base") -> list[str]:
    """Three level-3 cards worth 5 + 5 + 4 points."""
    fives = cards_where(variant, level=3, points=5)
    fours = cards_where(variant, level=3, points=4)
    return [fives[0], fives[1], fours[0]]


def test_reaching_fifteen_points_finishes_the_round_and_ends_after_the_last_seat():
    """B-END-1: seat 0 of 3 reaches 15; seats 1 and 2 still play."""
    s = position("base", players=3, cards={0: fourteen_points()}, seat_tokens={0: "WWWW"},
                 market={1: ["1-32"]})  # 1-32: red, 1 point, costs 4 white
    s = play(s, "buy 1-32")
    assert engine.score(s, 0) == 15
    assert s.end_triggered and not engine.is_over(s)
    assert engine.observe(s, 1)["final_round"] is True
    s = play(s, "take WUG")
    assert not engine.is_over(s)
    s = play(s, "take WUG")
    assert engine.is_over(s) and engine.outcome(s)["reason"] == "points"
    assert engine.outcome(s)["winners"] == [0]
    assert engine.to_move(s) is None and engine.legal_moves(s) == ()


def test_reaching_fifteen_in_the_last_seat_ends_the_game_at_once():
    """B-END-1."""
    s = position("base", players=2, ply=1, cards={1: fourteen_points()}, seat_tokens={1: "WWWW"},
                 market={1: ["1-32"]})
    s = play(s, "buy 1-32")
    assert engine.is_over(s) and engine.outcome(s)["winners"] == [1]


def test_no_move_is_legal_once_the_game_is_over():
    """B-END-1."""
    s = position("base", players=2, over=True, reason="points")
    error = raises_rule(s, "take WUG")
    assert error.rule == "B-END-1"


def test_highest_prestige_wins():
    """B-END-2."""
    s = position("base", players=3, cards={0: ["3-04"], 1: ["3-08", "1-08"], 2: []},
                 over=True, reason="points")
    result = engine.outcome(s)
    assert result["scores"] == [5, 6, 0]
    assert result["winners"] == [1] and result["ranking"] == [1, 0, 2]
    assert result["places"] == [2, 1, 3]


def test_a_tie_on_points_is_won_by_fewer_cards():
    """B-END-2: 5 points with one card beats 5 points with two."""
    s = position("base", players=2, cards={0: ["3-06", "1-08"], 1: ["3-04"]}, over=True, reason="points")
    result = engine.outcome(s)
    assert result["scores"] == [5, 5]
    assert result["winners"] == [1] and result["places"] == [2, 1]


def test_a_tie_on_points_and_cards_is_a_shared_victory_and_a_shared_place():
    """B-END-2."""
    s = position("base", players=4, cards={0: ["3-04"], 1: ["3-08"], 2: ["3-02"], 3: ["3-06"]},
                 over=True, reason="points")
    result = engine.outcome(s)
    assert result["winners"] == [0, 1]
    assert result["places"] == [1, 1, 3, 3]
    assert result["ranking"] == [0, 1, 2, 3]


def test_a_game_still_running_after_a_hundred_rounds_ends_there():
    """B-END-3."""
    s = position("base", players=2, ply=199, cards={0: ["1-08"]})
    s = play(s, str(engine.legal_moves(s)[0]))
    assert engine.is_over(s)
    result = engine.outcome(s)
    assert result["reason"] == "round-limit" and result["winners"] == [0]


def test_the_hundredth_round_is_played_out_in_full():
    """B-END-3: the limit is checked only at the end of a round."""
    s = position("base", players=3, ply=297)
    for _ in range(2):
        s = play(s, str(engine.legal_moves(s)[0]))
        assert not engine.is_over(s)
    s = play(s, str(engine.legal_moves(s)[0]))
    assert engine.is_over(s) and engine.outcome(s)["reason"] == "round-limit"


# --- errors --------------------------------------------------------------------------

def test_the_three_errors_are_distinct_engine_errors_and_value_errors():
    """Errors name the rule: InvalidNotation, IllegalMove and AmbiguousMove."""
    assert len({InvalidNotation, IllegalMove, AmbiguousMove}) == 3
    for error in (InvalidNotation, IllegalMove, AmbiguousMove):
        assert issubclass(error, EngineError) and issubclass(error, ValueError)
    assert not issubclass(InvalidNotation, IllegalMove)
    assert not issubclass(IllegalMove, InvalidNotation)


def test_bad_syntax_illegal_and_ambiguous_moves_raise_different_errors():
    """B-TAKE-2, B-LIMIT-1."""
    s = position("base", players=2, seat_tokens={0: "WWUUGGRRK", 1: "R"})
    with pytest.raises(InvalidNotation):
        engine.parse_move(s, "grab everything")
    with pytest.raises(IllegalMove) as illegal:
        engine.parse_move(s, "take RR")
    assert not isinstance(illegal.value, AmbiguousMove)
    assert str(illegal.value).startswith("B-TAKE-2")
    with pytest.raises(AmbiguousMove) as ambiguous:
        engine.parse_move(s, "take WUG")
    assert "B-LIMIT-1" in str(ambiguous.value)


ILLEGAL_IN_START = ["take RR return W", "take WUJ", "buy 3-01", "pass", "reserve 2-99", "take WWW",
                    "take WUG noble N01"]


@pytest.mark.parametrize("text", ILLEGAL_IN_START)
def test_a_failed_move_changes_nothing(text):
    """Nothing is half-applied: the state after a failed apply equals the one before."""
    s = position("base", players=2, seat_tokens={0: "WUGRK"})
    before = engine.to_dict(s)
    with pytest.raises(IllegalMove):
        engine.apply(s, M(text))
    assert engine.to_dict(s) == before
    assert engine.apply(s, M("take WUG")).ply == 1


def test_apply_never_changes_its_input():
    """A state is a value: apply returns a new one."""
    s = position("base", players=2, seat_tokens={0: "RRK"}, market={1: ["1-01"]})
    before = engine.to_dict(s)
    after = engine.apply(s, M("buy 1-01"))
    assert engine.to_dict(s) == before
    assert after is not s and after.ply == 1


def test_replay_names_the_ply_of_an_illegal_move():
    """B-TAKE-2 in a replayed log."""
    with pytest.raises(IllegalMove) as info:
        engine.replay("base", 2, 7, ["take RR", "take WUG", "take RR"])
    assert info.value.rule == "B-TAKE-2" and "ply 2" in str(info.value)
