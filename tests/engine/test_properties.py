"""Properties of the public API over random games (Hypothesis).

Each test plays whole games: the deal's seed and the move chosen at every ply are
drawn by Hypothesis, so a failure shrinks to a short game and prints its draws.
The number of games comes from the active Hypothesis profile (tests/conftest.py).
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable

import pytest
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st

import engine

CONFIGS = [(variant, players) for variant in ("base", "marvel") for players in (2, 3, 4)]
LETTERS = {"base": "WUGRKJ", "marvel": "YUORPJT"}
FOREIGN = {"base": "YT", "marvel": "GK"}  # letters of the other game
TILE_WORD = {"base": "noble", "marvel": "location"}

PLAYOUT = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])


def cards_total(state: engine.State) -> int:
    return 90  # every card is somewhere: deck, market, a hand or a tableau


def play_random_game(data: st.DataObject, variant: str, players: int,
                     on_ply: Callable[[engine.State], None]) -> engine.State:
    """A whole game whose seed and moves Hypothesis draws; ``on_ply`` sees every
    position before its move. Fails if the game does not end by the round limit."""
    seed = data.draw(st.integers(0, 2**31 - 1), label="seed")
    state = engine.new_game(variant=variant, players=players, seed=seed)
    last_ply = 100 * players  # B-END-3
    while not engine.is_over(state):
        assert state.ply < last_ply, "the game ran past the 100-round limit"
        on_ply(state)
        moves = engine.legal_moves(state)
        state = engine.apply(state, moves[data.draw(st.integers(0, len(moves) - 1))])
    return state


def check_end(state: engine.State) -> None:
    assert engine.legal_moves(state) == ()
    assert engine.to_move(state) is None
    result = engine.outcome(state)
    assert result is not None
    assert result["reason"] in ("points", "gauntlet", "all-passed", "round-limit")
    assert sorted(result["ranking"]) == list(range(state.n))
    assert result["winners"] == [s for s in result["ranking"] if result["places"][s] == 1]
    assert result["winners"]
    assert result["scores"] == [engine.score(state, s) for s in range(state.n)]
    assert engine.check_invariants(state, cards_total(state)) == []


# --- invariants at every ply -----------------------------------------------------

@pytest.mark.slow
@pytest.mark.parametrize("variant, players", CONFIGS)
@PLAYOUT
@given(data=st.data())
def test_random_games_keep_every_invariant_and_always_end(variant, players, data):
    """B-LIMIT-1, B-RESERVE-2, M-TIME-2, conservation of tokens and cards, sorted
    legal moves that parse back to themselves, and states that stay values."""

    def on_ply(state: engine.State) -> None:
        assert engine.check_invariants(state, cards_total(state)) == []
        legal = engine.legal_moves(state)
        assert legal, "no legal move before the end"
        assert list(legal) == sorted(legal) and len(set(legal)) == len(legal)
        for move in legal:
            assert engine.format_move(engine.parse_move(state, move.text)) == move.text
        if variant == "marvel":  # M-TAKE-1, M-BUY-1, M-TIME-3: green never moves by a player's choice
            assert not any("T" in m.take + m.pay + m.ret for m in legal)
        before = engine.to_dict(state)
        rebuilt = engine.from_dict(json.loads(json.dumps(before)))
        assert rebuilt == state and engine.to_dict(rebuilt) == before
        assert engine.legal_moves(rebuilt) == legal
        move = legal[len(legal) // 2]
        after = engine.apply(state, move)
        assert engine.to_dict(state) == before, "apply changed its input"
        assert after.ply == state.ply + 1

    end = play_random_game(data, variant, players, on_ply)
    check_end(end)


# --- the one source of legality ------------------------------------------------------

def move_text(state: engine.State, code: int) -> str:
    """Well-formed move text from a number: mostly near the position (its cards,
    decks, tiles and letters, the other game's letters too), with or without
    suffixes. One Hypothesis draw per ply keeps long games cheap."""
    rng = random.Random(code)
    v = state.variant.name
    letters = LETTERS[v] + FOREIGN[v]

    def some_letters(least: int) -> str:
        return "".join(rng.choice(letters) for _ in range(rng.randint(least, 3)))

    p = state.players[state.seat]
    cards = sorted({c for row in state.market for c in row if c}
                   | {c for q in state.players for c, _ in q.reserved}
                   | {d[0] for d in state.decks if d}
                   | {"1-01", "2-13", "3-20"})
    cards += [c for c, _ in p.reserved]  # one's own reserve, more often
    kind = rng.randrange(5)
    if kind == 0:
        text = "take " + some_letters(1)
    elif kind == 1:
        text = "reserve " + rng.choice(cards)
    elif kind == 2:
        text = f"reserve deck{rng.randint(1, 3)}"
    elif kind == 3:
        pay = some_letters(0) if rng.random() < 0.4 else ""
        text = "buy " + rng.choice(cards) + (" J:" + pay if pay else "")
    else:
        text = "pass"
    if rng.random() < 0.4:
        text += " return " + some_letters(1)
    if rng.random() < 0.3:
        text += f" {TILE_WORD[v]} {rng.choice(sorted(state.variant.tiles))}"
    return text


@pytest.mark.slow
@pytest.mark.parametrize("variant, players", CONFIGS)
@PLAYOUT
@given(data=st.data())
def test_apply_accepts_a_move_exactly_when_it_is_in_legal_moves(variant, players, data):
    """One source of legality. Illegal moves raise IllegalMove (or
    AmbiguousMove) naming a rule, and leave the state as it was."""

    def on_ply(state: engine.State) -> None:
        text = move_text(state, data.draw(st.integers(0, 2**32 - 1)))
        note(f"ply {state.ply}: {text}")
        move = engine.move_from_text(text)  # well-formed by construction
        legal = engine.legal_moves(state)
        before = engine.to_dict(state)
        assert engine.is_legal(state, move) == (move in legal)
        if move in legal:
            assert engine.apply(state, move).ply == state.ply + 1
        else:
            with pytest.raises(engine.IllegalMove) as info:
                engine.apply(state, move)
            error = info.value
            assert error.rule and error.rule in str(error)
            assert error.rule.startswith(("B-", "M-"))
            if isinstance(error, engine.AmbiguousMove):
                assert error.choices and set(error.choices) <= set(legal)
                assert {engine.move_from_text(c).action_text for c in error.choices} == {move.action_text}
        assert engine.to_dict(state) == before, "a failed or successful apply changed its input"

    check_end(play_random_game(data, variant, players, on_ply))


# --- hidden information -----------------------------------------------------------------

def unseen_variation(state: engine.State, seat: int | None, rng: random.Random) -> engine.State:
    """The same position except what ``seat`` cannot see: the decks' order, and
    which deck card each opponent reserved blind (B-RESERVE-3)."""
    d = engine.to_dict(state)
    for deck in d["decks"]:
        rng.shuffle(deck)
    for s, holder in enumerate(d["seats"]):
        if s == seat:
            continue
        for entry in holder["reserved"]:
            cid, blind = entry
            deck = d["decks"][int(cid[0]) - 1]
            if blind and deck:
                k = rng.randrange(len(deck))
                entry[0], deck[k] = deck[k], cid
    return engine.from_dict(d)


def hidden_from(state: engine.State, seat: int | None) -> set[str]:
    hidden = {c for deck in state.decks for c in deck}
    for s, p in enumerate(state.players):
        if s != seat:
            hidden.update(c for c, blind in p.reserved if blind)
    return hidden


CARD_ID = re.compile(r'"([1-3]-[0-9][0-9])"')


@pytest.mark.slow
@pytest.mark.parametrize("variant, players", CONFIGS)
@PLAYOUT
@given(data=st.data())
def test_observe_shows_a_seat_nothing_it_cannot_see(variant, players, data):
    """Hidden information leaves only through observe (B-RESERVE-3): states that differ only in what seat s cannot
    see give identical views for s, and no view names a hidden card. The seat
    looking changes every ply: 0, 1, ..., then a spectator (None)."""
    rng = random.Random(data.draw(st.integers(0, 2**31 - 1), label="shuffle seed"))
    viewers: list[int | None] = [*range(players), None]

    def on_ply(state: engine.State) -> None:
        seat = viewers[state.ply % len(viewers)]
        view = engine.observe(state, seat)
        other = unseen_variation(state, seat, rng)
        assert engine.observe(other, seat) == view
        shown = set(CARD_ID.findall(json.dumps(view)))
        leaked = shown & hidden_from(state, seat)
        assert not leaked, f"seat {seat} can see {sorted(leaked)}"

    play_random_game(data, variant, players, on_ply)


# --- determinism ----------------------------------------------------------------------------

@pytest.mark.parametrize("variant, players", [("base", 3), ("marvel", 4)])
@PLAYOUT
@given(seed=st.integers(0, 2**31 - 1), choices=st.integers(0, 2**31 - 1), noise=st.integers(0, 2**31 - 1))
def test_the_same_seed_and_moves_give_the_same_game_whatever_global_random_does(
        variant, players, seed, choices, noise):
    """Randomness once, at set-up, from the seed; a game is its
    seed and its move log."""
    random.seed(noise)
    rng = random.Random(choices)
    state = engine.new_game(variant=variant, players=players, seed=seed)
    log = []
    while not engine.is_over(state):
        move = rng.choice(engine.legal_moves(state))
        log.append(move.text)
        random.random()  # the global generator moves on between plies
        state = engine.apply(state, move)
    random.seed(noise + 1)
    random.shuffle(list(range(100)))
    again = engine.replay(variant, players, seed, log)
    assert engine.to_dict(again) == engine.to_dict(state)
    assert engine.outcome(again) == engine.outcome(state)
    random.seed(noise + 2)
    assert engine.to_dict(engine.new_game(variant, players, seed=seed)) == engine.to_dict(
        engine.replay(variant, players, seed, []))


def test_the_engine_never_calls_the_global_random_generator(monkeypatch):
    """Set-up and play work with every global random function broken."""

    def broken(*args, **kwargs):
        raise AssertionError("the engine used the global random generator")

    for name in ("random", "shuffle", "choice", "choices", "sample", "randrange", "randint", "seed",
                 "getrandbits", "uniform"):
        monkeypatch.setattr(random, name, broken)
    for variant in ("base", "marvel"):
        state = engine.new_game(variant, 4, seed=99)
        for _ in range(60):
            moves = engine.legal_moves(state)
            state = engine.apply(state, moves[(state.ply * 7) % len(moves)])
        assert engine.observe(state, 0)["ply"] == 60


# Parts that cannot be read, or cannot belong to the move they follow: the whole
# text is refused as invalid notation (notation.md: a part that cannot be read is
# invalid; nothing written is dropped).
UNREADABLE_SUFFIXES = ["return", "noble", "location", "J:", "zebra", "return K return K", "noble N01 noble N02"]


@pytest.mark.slow
@pytest.mark.parametrize("variant, players", CONFIGS)
@PLAYOUT
@given(data=st.data())
def test_a_legal_move_with_a_part_that_does_not_belong_is_refused_whole(variant, players, data):
    """B-LIMIT-1, B-NOBLE-2, M-LOCATION-2: a suffix is played as written or refused."""
    checked = 0

    def on_ply(state: engine.State) -> None:
        nonlocal checked
        moves = engine.legal_moves(state)
        move = str(moves[data.draw(st.integers(0, len(moves) - 1), label="move")])
        suffix = data.draw(st.sampled_from([*UNREADABLE_SUFFIXES, "J:R", "return K", f"{TILE_WORD[variant]} N01"]))
        text = f"{move} {suffix}"
        note(text)
        try:
            parsed = engine.parse_move(state, text)
        except engine.InvalidNotation:
            checked += 1
            return
        except (engine.IllegalMove, engine.AmbiguousMove):
            # Well formed, but the position forbids it: refused with its rule.
            assert suffix not in UNREADABLE_SUFFIXES, text
            checked += 1
            return
        # Only a J: part added to a buy can be another legal move (another payment);
        # it is never the move without the part.
        assert move.startswith("buy ") and suffix == "J:R" and "J:" not in move, text
        assert parsed != move and "J:" in str(parsed), text
        if suffix in UNREADABLE_SUFFIXES:
            raise AssertionError(f"{text!r} was played as {parsed!r}")

    play_random_game(data, variant, players, on_ply)
    assert checked > 0
