"""Splendor: Marvel: one or more tests per rule of marvel.md, named by its id.

Letters: Y yellow, U blue, O orange, R red, P purple, J grey (the joker), T green
(the Time Stone).
"""

from __future__ import annotations

import pytest

import engine
from engine import AmbiguousMove, IllegalMove
from tests.engine.builders import play, position, tokens_text

M = engine.move_from_text


def legal_texts(state: engine.State) -> list[str]:
    return [str(m) for m in engine.legal_moves(state)]


def tokens(state: engine.State, seat: int) -> str:
    return tokens_text("marvel", state.players[seat].tokens)


def raises_rule(state: engine.State, text: str, error: type[IllegalMove] = IllegalMove) -> IllegalMove:
    with pytest.raises(error) as info:
        engine.apply(state, M(text))
    assert info.value.rule in str(info.value)
    return info.value


def marvel(players: int = 2, **overrides) -> engine.State:
    """A Marvel position; locations nobody is near unless a test names others."""
    overrides.setdefault("tiles", ["L2B", "L4A", "L2A", "L4B"][:players])
    return position("marvel", players=players, **overrides)


# --- M-COMP ---------------------------------------------------------------------

def test_the_five_stone_colours_and_the_joker_and_time_stone_are_in_the_view():
    """M-COMP-1, M-COMP-2: the supply shows Y U O R P, grey J and green T."""
    view = engine.observe(engine.new_game("marvel", players=4, seed=1), 0)
    assert view["supply"] == {"Y": 7, "U": 7, "O": 7, "R": 7, "P": 7, "J": 5, "T": 4}
    assert view["joker"] == "J"


def test_a_character_card_shows_its_name_icons_and_time_stone():
    """M-COMP-3."""
    s = marvel(market={3: ["3-08"], 1: ["1-22"]})
    row3 = engine.observe(s, 0)["market"]["3"]
    assert row3[0] == {"slot": "3a", "id": "3-08", "level": 3, "color": "U", "points": 5,
                       "cost": {"O": 3, "R": 7}, "name": "Gamora", "avengers": 0, "time_stone": True}
    assert engine.observe(s, 0)["market"]["1"][0]["avengers"] == 1


def test_locations_are_three_point_tiles_with_a_bonus_requirement():
    """M-COMP-4."""
    view = engine.observe(marvel(tiles=["L1B", "L3A"]), 0)
    assert view["locations"] == [
        {"id": "L1B", "points": 3, "requires": {"U": 4, "R": 4}, "name": "Wakanda"},
        {"id": "L3A", "points": 3, "requires": {"Y": 3, "U": 3, "R": 3}, "name": "Knowhere"},
    ]


def test_avengers_assemble_adds_three_points_and_the_gauntlet_tile_none():
    """M-COMP-5: the Gauntlet is only the end condition (M-END-1)."""
    s = marvel(cards={0: ["3-01", "3-05"]}, avengers=0)
    assert engine.score(s, 0) == 3 + 3 + 3
    assert engine.observe(s, 1)["seats"][0]["avengers_assemble"] is True
    assert engine.observe(s, 1)["avengers_assemble"] == 0


# --- M-SETUP ----------------------------------------------------------------------

@pytest.mark.parametrize("players, stones, green", [(2, 4, 2), (3, 5, 3), (4, 7, 4)])
def test_stone_tokens_per_colour_green_one_per_player_grey_always_five(players, stones, green):
    """M-SETUP-1."""
    s = engine.new_game("marvel", players=players, seed=2)
    assert s.supply == (stones,) * 5 + (5, green)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_as_many_location_tiles_as_players_each_showing_one_side(players):
    """M-SETUP-2: not players + 1; never both sides of one tile."""
    sides = set()
    for seed in range(30):
        s = engine.new_game("marvel", players=players, seed=seed)
        assert len(s.tiles) == players
        groups = [t[1] for t in s.tiles]
        assert len(set(groups)) == players
        sides.update(t[2] for t in s.tiles)
    assert sides == {"A", "B"}


