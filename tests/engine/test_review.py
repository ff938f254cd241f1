"""A finished game reviewed by the search bot (``engine.review``): each seat's chance
before and after a move, from what the mover could see, the bot's preferred move
and the mover's drop. Budgets are small where the property does not need the
review's own; the mistake test runs at the default budget the service uses."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

import engine
from engine.bots import make_bot
from engine.bots.ismcts import Search, ordered
from engine.review import DEFAULT_REVIEW_PLAYOUTS

from .builders import position

REPO = Path(__file__).resolve().parents[2]


def legal_texts(state: engine.State) -> list[str]:
    return [m.text for m in engine.legal_moves(state)]


def greedy_move(state: engine.State, choices: list[str] | None = None) -> str:
    """The greedy bot's move here (out of ``choices`` if given)."""
    view = engine.observe(state, state.seat)
    return make_bot("greedy", 0).choose(view, choices if choices is not None else legal_texts(state))


def greedy_positions(variant: str, players: int, seed: int) -> list[tuple[engine.State, str]]:
    """Every position of a game between greedy bots, with the move played in it."""
    state = engine.new_game(variant, players, seed=seed)
    bots = [make_bot("greedy", seed * 10 + s) for s in range(players)]
    played = []
    while not engine.is_over(state):
        move = bots[state.seat].choose(engine.observe(state, state.seat), legal_texts(state))
        played.append((state, move))
        state = engine.apply(state, move)
    return played


def visited(before: engine.State, after: engine.State, seat: int) -> bool:
    """Whether ``seat`` received a noble between the two states (B-NOBLE-1)."""
    return len(after.players[seat].tiles) > len(before.players[seat].tiles)


def greedy_visits_within(state: engine.State, seat: int, turns: int) -> bool:
    """Whether greedy play from ``state`` brings ``seat`` a noble within its next ``turns`` turns."""
    for _ in range(turns * state.n):
        if state.over:
            return False
        after = engine.apply(state, greedy_move(state))
        if visited(state, after, seat):
            return True
        state = after
    return False


def greedy_winners(state: engine.State) -> list[int]:
    while not state.over:
        state = engine.apply(state, greedy_move(state))
    return engine.outcome(state)["winners"]


@dataclass
class HandedNoble:
    seed: int
    ply: int
    state: engine.State
    block: str  # what the greedy mover played: it takes the card the opponent needs
    mistake: str  # the greedy bot's favourite take instead, which hands the noble over


def first_handed_noble(seeds: range) -> HandedNoble:
    """The first position of a greedy two-player game where the mover, instead of
    the card it bought or reserved, could take tokens and so hand a noble over:

    - the greedy mover takes a card from the market (buys or reserves it), and with
      greedy play after it the opponent gets no noble within two turns and the
      mover wins;
    - the greedy bot's favourite take instead lets the opponent's greedy reply buy
      that very card and receive a noble, and with greedy play after it the
      opponent wins.
    """
    for seed in seeds:
        for ply, (state, move) in enumerate(greedy_positions("base", 2, seed)):
            me, them = state.seat, 1 - state.seat
            block = engine.move_from_text(move)
            takes = [m.text for m in engine.legal_moves(state) if m.kind == "take"]
            if block.kind == "pass" or block.kind == "take" or not takes or block.card is None:
                continue
            if not any(block.card in row for row in state.market):
                continue
            mistake = greedy_move(state, takes)
            after = engine.apply(state, mistake)
            if after.over:
                continue
            reply = engine.move_from_text(greedy_move(after))
            if reply.card != block.card or not visited(after, engine.apply(after, reply), them):
                continue
            blocked = engine.apply(state, block)
            if greedy_visits_within(blocked, them, 2):
                continue
            if greedy_winners(after) == [them] and greedy_winners(blocked) == [me]:
                return HandedNoble(seed, ply, state, move, mistake)
    raise AssertionError("no greedy game in the range hands a noble over")


def test_a_take_that_hands_the_opponent_a_noble_drops_the_movers_chance_by_a_tenth():
    """The key test of the review: a mistake a player would want pointed out. Most
    of the greedy players' own moves in the same game stay under the mark."""
    found = first_handed_noble(range(40))
    mover = found.state.seat
    review = engine.review_position(found.state, found.mistake, playouts=DEFAULT_REVIEW_PLAYOUTS, seed=1)
    assert review.best is not None and review.best != found.mistake
    assert review.drop >= 0.10, (found, review)
    assert review.before[mover] - review.after[mover] == pytest.approx(review.drop)

    game = greedy_positions("base", 2, found.seed)
    sample = game[::5]
    drops = [engine.review_position(state, move, playouts=DEFAULT_REVIEW_PLAYOUTS, seed=ply).drop
             for ply, (state, move) in enumerate(sample)]
    small = sum(d < 0.10 for d in drops)
    assert small >= 2 * len(drops) / 3, [round(d, 3) for d in drops]


def test_the_review_reads_only_the_movers_view():
    """Seat 0 cannot see seat 1's blind reservation nor the decks: two positions that
    differ only there get the same review, so a later draw never counts against it."""
    real = position("base", players=2, reserved={1: [("3-05", True)]}, seat_tokens={1: "WWUU"}, ply=2)
    other = engine.determinize(engine.observe(real, 0), random.Random(5))
    assert other.players[1].reserved != real.players[1].reserved and other.decks != real.decks
    for seed in range(2):
        assert (engine.review_position(real, "take WUG", playouts=60, seed=seed)
                == engine.review_position(other, "take WUG", playouts=60, seed=seed))


