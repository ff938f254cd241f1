"""The search bot's CPU time a move, on positions from real games.

    python scripts/bench_search_bot.py --variant base --players 2 --playouts 1000

Plays four seeded games between greedy bots, takes about 45 of their positions
(every position with more than one legal move, evenly spaced), and times the
search bot's choice on each with ``time.process_time``, which another load on the
machine does not inflate (its wall-clock time is printed too). Prints the median
and the 90th percentile. Not a test and not in CI: docs/benchmarks.md keeps the
figures and the command.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import engine  # noqa: E402
from engine.bots import ISMCTSBot, make_bot  # noqa: E402


def positions(variant: str, players: int, games: int = 4, seed: int = 500) -> list[engine.State]:
    found = []
    for game in range(games):
        state = engine.new_game(variant, players, seed=seed + game)
        bots = [make_bot("greedy", s) for s in range(players)]
        while not engine.is_over(state):
            if len(engine.legal_moves(state)) > 1:
                found.append(state)
            seat = state.seat
            state = engine.apply(state, bots[seat].choose(engine.observe(state, seat),
                                                          [m.text for m in engine.legal_moves(state)]))
    return found[:: max(1, len(found) // 45)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--variant", choices=sorted(engine.VARIANTS), default="base")
    parser.add_argument("--players", type=int, choices=(2, 3, 4), default=2)
    parser.add_argument("--playouts", type=int, default=1000)
    args = parser.parse_args()
    cpu, wall = [], []
    for k, state in enumerate(positions(args.variant, args.players)):
        bot = ISMCTSBot(seed=k, playouts=args.playouts)
        legal = [m.text for m in engine.legal_moves(state)]
        started_cpu, started = time.process_time(), time.perf_counter()
        bot.choose(engine.observe(state, state.seat), legal)
        cpu.append(time.process_time() - started_cpu)
        wall.append(time.perf_counter() - started)
    p90 = sorted(cpu)[int(len(cpu) * 0.9)]
    print(f"{args.variant}, {args.players} players, {args.playouts} playouts: {len(cpu)} positions; "
          f"CPU a move median {statistics.median(cpu):.3f} s, p90 {p90:.3f} s; "
          f"wall-clock median {statistics.median(wall):.3f} s")


if __name__ == "__main__":
    main()