def test_a_deal_may_not_show_both_sides_of_one_location_tile():
    """M-SETUP-2."""
    with pytest.raises(ValueError, match="both sides"):
        engine.new_game("marvel", players=2, deal={"decks": {}, "locations": ["L1A", "L1B"]})
    with pytest.raises(ValueError, match="exactly 2 locations"):
        engine.new_game("marvel", players=2, deal={"decks": {}, "locations": ["L1A", "L2B", "L3A"]})
    s = engine.new_game("marvel", players=2, deal={"decks": {3: ["3-08"]}, "locations": ["L1A", "L2B"]})
    assert s.tiles == ("L1A", "L2B") and s.market[2] == ("3-08", None, None, None)


# --- M-TAKE-1 ------------------------------------------------------------------------

def test_three_different_and_two_same_stones_can_be_taken():
    """M-TAKE-1."""
    s = marvel()
    assert tokens(engine.apply(s, M("take YOP")), 0) == "YOP"
    assert tokens(engine.apply(s, M("take PP")), 0) == "PP"


@pytest.mark.parametrize("text", ["take YUJ", "take YUT", "take JJ", "take TT", "take T"])
def test_grey_and_green_tokens_can_never_be_taken(text):
    """M-TAKE-1."""
    s = marvel()
    assert raises_rule(s, text).rule == "M-TAKE-1"
    assert not any(set(m.take) & {"J", "T"} for m in engine.legal_moves(s))


def test_base_game_letters_are_not_marvel_stones():
    """M-TAKE-1: only the five stone colours (G and K are base-game letters)."""
    s = marvel()
    error = raises_rule(s, "take WGK")
    assert "not a token of the marvel game" in error.message


# --- M-RESERVE-1 ----------------------------------------------------------------------

def test_reserving_gives_one_grey_token():
    """M-RESERVE-1."""
    s = marvel(market={2: ["2-15"]})
    after = engine.apply(s, M("reserve 2-15"))
    assert after.players[0].reserved == (("2-15", False),)
    assert tokens(after, 0) == "J"


def test_reserving_with_no_grey_left_still_reserves():
    """M-RESERVE-1."""
    s = marvel(seat_tokens={1: "JJJJJ"})
    after = engine.apply(s, M("reserve deck2"))
    assert len(after.players[0].reserved) == 1 and tokens(after, 0) == ""


def test_a_marvel_player_may_hold_at_most_three_reserved_cards():
    """M-RESERVE-1 (as B-RESERVE-2)."""
    s = marvel(reserved={0: ["1-01", "1-02", "1-03"]})
    assert raises_rule(s, "reserve deck1").rule == "B-RESERVE-2"


# --- M-BUY-1 ----------------------------------------------------------------------------

def test_recruiting_pays_with_stones_and_grey_stands_in():
    """M-BUY-1: 1-01 Baron Zemo costs 3 red."""
    s = marvel(seat_tokens={0: "RRJ"}, market={1: ["1-01"]})
    after = engine.apply(s, M("buy 1-01"))
    assert tokens(after, 0) == "" and after.players[0].cards == ("1-01",)
    assert after.supply[5] == 5


def test_green_never_pays():
    """M-BUY-1: a Time Stone is not a joker."""
    s = marvel(seat_tokens={0: "RRT"}, market={1: ["1-01"]}, cards={0: ["3-02"]})
    assert not any(m.kind == "buy" and m.card == "1-01" for m in engine.legal_moves(s))
    assert raises_rule(s, "buy 1-01").rule == "M-BUY-1"
    assert raises_rule(s, "buy 1-01 J:T").rule == "M-BUY-1"


