"""The state as a value: serialisation, invariant checks and seat order."""

from __future__ import annotations

import copy
import json

import pytest

import engine
from tests.engine.builders import position


def start_dict(variant: str = "base", players: int = 2) -> dict:
    return engine.to_dict(engine.new_game(variant, players, seed=4))


def test_a_state_survives_json_and_back():
    """The stored snapshot is JSON; rebuilding it gives an equal state."""
    s = position("marvel", players=3, seat_tokens={0: "YUJT"}, cards={0: ["3-02"]},
                 reserved={1: [("2-05", True), "1-01"]}, avengers=None, ply=7)
    d = engine.to_dict(s)
    again = engine.from_dict(json.loads(json.dumps(d)))
    assert again == s and engine.to_dict(again) == d
    assert engine.legal_moves(again) == engine.legal_moves(s)


def test_a_new_game_passes_every_invariant():
    assert engine.VARIANTS
    for variant in engine.VARIANTS:
        for players in (2, 3, 4):
            assert engine.check_invariants(engine.new_game(variant, players, seed=8), cards_total=90) == []


BROKEN = {
    "a token appears from nowhere": lambda d: d["seats"][0]["tokens"].__setitem__(0, 1),
    "negative tokens": lambda d: (d["seats"][0]["tokens"].__setitem__(0, -1),
                                  d["supply"].__setitem__(0, d["supply"][0] + 1)),
    "eleven tokens": lambda d: (d["seats"][0]["tokens"].__setitem__(slice(0, 6), [3, 3, 3, 2, 0, 0]),
                                d["supply"].__setitem__(slice(0, 6), [1, 1, 1, 2, 4, 5])),
    "four reserved cards": lambda d: d["seats"][0].__setitem__(
        "reserved", [[d["decks"][0].pop(), True] for _ in range(4)]),
    "a card in two places": lambda d: d["seats"][1]["cards"].append(d["market"][0][0]),
    "a card lost": lambda d: d["decks"][0].pop(),
    "a noble in two places": lambda d: d["seats"][0]["tiles"].append(d["tiles"][0]),
}


@pytest.mark.parametrize("what", sorted(BROKEN))
def test_check_invariants_reports_each_broken_invariant(what):
    """The property tests rely on check_invariants seeing every kind of damage
    (B-LIMIT-1, B-RESERVE-2, conservation of tokens and cards)."""
    d = start_dict()
    BROKEN[what](d)
    assert engine.check_invariants(engine.from_dict(d), cards_total=90) != []


def test_check_invariants_reports_a_second_time_stone():
    """M-TIME-2."""
    d = start_dict("marvel")
    d["seats"][0]["tokens"][6] = 2
    d["supply"][6] = 0
    assert any("M-TIME-2" in p for p in engine.check_invariants(engine.from_dict(d)))


MALFORMED = {
    "a seat with three token slots": lambda d: d["seats"][0].__setitem__("tokens", [1, 0, 0]),
    "an unknown card in the market": lambda d: d["market"][0].__setitem__(0, "9-99"),
    "an unknown noble on the table": lambda d: d["tiles"].__setitem__(0, "N99"),
    "an unknown reserved card": lambda d: d["seats"][0].__setitem__("reserved", [["9-99", True]]),
    "no variant": lambda d: d.pop("variant"),
    "three players but two seats": lambda d: d.__setitem__("players", 3),
    "a word for a token count": lambda d: d["seats"][0].__setitem__("tokens", ["one"] * 7),
}


@pytest.mark.parametrize("what", sorted(MALFORMED))
def test_from_dict_refuses_malformed_data_with_a_value_error(what):
    """from_dict's contract: bad data raises ValueError, at once, rather than a
    state that fails later with IndexError or KeyError."""
    d = start_dict()
    MALFORMED[what](d)
    with pytest.raises(ValueError):
        state = engine.from_dict(d)
        engine.legal_moves(state)  # reached only if from_dict accepted the data
        engine.observe(state, 0)


def test_states_compare_by_value():
    a = engine.new_game("base", 2, seed=3)
    b = engine.from_dict(copy.deepcopy(engine.to_dict(a)))
    assert a == b and hash(a) == hash(b)
    assert engine.apply(a, engine.legal_moves(a)[0]) != a


@pytest.mark.parametrize("players", [2, 3, 4])
def test_seat_order_is_a_permutation_fixed_by_the_seed(players):
    """B-SETUP-1: seat order fixed at the start, verifiable from the seed."""
    orders = {tuple(engine.seat_permutation(seed, players)) for seed in range(40)}
    assert all(sorted(order) == list(range(players)) for order in orders)
    assert len(orders) > 1
    assert engine.seat_permutation(12, players) == engine.seat_permutation(12, players)


def test_the_seat_order_does_not_change_the_deal():
    """B-SETUP-1: the seat order uses its own stream, so the deal is the seed's alone."""
    before = engine.to_dict(engine.new_game("base", 4, seed=12))
    engine.seat_permutation(12, 4)
    assert engine.to_dict(engine.new_game("base", 4, seed=12)) == before


def test_move_details_say_what_a_move_did():
    """B-NOBLE-1, M-TIME-1 and M-AVENGERS-1 are read off two states."""
    s = position("marvel", tiles=["L1B", "L2B"], cards={0: ["3-01"]}, bonuses={0: "UUUURRR"},
                 seat_tokens={0: "URRRT"}, market={1: ["1-06"]})
    move = engine.move_from_text("buy 1-06")
    after = engine.apply(s, move)
    details = engine.move_details(s, move, after)
    assert details == {"seat": 0, "move": "buy 1-06", "private_card": None, "tile": None,
                       "time_stone": False, "avengers": 0, "over": False}


def test_a_game_is_its_deal_and_its_move_log():
    """Randomness happens once, at set-up: replay from an explicit deal reaches the same state as playing."""
    deal = {"decks": {1: [f"1-{k:02}" for k in range(1, 41)], 2: [f"2-{k:02}" for k in range(1, 31)],
                      3: [f"3-{k:02}" for k in range(1, 21)]},
            "nobles": ["N01", "N02", "N03"]}
    state = engine.new_game("base", 2, deal=deal)
    log = []
    for _ in range(12):
        move = engine.legal_moves(state)[-1]
        log.append(move.text)
        state = engine.apply(state, move)
    assert engine.replay("base", 2, deal, log) == state


def test_apply_reads_text_as_the_lenient_parser_does():
    s = engine.new_game("base", 2, seed=1)
    assert engine.apply(s, "take white blue green") == engine.apply(s, engine.move_from_text("take WUG"))
    with pytest.raises(TypeError):
        engine.apply(s, 42)  # type: ignore[arg-type]


@pytest.mark.parametrize("seat", [-1, 2, "0", 1.0])
def test_observe_refuses_a_seat_that_is_not_in_the_game(seat):
    with pytest.raises(ValueError):
        engine.observe(engine.new_game("base", 2, seed=1), seat)  # type: ignore[arg-type]
