"""What a game's review by the search bot costs, a position and a 60-move game.

    python scripts/bench_review.py --playouts 200 400 800 1000 1200 --games 2

Plays seeded games between greedy bots (base, 2 players), reviews every position
of them with ``engine.review.review_position`` at each budget, and times each
review with ``time.process_time`` (CPU time of this process, which other load on
the machine inflates less than the wall clock; the wall clock is printed too).
Each repeat gives a median a position and a game's total scaled to 60 moves;
the figures printed are the medians over the repeats. Not a test and not in CI:
it measures the budget ``engine.review.DEFAULT_REVIEW_PLAYOUTS`` is set to (the
largest round budget under about 0.8 s a position, so that a 60-move game takes
under a minute of one core).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import engine  # noqa: E402
from engine.bots import make_bot  # noqa: E402
from engine.review import review_position  # noqa: E402


def greedy_game(seed: int) -> list[tuple[engine.State, str]]:
    """Every position of a game between greedy bots, with the move played in it."""
    state = engine.new_game("base", 2, seed=seed)
    bots = [make_bot("greedy", seed * 10 + s) for s in range(2)]
    played = []
    while not engine.is_over(state):
        seat = state.seat
        move = bots[seat].choose(engine.observe(state, seat), [m.text for m in engine.legal_moves(state)])
        played.append((state, move))
        state = engine.apply(state, move)
    return played


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--playouts", type=int, nargs="+", default=[400, 800, 1000, 1200])
    parser.add_argument("--games", type=int, default=2, help="greedy games reviewed per repeat")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--seed", type=int, default=700, help="the first game's seed")
    args = parser.parse_args()
    games = [greedy_game(args.seed + g) for g in range(args.games)]
    moves = sum(len(g) for g in games)
    print(f"{args.games} greedy games (base, 2 players), {moves} positions; "
          f"medians over {args.repeats} repeats", flush=True)
    for playouts in args.playouts:
        per_position, per_game, wall = [], [], []
        for repeat in range(args.repeats):
            cpu: list[float] = []
            started_wall = time.perf_counter()
            for game in games:
                for ply, (state, move) in enumerate(game):
                    started = time.process_time()
                    review_position(state, move, playouts=playouts, seed=repeat * 1000 + ply)
                    cpu.append(time.process_time() - started)
            wall.append((time.perf_counter() - started_wall) / moves)
            per_position.append(statistics.median(cpu))
            per_game.append(sum(cpu) / moves * 60)
        print(f"{playouts:5d} playouts: CPU a position median {statistics.median(per_position):.3f} s, "
              f"a 60-move game {statistics.median(per_game):.1f} s; "
              f"wall-clock a position (mean) {statistics.median(wall):.3f} s", flush=True)


if __name__ == "__main__":
    main()