def test_grey_payment_forms_follow_the_notation():
    """M-BUY-1 with notation.md "Payments": J: names the stones a grey replaces."""
    s = marvel(seat_tokens={0: "RRRJ"}, market={1: ["1-01"]})
    assert [m for m in legal_texts(s) if m.startswith("buy 1-01")] == ["buy 1-01", "buy 1-01 J:R"]
    assert tokens(engine.apply(s, M("buy 1-01 J:R")), 0) == "R"


def test_the_lenient_parser_accepts_a_recruit_by_character_name():
    """M-BUY-1: `buy Gamora` when Gamora (3-08: 3 orange, 7 red) is buyable."""
    s = marvel(seat_tokens={0: "OOORRRR"}, bonuses={0: "RRR"}, market={3: ["3-08"]})
    assert engine.parse_move(s, "buy Gamora") == "buy 3-08"
    assert engine.parse_move(s, "recruit gamora") == "buy 3-08"
    assert engine.parse_move(s, "buy 3a") == "buy 3-08"


def test_a_name_that_is_no_character_is_invalid_notation():
    """M-BUY-1."""
    with pytest.raises(engine.InvalidNotation, match="character"):
        engine.parse_move(marvel(), "buy Batman")


# --- M-MARKET-1 ---------------------------------------------------------------------------

def test_a_recruited_character_is_replaced_in_its_slot():
    """M-MARKET-1."""
    s = marvel(seat_tokens={0: "RRR"}, market={1: ["1-05", "1-01", "1-12", "1-13"]})
    top = s.decks[0][0]
    after = engine.apply(s, M("buy 1-01"))
    assert after.market[0] == ("1-05", top, "1-12", "1-13")


def test_an_empty_marvel_deck_leaves_the_gap():
    """M-MARKET-1."""
    s = marvel(market={2: ["2-15", "2-16", "2-17", "2-18"]}, decks={2: []})
    after = engine.apply(s, M("reserve 2-16"))
    assert after.market[1] == ("2-15", None, "2-17", "2-18")


# --- M-TIME ---------------------------------------------------------------------------------

def test_recruiting_a_first_level_three_character_brings_the_time_stone():
    """M-TIME-1: 3-02 Doctor Octopus costs 7 blue."""
    s = marvel(seat_tokens={0: "UUU"}, bonuses={0: "UUUU"}, market={3: ["3-02"]})
    after = engine.apply(s, M("buy 3-02"))
    assert after.players[0].tokens[6] == 1
    assert after.supply[6] == s.supply[6] - 1
    assert engine.move_details(s, M("buy 3-02"), after)["time_stone"] is True
    assert engine.observe(after, 1)["seats"][0]["time_stone"] is True


def test_reserving_a_level_three_character_does_not_bring_the_time_stone():
    """M-TIME-1."""
    s = marvel(market={3: ["3-02"]})
    for text in ("reserve 3-02", "reserve deck3"):
        after = engine.apply(s, M(text))
        assert after.players[0].tokens[6] == 0 and after.supply[6] == 2


def test_recruiting_a_reserved_level_three_character_brings_the_time_stone():
    """M-TIME-1: recruiting counts, wherever the card comes from."""
    s = marvel(seat_tokens={0: "UUU"}, bonuses={0: "UUUU"}, reserved={0: [("3-02", True)]})
    after = engine.apply(s, M("buy 3-02"))
    assert after.players[0].tokens[6] == 1


def test_recruiting_lower_levels_never_brings_the_time_stone():
    """M-TIME-1."""
    s = marvel(seat_tokens={0: "OOOOO"}, market={2: ["2-05"]}, players=3)  # 2-05: 5 orange
    assert engine.apply(s, M("buy 2-05")).players[0].tokens[6] == 0


def test_a_player_never_holds_more_than_one_time_stone():
    """M-TIME-2: a second level-3 character brings no second green."""
    s = marvel(seat_tokens={0: "UUUT"}, cards={0: ["3-06"]}, bonuses={0: "UUUU"},
               market={3: ["3-02"]})
    after = engine.apply(s, M("buy 3-02"))
    assert after.players[0].tokens[6] == 1
    assert after.supply[6] == s.supply[6] == 1