def test_the_same_position_move_budget_and_seed_give_the_same_review():
    state = greedy_positions("base", 2, 3)[10][0]
    move = legal_texts(state)[0]
    first = engine.review_position(state, move, playouts=50, seed=9)
    assert engine.review_position(state, engine.move_from_text(move), playouts=50, seed=9) == first


def test_another_process_with_other_string_hashes_gives_the_same_review():
    """A review runs as a task in a worker process of its own: nothing in it may
    follow the order of a set of strings, which each process hashes its own way."""
    code = (
        "import engine\n"
        "s = engine.replay('marvel', 3, 4, ['take YUP', 'take ORP', 'take YOR'])\n"
        "print(repr(engine.review_position(s, 'take YUP', playouts=80, seed=7)))\n"
    )
    here = engine.review_position(engine.replay("marvel", 3, 4, ["take YUP", "take ORP", "take YOR"]),
                                  "take YUP", playouts=80, seed=7)
    for hash_seed in ("1", "2"):
        result = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True,
                                timeout=60, check=False, env={**os.environ, "PYTHONHASHSEED": hash_seed})
        assert result.returncode == 0, result.stderr
        assert result.stdout.strip() == repr(here)


@pytest.mark.parametrize(("variant", "players"), [
    ("base", 2), ("base", 3), ("base", 4), ("marvel", 2), ("marvel", 3), ("marvel", 4),
])
def test_each_seats_chances_sum_to_one_before_and_after(variant, players):
    game = greedy_positions(variant, players, 5)
    for state, move in (game[4], game[len(game) // 2]):
        mover = state.seat
        review = engine.review_position(state, move, playouts=40, seed=2)
        assert len(review.before) == len(review.after) == players
        assert sum(review.before) == pytest.approx(1, abs=1e-6)
        assert sum(review.after) == pytest.approx(1, abs=1e-6)
        assert all(0 <= x <= 1 for x in review.before + review.after)
        assert review.drop == max(0.0, review.before[mover] - review.after[mover])


def test_the_bots_own_preferred_move_has_no_drop_and_no_better_move():
    """Seat 0 holds 12 points and can pay 2-30 (3 points) with four black and two
    gold: that ends the game in its favour (B-END-1). Reviewing another move names
    the purchase as the better one."""
    state = position("base", players=2, cards={0: ["2-06", "2-12", "2-18", "2-24"]},
                     market={2: ["2-30"]}, seat_tokens={0: "KKKKJJ"}, ply=0)
    best = engine.review_position(state, "buy 2-30", playouts=200, seed=4)
    assert best.best is None and best.drop == 0.0 and best.before == best.after
    assert best.after == (1.0, 0.0)  # seat 1 has one turn left and no points: a sure win
    other = engine.review_position(state, "take WUG", playouts=200, seed=4)
    assert other.best == "buy 2-30" and other.before == (1.0, 0.0)


def test_an_illegal_move_is_refused_naming_the_rule():
    state = engine.new_game("base", 2, seed=3)
    with pytest.raises(engine.IllegalMove) as refused:
        engine.review_position(state, f"buy {state.market[0][0]}", playouts=10, seed=0)
    assert refused.value.rule == "B-BUY-1"


def test_a_finished_game_and_a_budget_below_one_playout_are_refused():
    state, move = greedy_positions("base", 2, 3)[-1]
    finished = engine.apply(state, move)
    with pytest.raises(ValueError, match="over"):
        engine.review_position(finished, "pass", playouts=10, seed=0)
    for bad in (0, -5, 2.5, True):
        with pytest.raises(ValueError, match="playouts"):
            engine.review_position(state, move, playouts=bad, seed=0)


def test_a_budget_of_one_playout_reviews_the_played_move_alone():
    state = engine.new_game("base", 2, seed=3)
    review = engine.review_position(state, "take WUG", playouts=1, seed=0)
    assert review.best is None and review.before == review.after and sum(review.after) == pytest.approx(1)


def test_a_search_sends_a_playout_through_a_move_its_heuristic_ranks_last():
    """The root's moves enter best first, one more as the visits grow; a review
    needs the played move weighed however low it ranks."""
    state = greedy_positions("base", 2, 3)[6][0]
    last = ordered(state, engine.legal_moves(state))[-1]
    search = Search(engine.observe(state, state.seat), random.Random(1))
    for _ in range(30):
        search.playout()
    assert search.child(last) is None
    search.playout(through=last)
    reached = search.child(last)
    assert reached is not None and reached.visits == 1
    assert sum(reached.shares) == pytest.approx(1)
    assert search.ranked()[0] != last


def test_a_search_refuses_to_send_a_playout_through_a_move_the_seat_may_not_play():
    state = engine.new_game("base", 2, seed=3)
    search = Search(engine.observe(state, 0), random.Random(1))
    with pytest.raises(ValueError, match="not a legal move"):
        search.playout(through=engine.move_from_text(f"buy {state.market[0][0]}"))
