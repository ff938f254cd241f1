"""The engine's fast paths against the rules written plainly (``reference.py``):
the same legal moves in the same order, and every one of them played to the same
next state, in whole games and in the rare positions random play seldom reaches.

``legal_moves`` and ``apply`` cache, unroll and carry derived values from one
state to the next for speed; these tests are what lets them.
"""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engine
from tests.engine import reference
from tests.engine.builders import cards_where, position

CONFIGS = [(variant, players) for variant in ("base", "marvel") for players in (2, 3, 4)]


def check_position(state: engine.State, moves: tuple[engine.Move, ...] | None = None) -> None:
    """The legal moves are the reference's, and each (or each of ``moves``) leads
    to the reference's next state without touching ``state``."""
    before = engine.to_dict(state)
    legal = engine.legal_moves(state)
    assert [m.text for m in legal] == [m.text for m in reference.legal_moves(state)]
    rebuilt = engine.from_dict(json.loads(json.dumps(before)))
    assert engine.legal_moves(rebuilt) == legal
    for move in legal if moves is None else moves:
        after = engine.apply(state, move)
        assert engine.to_dict(after) == reference.apply(state, move), f"ply {state.ply}: {move}"
        assert engine.to_dict(engine.apply(rebuilt, move)) == engine.to_dict(after)
    assert engine.to_dict(state) == before, "apply or legal_moves changed its input"


def buyer(rng: random.Random, legal: tuple[engine.Move, ...]) -> engine.Move:
    """A move that buys when it can, a tile choice first: games that reach the
    nobles, the Gauntlet and the end of the decks more often than random play."""
    for preferred in ([m for m in legal if m.tile], [m for m in legal if m.kind == "buy"]):
        if preferred:
            return rng.choice(preferred)
    return rng.choice(legal)


def uniform(rng: random.Random, legal: tuple[engine.Move, ...]) -> engine.Move:
    return rng.choice(legal)


@pytest.mark.parametrize("choose", [uniform, buyer], ids=["random", "buyer"])
@pytest.mark.parametrize("variant, players", CONFIGS)
def test_whole_games_follow_the_reference_at_every_ply_and_for_every_move(variant, players, choose):
    rng = random.Random(f"{variant}{players}{choose.__name__}")
    for game in range(2):
        state = engine.new_game(variant, players, seed=rng.randrange(2**31))
        while not engine.is_over(state):
            check_position(state)
            state = engine.apply(state, choose(rng, engine.legal_moves(state)))
        check_position(state)


@pytest.mark.slow
@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), config=st.sampled_from(CONFIGS))
def test_random_games_follow_the_reference(data, config):
    """Hypothesis draws the deal and every move, so a difference shrinks to a short game."""
    variant, players = config
    state = engine.new_game(variant, players, seed=data.draw(st.integers(0, 2**31 - 1), label="seed"))
    while not engine.is_over(state):
        legal = engine.legal_moves(state)
        move = legal[data.draw(st.integers(0, len(legal) - 1))]
        check_position(state, (move,))
        state = engine.apply(state, move)
    assert state.ply > 0  # positions were checked on the way to the end


# Positions random play seldom reaches, each with the rule it exercises.
STUCK = {  # no take (every gem is held), no reservation (three held), nothing affordable
    "market": {1: [None] * 4, 2: [None] * 4, 3: ["3-02", "3-04", "3-06", "3-08"]},
    "seat_tokens": {0: "WWWWUUUURR", 1: "GGGGRRKKKK"},
}
RARE = {
    "B-NOBLE-2: two nobles met by the bonuses already held": lambda: position(
        "base", tiles=["N01", "N02", "N05"], bonuses={0: "WWWWUUUUGGGRRRKKK"}, seat_tokens={0: "WWUUGGRRK"}),
    "B-NOBLE-2: a purchase meets two nobles at once": lambda: position(
        "base", tiles=["N01", "N02", "N03"], bonuses={0: "WWWUUUUKKKK"}, seat_tokens={0: "WWUUGGRRKJ"},
        market={1: [cards_where("base", level=1, color="W")[0]]}),
    "B-PASS-1: nothing else is possible": lambda: position(
        "base", **STUCK, reserved={0: ["3-10", "3-12", "3-14"]}),
    "B-PASS-2: the last seat passes after the others": lambda: position(
        "base", **STUCK, ply=1, passes=1, reserved={0: ["3-10", "3-12", "3-14"], 1: ["3-16", "3-18", "3-20"]}),
    "B-LIMIT-1: a reservation's joker overflows the hand": lambda: position(
        "base", seat_tokens={0: "WWUUGGRRKK"}),
    "M-TIME-3: the Time Stone overflows the hand": lambda: position(
        "marvel", seat_tokens={0: "YYUUOORRPJ"}, reserved={0: ["3-01", "3-02"]},
        bonuses={0: "YYYYYUUUUUOOOOORRRRRPPPPP"}),
    "M-AVENGERS-2: a seat with more icons takes the tile": lambda: position(
        "marvel", avengers=1, cards={0: ["1-07", "1-14", "1-15"], 1: ["1-22", "1-23", "1-30"]},
        seat_tokens={0: "YUURRR"}, market={1: ["1-06"]}),
    "M-END-3: the end was triggered and nobody meets the Gauntlet any more": lambda: position(
        "marvel", players=2, ply=1, end_triggered=True, seat_tokens={1: "YYUURRT"}),
    "B-END-3: the last ply of the round limit": lambda: position("base", ply=199),
}