def test_the_time_stone_counts_toward_ten_and_a_return_must_be_other_tokens():
    """M-TIME-3: 9 stones and the green; taking 3 means returning 3 stones."""
    s = marvel(seat_tokens={0: "YYUUOORRPT"}, cards={0: ["3-02"]})
    error = raises_rule(s, "take YUO", AmbiguousMove)
    assert error.rule == "B-LIMIT-1"
    assert error.choices and not any("T" in c.split()[-1] for c in error.choices)
    assert raises_rule(s, "take YUO return PRT").rule == "M-TIME-3"
    assert raises_rule(s, "take YUO return TT").rule == "M-TIME-3"
    after = engine.apply(s, M("take YUO return YUO"))
    assert tokens(after, 0) == "YYUUOORRPT"


def test_a_time_stone_gained_by_a_free_recruit_forces_a_return_but_never_of_itself():
    """M-TIME-3: 10 stones held, 3-02 fully paid by 7 blue bonuses, the green makes 11."""
    s = marvel(seat_tokens={0: "YYYYOOOORR"}, bonuses={0: "UUUUUUU"}, market={3: ["3-02"]})
    error = raises_rule(s, "buy 3-02", AmbiguousMove)
    assert error.rule == "B-LIMIT-1"
    assert sorted(error.choices) == ["buy 3-02 return O", "buy 3-02 return R", "buy 3-02 return Y"]
    error = raises_rule(s, "buy 3-02 return T")
    assert error.rule == "M-TIME-3"
    assert "Time Stone" in error.message
    after = engine.apply(s, M("buy 3-02 return R"))
    assert tokens(after, 0) == "YYYYOOOORT"


# --- M-AVENGERS -------------------------------------------------------------------------------

def test_three_avengers_icons_take_avengers_assemble_and_three_points():
    """M-AVENGERS-1: 3-01 Iron Man has 2 icons, 1-06 Spider-Woman 1 (costs Y U RRR)."""
    s = marvel(cards={0: ["3-01"]}, seat_tokens={0: "URRRT"}, market={1: ["1-06"]})
    assert s.avengers is None
    after = engine.apply(s, M("buy 1-06"))
    assert after.avengers == 0
    assert engine.score(after, 0) == 3 + 3
    assert engine.move_details(s, M("buy 1-06"), after)["avengers"] == 0


def test_two_icons_are_not_enough_for_avengers_assemble():
    """M-AVENGERS-1."""
    s = marvel(cards={0: ["1-06"]}, seat_tokens={0: "ORRPP"}, market={1: ["1-07"]})  # 1 + 1 icons
    after = engine.apply(s, M("buy 1-07"))
    assert after.players[0].icons == 2 and after.avengers is None


def avengers_race(seat1_cards: list[str]) -> engine.State:
    """Seat 0 holds Avengers Assemble with 3 icons; seat 1 is to move and can
    recruit 1-06 Spider-Woman (1 icon)."""
    return marvel(cards={0: ["3-01", "1-07"], 1: seat1_cards}, avengers=0, ply=1,
                  seat_tokens={0: "T", 1: "YRRRT"}, market={1: ["1-06"]})


def test_avengers_assemble_moves_only_to_strictly_more_icons_and_the_holder_loses_three():
    """M-AVENGERS-2: seat 1 goes from 3 to 4 icons against seat 0's 3."""
    s = avengers_race(["3-05", "1-14"])  # 2 + 1 icons
    assert engine.score(s, 0) == 3 + 0 + 3
    after = engine.apply(s, M("buy 1-06"))
    assert after.avengers == 1
    assert engine.score(after, 0) == 3
    assert engine.score(after, 1) == 3 + 3


