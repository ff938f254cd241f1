"""``engine.determinize``: the cards a view hides dealt again, never the true ones.

The search bot plans over such deals and a sandbox starts from one, so each test
here is a leak test too: the deal is built from the view alone, agrees with it, and
over many seeds differs from the real hidden cards.
"""

from __future__ import annotations

import random

import pytest

import engine
from engine.bots import make_bot
from engine.sampling import HiddenSampler

from .builders import position


def played(variant: str, players: int, seed: int, plies: int) -> engine.State:
    """A position ``plies`` greedy moves into a seeded game (or its end)."""
    state = engine.new_game(variant=variant, players=players, seed=seed)
    bots = [make_bot("greedy", seed * 10 + s) for s in range(players)]
    for _ in range(plies):
        if engine.is_over(state):
            break
        seat = state.seat
        text = bots[seat].choose(engine.observe(state, seat), [m.text for m in engine.legal_moves(state)])
        state = engine.apply(state, text)
    return state


def with_blind_reservation() -> engine.State:
    """Seat 1 holds a card reserved blind (B-RESERVE-3); seat 0 is to move."""
    return position("base", players=2, reserved={1: [("3-05", True)], 0: [("2-11", True)]}, ply=0)


@pytest.mark.parametrize("variant", ["base", "marvel"])
@pytest.mark.parametrize("players", [2, 3, 4])
def test_a_deal_gives_back_the_view_it_was_dealt_from_for_every_seat_and_a_spectator(variant, players):
    rng = random.Random(players)
    for seed in range(4):
        for plies in (0, 7, 23, 60, 400):
            state = played(variant, players, seed, plies)
            for seat in [*range(players), None]:
                view = engine.observe(state, seat)
                dealt = engine.determinize(view, rng)
                assert engine.observe(dealt, seat) == view
                assert engine.check_invariants(dealt) == []


def test_the_seat_to_move_has_the_same_legal_moves_in_every_deal():
    state = played("base", 3, seed=5, plies=20)
    view = engine.observe(state, state.seat)
    for k in range(20):
        assert engine.legal_moves(engine.determinize(view, random.Random(k))) == engine.legal_moves(state)


def test_a_deal_depends_only_on_the_view_not_on_the_hidden_cards_behind_it():
    """Two positions that differ only in what seat 0 cannot see give the same deal."""
    real = with_blind_reservation()
    other = engine.determinize(engine.observe(real, 0), random.Random(99))
    assert other.decks != real.decks and other.players[1].reserved != real.players[1].reserved
    assert engine.observe(other, 0) == engine.observe(real, 0)
    for k in range(10):
        a = engine.determinize(engine.observe(real, 0), random.Random(k))
        b = engine.determinize(engine.observe(other, 0), random.Random(k))
        assert a == b


def test_over_many_seeds_the_deal_is_not_the_true_deck_order_or_the_true_blind_reservation():
    real = with_blind_reservation()
    view = engine.observe(real, 0)
    same_decks = same_blind = 0
    for k in range(200):
        dealt = engine.determinize(view, random.Random(k))
        same_decks += any(d == r for d, r in zip(dealt.decks, real.decks))
        same_blind += dealt.players[1].reserved == real.players[1].reserved
        # the seat's own blind reservation is its own: always the true card
        assert dealt.players[0].reserved == real.players[0].reserved
    assert same_decks == 0
    # The blind card is one of the level-3 cards seat 0 cannot see, each as likely:
    # the true one about once in ``unseen`` deals, not every time.
    unseen = len(real.decks[2]) + 1
    assert same_blind <= 2 * 200 / unseen


def test_a_spectator_deal_hides_every_blind_reservation():
    real = with_blind_reservation()
    view = engine.observe(real, None)
    seen_first = {engine.determinize(view, random.Random(k)).players[0].reserved[0][0] for k in range(50)}
    assert len(seen_first) > 5  # seat 0's blind card is dealt again too


def test_the_hidden_cards_of_a_deal_come_only_from_the_unseen_ones_of_their_level():
    real = with_blind_reservation()
    view = engine.observe(real, 0)
    shown = {c["id"] for row in view["market"].values() for c in row if c}
    for k in range(20):
        dealt = engine.determinize(view, random.Random(k))
        blind = dealt.players[1].reserved[0][0]
        assert blind.startswith("3-") and blind not in shown
        assert not shown & {c for deck in dealt.decks for c in deck}


def test_a_sampler_deals_many_times_from_one_reading_of_the_view():
    real = played("marvel", 2, seed=3, plies=30)
    sampler = HiddenSampler(engine.observe(real, 1))
    rng = random.Random(1)
    deals = [sampler.sample(rng) for _ in range(30)]
    assert len({d.decks for d in deals}) > 1
    assert all(engine.observe(d, 1) == engine.observe(real, 1) for d in deals)


def test_a_view_that_does_not_add_up_is_refused():
    view = engine.observe(with_blind_reservation(), 0)
    view["decks"]["3"] += 1
    with pytest.raises(ValueError, match="level-3"):
        engine.determinize(view, random.Random(0))
