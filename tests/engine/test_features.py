"""engine.features: a seat's view as numbers. The fast encoder reads the state,
the reference one reads ``observe``'s view; they agree on every position, and
neither moves when the cards the seat cannot see are dealt again (B-RESERVE-3)."""

from __future__ import annotations

import random
import struct

import pytest

import engine
from engine.features import Features, features

GAMES = [(v, p) for v in ("base", "marvel") for p in (2, 3, 4)]


def positions(variant, players, seed, blind_share=0.3):
    """Every position of a random game that reserves from the decks now and then."""
    rng = random.Random(seed)
    state = engine.new_game(variant=variant, players=players, seed=seed)
    while True:
        yield state
        if state.over:
            return
        legal = engine.legal_moves(state)
        blind = [m for m in legal if m.deck is not None]
        state = engine.apply(state, rng.choice(blind if blind and rng.random() < blind_share else legal))


def numbers(f: Features, state, seat):
    return struct.unpack(f"={f.size}f", f.encode(state, seat))


@pytest.mark.parametrize(("variant", "players"), GAMES)
def test_the_state_encoder_equals_the_encoding_of_the_view_for_every_position_and_seat(variant, players):
    f = features(variant, players)
    count = 0
    for seed in range(3):
        for state in positions(variant, players, seed):
            for seat in range(players):
                expected = tuple(f.encode_view(engine.observe(state, seat)))
                assert len(expected) == f.size
                assert numbers(f, state, seat) == expected, (variant, players, seed, state.ply, seat)
                count += 1
    assert count > 100 * players


@pytest.mark.parametrize(("variant", "players"), GAMES)
def test_dealing_the_unseen_cards_again_changes_no_number(variant, players):
    f = Features(variant, players)  # an encoder of its own: its memos start empty
    rng = random.Random(7)
    hidden_blind = shuffled_decks = 0
    for state in positions(variant, players, seed=11, blind_share=0.5):
        for seat in range(players):  # every agent, not only the seat to move
            other = engine.determinize(engine.observe(state, seat), rng)
            shuffled_decks += other.decks != state.decks
            hidden_blind += any(b for s, p in enumerate(state.players) if s != seat for _, b in p.reserved)
            assert numbers(f, other, seat) == numbers(f, state, seat)
    assert shuffled_decks and hidden_blind


def test_another_seats_blind_reservation_is_its_level_alone():
    f = features("base", 2)
    state = engine.apply(engine.new_game(variant="base", players=2, seed=4), "reserve deck3")
    width = f.card_width + 2
    reserved = f.items[0].size + f.items[1].size  # board, then market, then reserved rows
    mine = numbers(f, state, 0)[reserved:reserved + width]
    theirs = numbers(f, state, 1)[reserved + 3 * width:reserved + 4 * width]  # seat 0 is seat 1's next row
    assert mine[:2] == (1.0, 3.0) and sum(mine[2:7]) == 1.0 and mine[-2:] == (0.0, 1.0)
    assert theirs == (1.0, 3.0) + (0.0,) * (f.card_width - 2) + (1.0, 1.0)


def test_a_wrong_game_or_seat_is_refused():
    f = features("base", 2)
    marvel = engine.new_game(variant="marvel", players=2, seed=1)
    with pytest.raises(ValueError, match="base with 2 players, not marvel with 2"):
        f.encode(marvel, 0)
    base = engine.new_game(variant="base", players=2, seed=1)
    for seat in (2, -1, True, None):
        with pytest.raises(ValueError, match="seat must be 0..1"):
            f.encode(base, seat)
    with pytest.raises(ValueError, match="spectator"):
        f.encode_view(engine.observe(base, None))
    with pytest.raises(ValueError, match="B-SETUP-1"):
        features("base", 5)


def test_features_travel_by_pickle_and_encode_the_same():
    import pickle

    f = Features("marvel", 3)
    state = engine.new_game(variant="marvel", players=3, seed=2)
    again = pickle.loads(pickle.dumps(f))
    assert (again.variant.name, again.players, again.size) == ("marvel", 3, f.size)
    assert again.encode(state, 1) == f.encode(state, 1)


def test_a_copied_state_is_encoded_like_the_original():
    import copy

    f = features("base", 3)
    state = engine.new_game(variant="base", players=3, seed=5)
    twin = copy.deepcopy(state)
    assert twin.variant is not state.variant
    assert f.encode(twin, 2) == f.encode(state, 2)