def test_equal_icons_do_not_move_avengers_assemble():
    """M-AVENGERS-2: seat 1 reaches 3 icons, equal to the holder's 3."""
    s = avengers_race(["3-05"])  # 2 icons
    after = engine.apply(s, M("buy 1-06"))
    assert after.players[1].icons == 3
    assert after.avengers == 0 and engine.score(after, 0) == 6


# --- M-LOCATION -----------------------------------------------------------------------------------

def test_a_location_is_taken_automatically_when_bonuses_meet_it():
    """M-LOCATION-1: L1B Wakanda asks 4 blue, 4 red; the fourth red card brings it."""
    s = marvel(tiles=["L1B", "L2B"], bonuses={0: "UUUURRR"}, seat_tokens={0: "OOO"},
               market={1: ["1-27"]})  # 1-27 Mysterio: red, 3 orange
    after = engine.apply(s, M("buy 1-27"))
    assert after.players[0].tiles == ("L1B",) and after.tiles == ("L2B",)
    assert engine.score(after, 0) == 3


def test_stones_in_hand_never_count_for_a_location():
    """M-LOCATION-1: bonuses (cards) only."""
    s = marvel(tiles=["L1B", "L2B"], seat_tokens={0: "UUUURRRR"})
    after = engine.apply(s, M("take PP"))
    assert after.players[0].tiles == ()
    assert raises_rule(s, "take PP location L1B").rule == "M-LOCATION-1"


def test_when_several_locations_qualify_the_player_chooses_one():
    """M-LOCATION-2: L1B (4 blue, 4 red) and L3A (3 yellow, 3 blue, 3 red) both
    come with a fourth red card."""
    s = marvel(tiles=["L1B", "L3A"], bonuses={0: "YYYUUUURRR"}, seat_tokens={0: "OOO"},
               market={1: ["1-27"]})
    error = raises_rule(s, "buy 1-27", AmbiguousMove)
    assert error.rule == "M-LOCATION-2"
    assert error.choices == ["buy 1-27 location L1B", "buy 1-27 location L3A"]
    after = engine.apply(s, M("buy 1-27 location L3A"))
    assert after.players[0].tiles == ("L3A",) and after.tiles == ("L1B",)
    # the other comes on a later turn, by itself
    after = play(after, "take YUO", "take YUO")
    assert after.players[0].tiles == ("L3A", "L1B")


def test_a_location_that_qualifies_alone_is_refused_as_a_suffix_by_apply():
    """M-LOCATION-2: the choice is required only when several qualify."""
    s = marvel(tiles=["L1B", "L2B"], bonuses={0: "UUUURRR"}, seat_tokens={0: "OOO"},
               market={1: ["1-27"]})
    assert raises_rule(s, "buy 1-27 location L1B").rule == "M-LOCATION-2"
    assert "buy 1-27" in legal_texts(s)


# --- M-END ---------------------------------------------------------------------------------------

# Seat 0 near the Gauntlet: 15 points (3-04, 3-08, 3-12 are yellow, blue, orange
# level-3 cards worth 5 each), a red bonus (1-25), the Time Stone, and 4 blue
# stones to recruit 1-40 Scorpion (purple, 1 point): then 16 points, five
# colours and the green meet M-END-1.
NEAR_GAUNTLET = ["3-04", "3-08", "3-12", "1-25"]


def near_gauntlet(players: int = 2, seat: int = 0, **overrides) -> engine.State:
    args: dict = {"cards": {seat: NEAR_GAUNTLET}, "seat_tokens": {seat: "UUUT"}, "market": {1: ["1-40"]},
                  "ply": seat}
    for key, value in overrides.items():
        if key in args and isinstance(value, dict):
            args[key] = {**args[key], **value}
        else:
            args[key] = value
    return marvel(players, **args)


