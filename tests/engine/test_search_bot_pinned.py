"""The search bot's choices, pinned: for a seed and a playout budget it plays these
moves and no others. A change to the search that should not change its play (a
refactor, a new caller of the tree) must leave every figure here as it is; a change
meant to change its play updates them and says why."""

from __future__ import annotations

import pytest

import engine
from engine.bots import ISMCTSBot, make_bot


def legal_texts(state: engine.State) -> list[str]:
    return [m.text for m in engine.legal_moves(state)]


def greedy_position(variant: str, players: int, seed: int, ply: int) -> engine.State:
    """The position before ``ply`` of a game between greedy bots."""
    state = engine.new_game(variant, players, seed=seed)
    bots = [make_bot("greedy", s) for s in range(players)]
    for _ in range(ply):
        seat = state.seat
        state = engine.apply(state, bots[seat].choose(engine.observe(state, seat), legal_texts(state)))
    return state


@pytest.mark.parametrize(("variant", "players", "seed", "ply", "chosen"), [
    ("base", 2, 11, 6, "reserve 3-14"),
    ("base", 2, 11, 21, "take URK"),
    ("base", 3, 12, 6, "take GR"),
    ("base", 3, 12, 21, "buy 1-03"),
    ("marvel", 2, 13, 6, "take URP"),
    ("marvel", 2, 13, 21, "take YOP"),
    ("marvel", 4, 14, 6, "take UOP"),
    ("marvel", 4, 14, 21, "buy 1-35"),
])
def test_the_search_bot_chooses_the_pinned_move_for_its_seed_and_budget(variant, players, seed, ply, chosen):
    state = greedy_position(variant, players, seed, ply)
    bot = ISMCTSBot(seed=ply, playouts=80)
    assert bot.choose(engine.observe(state, state.seat), legal_texts(state)) == chosen


@pytest.mark.parametrize(("variant", "names", "seed", "plies", "scores", "first_moves"), [
    ("base", ["ismcts", "greedy"], 3, 56, [15, 8],
     ["take WGK", "take UGK", "take WUK", "buy 1-06", "take WUK", "reserve 3-03", "buy 1-32", "take WRK"]),
    ("marvel", ["greedy", "ismcts", "greedy"], 4, 87, [7, 17, 12],
     ["take YOP", "take YUP", "take RR", "buy 1-28", "take YOP", "take UU", "reserve 3-06", "buy 1-39 J:O"]),
])
def test_a_whole_game_against_greedy_bots_replays_move_for_move(variant, names, seed, plies, scores, first_moves):
    """The bot's generator runs on from move to move, so one playout more or less
    anywhere in the game changes what follows."""
    state = engine.new_game(variant, len(names), seed=seed)
    bots = [make_bot(n, seed * 10 + s, **({"playouts": 20} if n == "ismcts" else {})) for s, n in enumerate(names)]
    moves = []
    while not engine.is_over(state):
        seat = state.seat
        moves.append(bots[seat].choose(engine.observe(state, seat), legal_texts(state)))
        state = engine.apply(state, moves[-1])
    searcher = names.index("ismcts")
    assert len(moves) == plies
    assert engine.outcome(state)["scores"] == scores
    assert moves[searcher::len(names)][:8] == first_moves
