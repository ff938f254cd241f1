"""The search bot (``ismcts``): legal, deterministic under a seed, blind to what its
seat cannot see, and better than the greedy bot. Its strength is measured by
``python -m engine arena`` (docs/benchmarks.md); the games here are few and small."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

import engine
from engine.arena import parse_bot, schedule, wilson
from engine.bots import ISMCTSBot, make_bot

from .builders import position

REPO = Path(__file__).resolve().parents[2]


def legal_texts(state: engine.State) -> list[str]:
    return [m.text for m in engine.legal_moves(state)]


def play(variant: str, names: list[str], seed: int, playouts: int = 40) -> engine.State:
    state = engine.new_game(variant=variant, players=len(names), seed=seed)
    bots = [make_bot(n, seed * 10 + s, **({"playouts": playouts} if n == "ismcts" else {}))
            for s, n in enumerate(names)]
    while not engine.is_over(state):
        seat = state.seat
        text = bots[seat].choose(engine.observe(state, seat), legal_texts(state))
        assert text in legal_texts(state)
        state = engine.apply(state, text)
    return state


@pytest.mark.parametrize("variant", ["base", "marvel"])
@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_search_bot_plays_whole_games_with_legal_moves_at_every_table_size(variant, players):
    state = play(variant, ["ismcts"] + ["random"] * (players - 1), seed=players, playouts=15)
    assert engine.outcome(state) is not None


def test_with_a_playout_budget_the_same_seed_chooses_the_same_moves():
    state = engine.apply(engine.new_game("base", 2, seed=4), "take WUG")
    view, legal = engine.observe(state, 1), legal_texts(state)
    first = [ISMCTSBot(seed=7, playouts=60).choose(view, legal) for _ in range(3)]
    assert len(set(first)) == 1


def test_the_choice_does_not_depend_on_the_hidden_cards_behind_the_view():
    """Seat 0 cannot see seat 1's blind reservation nor the decks: two positions that
    differ only there look the same to it, and it chooses the same."""
    real = position("base", players=2, reserved={1: [("3-05", True)]}, seat_tokens={1: "WWUU"}, ply=2)
    other = engine.determinize(engine.observe(real, 0), random.Random(5))
    assert other.players[1].reserved != real.players[1].reserved and other.decks != real.decks
    for seed in range(3):
        a = ISMCTSBot(seed=seed, playouts=50).choose(engine.observe(real, 0), legal_texts(real))
        b = ISMCTSBot(seed=seed, playouts=50).choose(engine.observe(other, 0), legal_texts(other))
        assert a == b


def test_a_budget_in_seconds_stops_when_the_callers_clock_says_so():
    ticks = iter(range(1000))
    bot = ISMCTSBot(seed=1, seconds=10, clock=lambda: float(next(ticks)))
    state = engine.new_game("base", 2, seed=1)
    bot.choose(engine.observe(state, 0), legal_texts(state))
    assert bot.last_playouts == 10  # the clock is read once before and once after each playout


def test_a_single_legal_move_is_played_without_searching():
    bot = ISMCTSBot(seed=1, playouts=100)
    state = engine.new_game("base", 2, seed=1)
    assert bot.choose(engine.observe(state, 0), ["take WUG"]) == "take WUG"
    assert bot.last_playouts == 0


def test_the_search_bot_buys_the_card_that_reaches_15_points():
    """Seat 0 holds 12 points and can pay 2-30 (3 points) with four black and two
    gold: that ends the game in its favour (B-END-1)."""
    state = position("base", players=2, cards={0: ["2-06", "2-12", "2-18", "2-24"]},
                     market={2: ["2-30"]}, seat_tokens={0: "KKKKJJ"}, ply=0)
    legal = legal_texts(state)
    assert "buy 2-30" in legal
    assert ISMCTSBot(seed=3, playouts=200).choose(engine.observe(state, 0), legal) == "buy 2-30"


def test_the_bot_refuses_a_spectators_view_and_a_bad_budget():
    state = engine.new_game("base", 2, seed=1)
    with pytest.raises(ValueError, match="spectator"):
        ISMCTSBot(playouts=5).choose(engine.observe(state, None), legal_texts(state))
    for bad in ({"playouts": 0}, {"playouts": 2.5}, {"seconds": 0}):
        with pytest.raises(ValueError):
            ISMCTSBot(**bad)
    with pytest.raises(ValueError, match="no budget"):
        make_bot("greedy", playouts=5)


@pytest.mark.slow
def test_the_search_bot_beats_the_greedy_one_in_most_of_a_few_small_games():
    """Eight games at 150 playouts a move, seats alternating; the arena's figures at
    the real budget are in docs/benchmarks.md."""
    wins = 0
    for game in range(8):
        names = ["ismcts", "greedy"] if game % 2 == 0 else ["greedy", "ismcts"]
        result = engine.outcome(play("base", names, seed=500 + game // 2, playouts=150))
        wins += result["winners"] == [names.index("ismcts")]
    assert wins >= 6, f"the search bot won {wins} of 8"


def test_the_arena_rotates_the_seats_over_each_deal():
    games = list(schedule(["ismcts", "greedy", "greedy", "random"], 4, 8, seed=1))
    assert [g[1][0] for g in games[:4]] == ["ismcts", "greedy", "greedy", "random"]
    assert games[0][0] == games[3][0] != games[4][0]
    assert sorted(g[1].index("ismcts") for g in games[:4]) == [0, 1, 2, 3]


def test_the_wilson_interval_matches_its_textbook_values():
    assert wilson(80, 100) == pytest.approx((0.7112, 0.8666), abs=1e-4)
    assert wilson(100, 100)[1] == 1.0 and wilson(0, 100)[0] == 0.0


def test_the_arena_reads_a_bot_and_its_own_budget():
    assert parse_bot("ismcts:250") == ("ismcts", 250)
    assert parse_bot("greedy") == ("greedy", None)
    for bad in ("clever", "greedy:5", "ismcts:x"):
        with pytest.raises(ValueError):
            parse_bot(bad)


def test_the_arena_command_prints_its_figures_as_one_json_line_last():
    result = subprocess.run(
        [sys.executable, "-m", "engine", "arena", "--bots", "ismcts,random", "--games", "2", "--playouts", "10"],
        cwd=REPO, capture_output=True, text=True, timeout=120, check=False,
    )
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert report["bots"] == ["ismcts", "random"] and report["games"] == 2
    assert sum(report["wins"].values()) + report["draws"] == 2
    assert set(report["interval95"]) == {"ismcts", "random"}
    lo, hi = report["interval95"]["ismcts"]
    assert 0 <= lo <= report["wins"]["ismcts"] / 2 <= hi <= 1


def test_the_arena_command_refuses_an_unknown_bot_and_a_wrong_table():
    for args in (["--bots", "clever,greedy"], ["--bots", "greedy"], ["--bots", "greedy,random", "--games", "0"]):
        result = subprocess.run([sys.executable, "-m", "engine", "arena", *args], cwd=REPO,
                                capture_output=True, text=True, timeout=60, check=False)
        assert result.returncode == 2 and "error" in result.stderr