def test_fifteen_or_more_points_do_not_end_a_marvel_game():
    """M-END-0: 16 points without the Time Stone or a red bonus: no trigger."""
    s = marvel(cards={0: ["3-04", "3-08", "3-12"]}, seat_tokens={0: "UUUU"}, market={1: ["1-40"]})
    s = play(s, "buy 1-40", "take YUO")
    assert engine.score(s, 0) == 16
    assert not s.end_triggered and not engine.is_over(s)
    s = play(s, "take YUO", "take RPY")
    assert not engine.is_over(s)


def test_the_gauntlet_needs_sixteen_points_five_colours_and_the_time_stone():
    """M-END-1."""
    s = play(near_gauntlet(), "buy 1-40")
    assert engine.score(s, 0) == 16 and s.end_triggered
    gauntlet = engine.observe(s, 1)["seats"][0]["gauntlet"]
    assert gauntlet == {"points": 16, "points_needed": 0, "missing_colors": [], "time_stone": True,
                        "meets": True}


@pytest.mark.parametrize("missing", ["time stone", "a colour", "a point"])
def test_the_gauntlet_is_not_met_without_each_of_its_parts(missing):
    """M-END-1."""
    if missing == "time stone":
        s = near_gauntlet(seat_tokens={0: "UUUU"})
    elif missing == "a colour":  # 2-09 is a second blue card (2 points) instead of the red one
        s = near_gauntlet(cards={0: ["3-04", "3-08", "3-12", "2-09"]})
    else:  # 3-11 is orange and worth 4, not 5: 15 points at the end
        s = near_gauntlet(cards={0: ["3-04", "3-08", "3-11", "1-25"]})
    after = play(s, "buy 1-40")
    gauntlet = engine.observe(after, 0)["seats"][0]["gauntlet"]
    assert gauntlet["meets"] is False and not after.end_triggered


def test_a_gauntlet_trigger_finishes_the_round_then_the_game_ends():
    """M-END-2: seat 0 of 3 triggers; seats 1 and 2 still play."""
    s = play(near_gauntlet(players=3), "buy 1-40")
    assert s.end_triggered and not engine.is_over(s)
    s = play(s, "take YUO")
    assert not engine.is_over(s)
    s = play(s, "take YUO")
    assert engine.is_over(s)
    result = engine.outcome(s)
    assert result["reason"] == "gauntlet" and result["winners"] == [0]


def test_a_gauntlet_trigger_by_the_last_seat_ends_the_game_at_once():
    """M-END-2."""
    s = play(near_gauntlet(players=3, seat=2), "buy 1-40")
    assert engine.is_over(s) and engine.outcome(s)["winners"] == [2]


# Seat 0 reaches 16 only with Avengers Assemble: 3-01 Iron Man and 3-05 Black Widow
# (yellow and blue, 3 points and 2 icons each), 3-12 (orange, 5), 1-25 (red, 0),
# Avengers Assemble (3) = 14; recruiting 2-29 Ronan (purple, 2 points, 5 yellow)
# makes 16. Seat 1 has 4 icons (3-09 Captain America, 3-13 Thor), equal to seat
# 0's, and can recruit 1-06 Spider-Woman (1 icon) to take the tile away.
def assemble_race() -> engine.State:
    return marvel(
        cards={0: ["3-01", "3-05", "3-12", "1-25"], 1: ["3-09", "3-13"]},
        avengers=0,
        seat_tokens={0: "YYYYOOOOJT", 1: "URRJT"},
        market={1: ["1-06"], 2: ["2-29", "2-06"]},
    )


def test_the_game_goes_on_when_nobody_meets_the_gauntlet_at_the_end_of_the_round():
    """M-END-3: the tile moved and the trigger fell below 16."""
    s = play(assemble_race(), "buy 2-29")
    assert engine.score(s, 0) == 16 and s.end_triggered
    s = play(s, "buy 1-06")
    assert s.avengers == 1 and engine.score(s, 0) == 13
    assert not engine.is_over(s) and not s.end_triggered
    assert engine.to_move(s) == 0 and engine.observe(s, 0)["final_round"] is False