@pytest.mark.parametrize("name", sorted(RARE))
def test_rare_positions_follow_the_reference(name):
    state = RARE[name]()
    for _ in range(4):  # the position and a few plies after it
        check_position(state)
        if engine.is_over(state):
            break
        state = engine.apply(state, engine.legal_moves(state)[-1])


def test_the_rare_positions_reach_what_they_are_named_after():
    """A rare position that no longer shows its case would test nothing."""
    legal = {name: [m.text for m in engine.legal_moves(build())] for name, build in RARE.items()}
    assert any(" noble " in m for m in legal["B-NOBLE-2: two nobles met by the bonuses already held"])
    assert any(m.startswith("buy ") and " noble " in m
               for m in legal["B-NOBLE-2: a purchase meets two nobles at once"])
    assert legal["B-PASS-1: nothing else is possible"] == ["pass"]
    after = engine.apply(RARE["B-PASS-2: the last seat passes after the others"](), "pass")
    assert engine.outcome(after)["reason"] == "all-passed"
    assert any(m.startswith("reserve ") and " return " in m
               for m in legal["B-LIMIT-1: a reservation's joker overflows the hand"])
    assert any(m.startswith("buy 3-") and " return " in m for m in legal["M-TIME-3: the Time Stone overflows the hand"])
    avengers = engine.apply(RARE["M-AVENGERS-2: a seat with more icons takes the tile"](), "buy 1-06")
    assert avengers.avengers == 0
    ended = engine.apply(RARE["M-END-3: the end was triggered and nobody meets the Gauntlet any more"](), "take YUO")
    assert not ended.end_triggered and not ended.over
    last = engine.apply(RARE["B-END-3: the last ply of the round limit"](), "take WUG")
    assert engine.outcome(last)["reason"] == "round-limit"


def test_the_state_a_move_leaves_behind_is_the_same_as_its_rebuilt_copy_for_every_later_query():
    """Values carried from one state to the next are what a fresh state computes."""
    rng = random.Random(3)
    for variant in ("base", "marvel"):
        state = engine.new_game(variant, 3, seed=11)
        while not engine.is_over(state):
            rebuilt = engine.from_dict(engine.to_dict(state))
            assert engine.legal_moves(rebuilt) == engine.legal_moves(state)
            assert engine.observe(rebuilt, 1) == engine.observe(state, 1)
            state = engine.apply(state, buyer(rng, engine.legal_moves(state)))
        assert state.ply > 0  # the game was played, so every state was compared


def test_games_played_in_turn_share_nothing_they_memoise():
    """Memos hang on states and seats, and every game's seats start as one shared
    empty seat: games played a ply each in turn still each follow the reference."""
    rng = random.Random(7)
    games = [engine.new_game("base", 2, seed=1), engine.new_game("base", 3, seed=2),
             engine.new_game("marvel", 2, seed=3)]
    while not all(engine.is_over(g) for g in games):
        for k, state in enumerate(games):
            if engine.is_over(state):
                continue
            move = buyer(rng, engine.legal_moves(state))
            check_position(state, (move,))
            games[k] = engine.apply(state, move)
    assert all(g.ply > 0 for g in games)  # each game was played, so positions were checked


def test_memos_are_never_part_of_a_states_value():
    """A state whose memos are filled equals, hashes, serialises and shows like a
    fresh copy of it, and so do its seats."""
    state = engine.new_game("marvel", 2, seed=5)
    for _ in range(30):
        moves = engine.legal_moves(state)
        state = engine.apply(state, moves[state.ply * 7 % len(moves)])
    fresh = engine.from_dict(engine.to_dict(state))
    engine.apply(state, engine.legal_moves(state)[0])  # fills the memos of state and its seats
    assert state == fresh and hash(state) == hash(fresh)
    assert state.players == fresh.players and [hash(p) for p in state.players] == [hash(p) for p in fresh.players]
    assert engine.to_dict(state) == engine.to_dict(fresh)
    assert engine.observe(state, 0) == engine.observe(fresh, 0)


def test_apply_sets_every_slot_a_state_and_a_seat_have():
    """apply_legal builds states and seats slot by slot, without __init__."""
    start = engine.new_game("base", 2, seed=9)
    for move in engine.legal_moves(start)[::5]:
        after = engine.apply(start, move)
        for name in engine.State.__slots__:
            getattr(after, name)
        for name in type(after.players[0]).__slots__:
            getattr(after.players[0], name)