def test_a_later_trigger_finishes_the_round_again():
    """M-END-5: after M-END-3, seat 0 recruits 2-06 Red Skull (3 points) for 16 again."""
    s = play(assemble_race(), "buy 2-29", "buy 1-06")
    s = play(s, "buy 2-06")
    assert engine.score(s, 0) == 16 and s.end_triggered and not engine.is_over(s)
    s = play(s, "take YUO")
    assert engine.is_over(s)
    assert engine.outcome(s)["winners"] == [0] and engine.outcome(s)["reason"] == "gauntlet"


def test_only_players_who_meet_the_gauntlet_can_win_even_with_fewer_points():
    """M-END-3: seat 1 has 17 points but no Time Stone."""
    s = near_gauntlet(cards={1: ["2-06", "2-12", "2-18", "2-24", "2-30", "2-03"]})
    assert engine.score(s, 1) == 17
    s = play(s, "buy 1-40", "take YUO")
    result = engine.outcome(s)
    assert result["winners"] == [0]
    assert result["ranking"] == [0, 1] and result["places"] == [1, 2]


# Four ways to be at exactly 16 with five colours (each seat also holds a green).
SIXTEEN_FIVE_CARDS_A = ["3-04", "3-08", "3-12", "1-25", "1-40"]  # 5+5+5+0+1
SIXTEEN_FIVE_CARDS_B = ["3-16", "3-20", "2-06", "2-12", "1-17"]  # 5+5+3+3+0
SIXTEEN_SIX_CARDS = ["3-16", "3-20", "2-06", "2-12", "1-17", "1-18"]  # the same + a 0-point card
THIRTEEN_AND_ASSEMBLE = ["3-01", "3-05", "3-09", "3-13", "2-25"]  # 3+3+3+3+1, 9 icons


def finished(cards: dict[int, list[str]], avengers: int | None = None, reason: str = "gauntlet"):
    return marvel(len(cards), cards=cards, avengers=avengers, over=True, reason=reason,
                  seat_tokens={s: "T" for s in cards})


def test_most_points_win_among_the_qualifying_players():
    """M-END-4."""
    s = finished({0: SIXTEEN_FIVE_CARDS_A, 1: SIXTEEN_FIVE_CARDS_B + ["1-08"]})  # 1-08: +1 point
    result = engine.outcome(s)
    assert result["scores"] == [16, 17] and result["winners"] == [1]


def test_equal_points_go_to_the_holder_of_avengers_assemble():
    """M-END-4."""
    s = finished({0: SIXTEEN_FIVE_CARDS_A, 1: THIRTEEN_AND_ASSEMBLE}, avengers=1)
    result = engine.outcome(s)
    assert result["scores"] == [16, 16] and result["winners"] == [1] and result["places"] == [2, 1]


def test_then_fewer_character_cards_win():
    """M-END-4."""
    s = finished({0: SIXTEEN_SIX_CARDS, 1: SIXTEEN_FIVE_CARDS_A})
    result = engine.outcome(s)
    assert result["winners"] == [1] and result["places"] == [2, 1]


def test_still_tied_players_share_the_victory():
    """M-END-4."""
    s = finished({0: SIXTEEN_FIVE_CARDS_A, 1: SIXTEEN_FIVE_CARDS_B, 2: ["1-01"]})
    result = engine.outcome(s)
    assert result["winners"] == [0, 1] and result["places"] == [1, 1, 3]


def test_a_marvel_game_ended_by_the_round_limit_ranks_everyone_by_the_same_order():
    """M-END-0, M-END-4 with B-END-3: nobody needs the Gauntlet then."""
    s = marvel(ply=199, cards={0: ["3-01"], 1: ["3-02"]})
    s = play(s, str(engine.legal_moves(s)[0]))
    result = engine.outcome(s)
    assert result["reason"] == "round-limit"
    assert result["winners"] == [1] and result["scores"] == [3, 4]
